import PulseDetection

/// An 8-bit grayscale image: `width` x `height` pixels, row-major, one byte per pixel, rows packed
/// (no padding). Pixel values are brightness 0...255 (a video frame's luma plane is one).
public struct GrayImage: Sendable, Equatable {
    /// Pixels per row.
    public internal(set) var width: Int
    /// Rows.
    public internal(set) var height: Int
    /// `width * height` pixels, row after row; pixel (x, y) is `pixels[y * width + x]`.
    public internal(set) var pixels: [UInt8]

    /// An image holding `pixels` (row-major, `width * height` of them).
    /// - Throws: ``FaceTrackingError`` `.badImage` when a side is not positive or the count differs.
    public init(width: Int, height: Int, pixels: [UInt8]) throws(FaceTrackingError) {
        guard width > 0, height > 0 else {
            throw FaceTrackingError(.badImage, "an image needs positive sides (got \(width)x\(height))")
        }
        let area = try Self.area(width: width, height: height)
        guard pixels.count == area else {
            throw FaceTrackingError(
                .badImage, "a \(width)x\(height) image has \(area) pixels (got \(pixels.count))")
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A copy of the `width` x `height` image whose rows start `bytesPerRow` bytes apart at
    /// `baseAddress` (a camera buffer's or a decoded frame's luma plane).
    /// - Throws: ``FaceTrackingError`` `.badImage` when a side is not positive or
    ///   `bytesPerRow < width`.
    public init(baseAddress: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int) throws(FaceTrackingError) {
        self.init()
        try copy(from: baseAddress, width: width, height: height, bytesPerRow: bytesPerRow)
    }

    /// Makes this image a copy of the `width` x `height` image whose rows start `bytesPerRow` bytes
    /// apart at `baseAddress`, reusing its storage (frame after frame of one size allocates nothing).
    /// - Throws: ``FaceTrackingError`` `.badImage` when a side is not positive, `bytesPerRow < width`,
    ///   or the image would span more bytes than memory can address (the image is left as it was).
    public mutating func copy(from baseAddress: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int) throws(FaceTrackingError) {
        guard width > 0, height > 0, bytesPerRow >= width else {
            throw FaceTrackingError(
                .badImage, "an image needs positive sides and bytesPerRow >= width (got \(width)x\(height), \(bytesPerRow) bytes per row)")
        }
        let area = try Self.area(width: width, height: height)
        // The last row ends (height - 1) * bytesPerRow + width bytes in.
        let (lastRow, overflow) = (height - 1).multipliedReportingOverflow(by: bytesPerRow)
        guard !overflow, lastRow <= Int.max - width else {
            throw FaceTrackingError(
                .badImage, "\(height) rows of \(bytesPerRow) bytes are more than memory can address")
        }
        self.width = width
        self.height = height
        if pixels.count != area { pixels = [UInt8](repeating: 0, count: area) }
        pixels.withUnsafeMutableBytes { buffer in
            for y in 0..<height {
                (buffer.baseAddress! + y * width).copyMemory(from: baseAddress + y * bytesPerRow, byteCount: width)
            }
        }
    }

    /// Makes this image a copy of `frame`'s luma plane (Y' of a 4:2:0 frame), reusing its storage.
    /// - Throws: ``FaceTrackingError`` `.badImage` for a BGRA frame, which has no luma plane.
    public mutating func copyLuma(of frame: Frame) throws(FaceTrackingError) {
        if case .bgra = frame.format {
            throw FaceTrackingError(.badImage, "a BGRA frame has no luma plane to detect faces in (decode it as 4:2:0)")
        }
        let luma = frame.plane0
        try copy(from: luma.baseAddress, width: frame.width, height: frame.height, bytesPerRow: luma.bytesPerRow)
    }

    /// An empty image (0 x 0), as scratch to be filled by ``copyLuma(of:)`` or
    /// ``copy(from:width:height:bytesPerRow:)`` (the detector also shrinks images into such scratch).
    public init() {
        width = 0
        height = 0
        pixels = []
    }

    /// `width * height` (both positive).
    /// - Throws: ``FaceTrackingError`` `.badImage` when that is more than an `Int` counts.
    private static func area(width: Int, height: Int) throws(FaceTrackingError) -> Int {
        let (area, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow else {
            throw FaceTrackingError(.badImage, "a \(width)x\(height) image has more pixels than memory can address")
        }
        return area
    }

    /// The pixel at column `x`, row `y`.
    @inlinable public subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }
}
