/// An axis-aligned rectangle in pixels: top-left corner (`x`, `y`), `width` x `height`.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    /// Left edge, pixels from the image's left.
    public var x: Int
    /// Top edge, pixels from the image's top.
    public var y: Int
    /// Width, pixels.
    public var width: Int
    /// Height, pixels.
    public var height: Int

    /// A rectangle with its top-left corner at (`x`, `y`), `width` x `height` pixels.
    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// Pixels covered by both rectangles divided by pixels covered by either (0 when they do not
    /// overlap): intersection over union, 0...1.
    public func intersectionOverUnion(_ other: PixelRect) -> Double {
        // In Double, exact for any image's pixels (under 2^53): edges and areas of rectangles near
        // Int.max overflowed an Int.
        let w = min(Double(x) + Double(width), Double(other.x) + Double(other.width)) - max(Double(x), Double(other.x))
        let h = min(Double(y) + Double(height), Double(other.y) + Double(other.height)) - max(Double(y), Double(other.y))
        guard w > 0, h > 0 else { return 0 }
        let overlap = w * h
        return overlap / (Double(width) * Double(height) + Double(other.width) * Double(other.height) - overlap)
    }

    /// "(x, y) widthxheight".
    public var description: String { "(\(x), \(y)) \(width)x\(height)" }
}

/// A detected object: its rectangle in the image's pixels, and how many raw detections (windows
/// the cascade accepted, at neighbouring positions and scales) were merged into it.
public struct Detection: Sendable, Hashable {
    /// Where the object is, in the image's pixels.
    public var rect: PixelRect
    /// Raw detections averaged into ``rect``; more means more certain. 1 when not grouped.
    public var neighbors: Int

    /// A detection of `rect` merging `neighbors` raw detections.
    public init(rect: PixelRect, neighbors: Int) {
        self.rect = rect
        self.neighbors = neighbors
    }
}

/// A size in pixels.
public struct PixelSize: Sendable, Hashable {
    /// Width, pixels.
    public var width: Int
    /// Height, pixels.
    public var height: Int

    /// A size of `width` x `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// No size: no lower bound when used as a minimum, no upper bound as a maximum.
    public static let zero = PixelSize(width: 0, height: 0)
}

extension Detection {
    /// This detection as a ``FaceObservation`` of an image `width` x `height` pixels (normalised box;
    /// confidence: the merged raw detections over 10, at most 1; no roll or yaw, which a cascade does
    /// not measure).
    public func observation(width: Int, height: Int) -> FaceObservation {
        let (w, h) = (Double(width), Double(height))
        return FaceObservation(
            boundingBox: NormalizedRect(x: Double(rect.x) / w, y: Double(rect.y) / h, width: Double(rect.width) / w,
                                        height: Double(rect.height) / h),
            confidence: min(1, Double(neighbors) / 10))
    }
}
