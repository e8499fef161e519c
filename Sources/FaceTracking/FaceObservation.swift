/// An axis-aligned rectangle in normalised image coordinates.
///
/// Normalised image coordinates run from 0 to 1 across the image's width (x) and height (y), with
/// the origin at the image's top-left corner and y growing downwards, as pixel rows are stored.
/// A rectangle may reach past 0...1 (a face cut by the image's edge).
///
/// Vision (and Core Image) put the origin at the bottom-left with y growing upwards; convert with
/// ``init(bottomLeftOriginX:y:width:height:)`` or ``flippedVertically``.
public struct NormalizedRect: Sendable, Equatable, Hashable, Codable {
    /// Left edge, fraction of the image width.
    public var x: Double
    /// Top edge, fraction of the image height (from the top).
    public var y: Double
    /// Fraction of the image width.
    public var width: Double
    /// Fraction of the image height.
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// A rectangle given with the origin at the bottom-left and y growing upwards (Vision's
    /// `boundingBox`): `y` is then its bottom edge, a fraction of the height from the image's bottom.
    public init(bottomLeftOriginX x: Double, y: Double, width: Double, height: Double) {
        self.init(x: x, y: 1 - y - height, width: width, height: height)
    }

    /// A rectangle centred on (`midX`, `midY`).
    public init(midX: Double, midY: Double, width: Double, height: Double) {
        self.init(x: midX - width / 2, y: midY - height / 2, width: width, height: height)
    }

    /// The same rectangle with the origin moved to the other horizontal edge of the image (top-left
    /// to bottom-left, or back): y becomes 1 - y - height. Its own inverse.
    public var flippedVertically: NormalizedRect {
        NormalizedRect(x: x, y: 1 - y - height, width: width, height: height)
    }

    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }
    /// Fraction of the image's area (width × height in normalised units).
    public var area: Double { width * height }

    /// Whether every field is finite and the width and height are positive: what a detector's box
    /// must be for the tracker to use it.
    public var isValid: Bool {
        x.isFinite && y.isFinite && width.isFinite && height.isFinite && width > 0 && height > 0
    }

    /// Intersection over union (Jaccard index) with `other`: the area both cover over the area
    /// either covers, 0 (disjoint) to 1 (identical). 0 when either has no area.
    @inlinable
    public func intersectionOverUnion(_ other: NormalizedRect) -> Double {
        let w = min(maxX, other.maxX) - max(minX, other.minX)
        let h = min(maxY, other.maxY) - max(minY, other.minY)
        guard w > 0 && h > 0 else { return 0 }
        let overlap = w * h
        return overlap / (area + other.area - overlap)
    }
}

/// One face as a detector reports it in one image: where it is, how it is turned, how sure the
/// detector is. Any detector can produce it (the cascade detector, Vision, a face-landmark model).
public struct FaceObservation: Sendable, Equatable, Codable {
    /// The face's box in normalised image coordinates (origin top-left, y down; see
    /// ``NormalizedRect``) of the image the detector was given, after any orientation it applied.
    public var boundingBox: NormalizedRect
    /// Rotation of the face in the image plane, radians, as Vision reports it
    /// (`VNFaceObservation.roll`: the angle about the axis perpendicular to the image). nil when the
    /// detector does not estimate it. Apple documents the axis and the unit but not the direction,
    /// so the toolkit does not depend on the sign: the tracker only smooths it (and unwraps it
    /// across ±π). Vision's face-rectangle revisions before 3 report it in coarse steps.
    public var roll: Double?
    /// Rotation of the face about the image's vertical axis (turning the head left or right),
    /// radians, as Vision reports it (`VNFaceObservation.yaw`, within about ±π/2); nil when the
    /// detector does not estimate it. As with roll, the sign is passed through unchanged.
    public var yaw: Double?
    /// How sure the detector is that this is a face, 0...1.
    public var confidence: Double

    public init(boundingBox: NormalizedRect, roll: Double? = nil, yaw: Double? = nil, confidence: Double = 1) {
        self.boundingBox = boundingBox
        self.roll = roll
        self.yaw = yaw
        self.confidence = confidence
    }

    /// Whether the tracker can use this observation: a valid box, a finite confidence and finite
    /// angles where given.
    public var isValid: Bool {
        boundingBox.isValid && confidence.isFinite && (roll?.isFinite ?? true) && (yaw?.isFinite ?? true)
    }
}
