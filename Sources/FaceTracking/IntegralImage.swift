/// Summed-area tables of a ``GrayImage``: the sum of pixels, and optionally of squared pixels, of
/// every rectangle in four look-ups.
///
/// Entry (x, y), for 0 <= x <= width and 0 <= y <= height, holds the sum over the pixels above and
/// to the left of it (`x' < x`, `y' < y`); row 0 and column 0 are zero. Entries are 32-bit and wrap
/// on overflow, as OpenCV's `integral(..., CV_32S, CV_32S)`: a rectangle's sum, a difference of four
/// entries in wrapping arithmetic, is exact while it is below 2^32 (any rectangle's pixel sum; the
/// squared sum of up to 66 000 pixels).
public struct IntegralImage: Sendable {
    /// The image's width; rows of the tables hold `width + 1` entries.
    public private(set) var width = 0
    /// The image's height; the tables have `height + 1` rows.
    public private(set) var height = 0
    /// `(width + 1) * (height + 1)` pixel sums, row-major.
    public private(set) var sums: [UInt32] = []
    /// `(width + 1) * (height + 1)` squared-pixel sums, row-major (empty when not asked for).
    public private(set) var squaredSums: [UInt32] = []

    /// The tables of `image` (`squares`: also the squared sums, which Haar cascades need).
    /// - Complexity: O(`width * height`).
    public init(_ image: GrayImage, squares: Bool = true) {
        compute(image, squares: squares)
    }

    /// Empty tables, to be filled by ``compute(_:squares:)``.
    public init() {}

    /// Recomputes the tables for `image`, reusing their storage (nothing is allocated when the
    /// image is no larger than before).
    public mutating func compute(_ image: GrayImage, squares: Bool = true) {
        width = image.width
        height = image.height
        let stride = width + 1
        let count = stride * (height + 1)
        Self.fit(&sums, count)
        Self.fit(&squaredSums, squares ? count : 0)
        let w = width, h = height
        image.pixels.withUnsafeBufferPointer { src in
            sums.withUnsafeMutableBufferPointer { Self.accumulate(src, width: w, height: h, into: $0) { $0 } }
            if squares {
                squaredSums.withUnsafeMutableBufferPointer { Self.accumulate(src, width: w, height: h, into: $0) { $0 &* $0 } }
            }
        }
    }

    /// Fills `table` with the running sums of `value(pixel)`.
    @inline(__always)
    private static func accumulate(
        _ src: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int, into table: UnsafeMutableBufferPointer<UInt32>,
        _ value: (UInt32) -> UInt32
    ) {
        let stride = w + 1
        for x in 0..<stride { table[x] = 0 }
        for y in 0..<h {
            let row = (y + 1) * stride, above = y * stride
            table[row] = 0
            var running: UInt32 = 0
            for x in 0..<w {
                running &+= value(UInt32(src[y * w + x]))
                table[row + x + 1] = table[above + x + 1] &+ running
            }
        }
    }

    /// The sum of the pixels of the rectangle at column `x`, row `y`, `width` x `height` pixels
    /// (which must lie inside the image).
    @inlinable public func sum(x: Int, y: Int, width: Int, height: Int) -> UInt32 {
        Self.rectangle(sums, stride: self.width + 1, x: x, y: y, width: width, height: height)
    }

    /// The sum of the squared pixels of the rectangle (see ``sum(x:y:width:height:)``); 0 when the
    /// squared sums were not computed.
    @inlinable public func squaredSum(x: Int, y: Int, width: Int, height: Int) -> UInt32 {
        guard !squaredSums.isEmpty else { return 0 }
        return Self.rectangle(squaredSums, stride: self.width + 1, x: x, y: y, width: width, height: height)
    }

    @inlinable static func rectangle(_ t: [UInt32], stride: Int, x: Int, y: Int, width: Int, height: Int) -> UInt32 {
        let top = y * stride + x, bottom = (y + height) * stride + x
        return t[bottom + width] &- t[bottom] &- t[top + width] &+ t[top]
    }

    /// Makes `array` hold `count` elements, keeping its capacity.
    private static func fit(_ array: inout [UInt32], _ count: Int) {
        if array.count > count {
            array.removeLast(array.count - count)
        } else if array.count < count {
            array.append(contentsOf: repeatElement(0, count: count - array.count))
        }
    }
}
