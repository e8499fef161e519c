/// A rectangle in a view's coordinates: points, origin at the view's top-left, y down (UIKit's and
/// SwiftUI's convention).
public struct ViewRect: Sendable, Equatable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// Maps between normalised image coordinates (see ``NormalizedRect``) and the coordinates of a view
/// showing the camera image, as `AVCaptureVideoPreviewLayer` shows it: turned upright, optionally
/// mirrored, and scaled into the view by a video gravity.
///
/// The image is taken through three steps, in this order:
/// 1. **Rotation**: turned clockwise by ``rotation`` to stand upright in the view (a phone held
///    upright shows the sensor's landscape buffer turned 90°). A rectangle already given in upright
///    coordinates (Vision run with the image's orientation) takes `.none` and the upright size.
/// 2. **Mirroring**: flipped left to right as the viewer sees it, when ``mirrored`` (the front
///    camera's preview, `AVCaptureConnection.isVideoMirrored`).
/// 3. **Gravity**: scaled into the view as `AVLayerVideoGravity` does (see ``Gravity``).
///
/// The inverse (``normalizedRect(for:)``) takes a view rectangle back to the image, e.g. a tap or a
/// region the user drew. Rotations by quarter turns and mirroring keep rectangles axis-aligned, so
/// rectangles map to rectangles exactly.
public struct PreviewTransform: Sendable, Equatable {
    /// How the image is fitted into the view; the meanings of `AVLayerVideoGravity`.
    public enum Gravity: String, Sendable, CaseIterable {
        /// Scaled up or down, keeping its aspect ratio, until it fills the view; the overflow on
        /// one axis is cropped equally on both sides (the usual camera preview).
        case resizeAspectFill
        /// Scaled, keeping its aspect ratio, until it fits inside the view; centred, with bars on
        /// one axis (letterboxing or pillarboxing).
        case resizeAspect
        /// Stretched to the view's width and height independently.
        case resize
    }

    /// A clockwise turn by a multiple of 90°.
    public enum Rotation: Int, Sendable, CaseIterable {
        case none = 0
        case clockwise90 = 90
        case upsideDown = 180
        case clockwise270 = 270
    }

    /// Image width and height, pixels, as the buffer stores them (before rotation).
    public let imageWidth: Double
    public let imageHeight: Double
    /// Clockwise turn that stands the image upright in the view.
    public let rotation: Rotation
    /// Whether the preview is mirrored left to right (after rotation).
    public let mirrored: Bool
    /// View width and height, points.
    public let viewWidth: Double
    public let viewHeight: Double
    public let gravity: Gravity

    /// The upright image's top-left corner in the view, points (negative when cropped by aspect fill).
    public let originX: Double
    public let originY: Double
    /// The upright image's width and height in the view, points.
    public let scaledWidth: Double
    public let scaledHeight: Double

    /// - Parameters:
    ///   - imageWidth: the buffer's width, pixels (only the ratio of width to height matters).
    ///   - imageHeight: the buffer's height, pixels.
    ///   - rotation: the clockwise turn that stands the buffer upright in the view.
    ///   - viewWidth: the view's width, points.
    ///   - viewHeight: the view's height, points.
    ///   - gravity: how the upright image is fitted into the view.
    ///   - mirrored: whether the preview is flipped left to right.
    /// - Throws: ``FaceTrackingError`` `.invalidSize` when a size is not a positive finite number.
    public init(imageWidth: Double, imageHeight: Double, rotation: Rotation = .none,
                viewWidth: Double, viewHeight: Double, gravity: Gravity = .resizeAspectFill,
                mirrored: Bool = false) throws(FaceTrackingError) {
        for (name, v) in [("image width", imageWidth), ("image height", imageHeight),
                          ("view width", viewWidth), ("view height", viewHeight)] where !(v.isFinite && v > 0) {
            throw FaceTrackingError(.invalidSize, "\(name) must be a positive finite number (got \(v))")
        }
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.rotation = rotation
        self.viewWidth = viewWidth
        self.viewHeight = viewHeight
        self.gravity = gravity
        self.mirrored = mirrored
        let quarter = rotation == .clockwise90 || rotation == .clockwise270
        let uprightWidth = quarter ? imageHeight : imageWidth
        let uprightHeight = quarter ? imageWidth : imageHeight
        let sx = viewWidth / uprightWidth, sy = viewHeight / uprightHeight
        switch gravity {
        case .resize:
            scaledWidth = viewWidth
            scaledHeight = viewHeight
        case .resizeAspect:
            let s = min(sx, sy)
            scaledWidth = uprightWidth * s
            scaledHeight = uprightHeight * s
        case .resizeAspectFill:
            let s = max(sx, sy)
            scaledWidth = uprightWidth * s
            scaledHeight = uprightHeight * s
        }
        originX = (viewWidth - scaledWidth) / 2
        originY = (viewHeight - scaledHeight) / 2
    }

    /// The view point, points, of the normalised image point (`x`, `y`) (origin top-left, y down).
    public func viewPoint(x: Double, y: Double) -> (x: Double, y: Double) {
        var (u, v) = (x, y)
        switch rotation {
        case .none: break
        case .clockwise90: (u, v) = (1 - y, x)
        case .upsideDown: (u, v) = (1 - x, 1 - y)
        case .clockwise270: (u, v) = (y, 1 - x)
        }
        if mirrored { u = 1 - u }
        return (originX + u * scaledWidth, originY + v * scaledHeight)
    }

    /// The normalised image point of the view point (`x`, `y`), points: the inverse of
    /// ``viewPoint(x:y:)``. Points outside the shown image give coordinates outside 0...1.
    public func imagePoint(x: Double, y: Double) -> (x: Double, y: Double) {
        var u = (x - originX) / scaledWidth
        let v = (y - originY) / scaledHeight
        if mirrored { u = 1 - u }
        switch rotation {
        case .none: return (u, v)
        case .clockwise90: return (v, 1 - u)
        case .upsideDown: return (1 - u, 1 - v)
        case .clockwise270: return (1 - v, u)
        }
    }

    /// Where the image rectangle `rect` appears in the view, points. Parts cropped by aspect fill
    /// lie outside the view's bounds.
    public func viewRect(for rect: NormalizedRect) -> ViewRect {
        let a = viewPoint(x: rect.minX, y: rect.minY), b = viewPoint(x: rect.maxX, y: rect.maxY)
        return ViewRect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(b.x - a.x), height: abs(b.y - a.y))
    }

    /// The image rectangle shown at the view rectangle `rect`: the inverse of ``viewRect(for:)``.
    public func normalizedRect(for rect: ViewRect) -> NormalizedRect {
        let a = imagePoint(x: rect.x, y: rect.y), b = imagePoint(x: rect.x + rect.width, y: rect.y + rect.height)
        return NormalizedRect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(b.x - a.x), height: abs(b.y - a.y))
    }

    /// The part of the image the view shows, normalised image coordinates: all of it (0, 0, 1, 1)
    /// except under aspect fill, which crops one axis.
    public var visibleImageRect: NormalizedRect {
        let shown = normalizedRect(for: ViewRect(x: 0, y: 0, width: viewWidth, height: viewHeight))
        let x0 = max(0, shown.minX), y0 = max(0, shown.minY)
        return NormalizedRect(x: x0, y: y0, width: min(1, shown.maxX) - x0, height: min(1, shown.maxY) - y0)
    }
}
