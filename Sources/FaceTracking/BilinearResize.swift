extension GrayImage {
    /// This image resized to `width` x `height` by bilinear interpolation, bit for bit as OpenCV's
    /// `resize(..., INTER_LINEAR_EXACT)` (the resize its cascade detector builds each pyramid
    /// level with).
    ///
    /// Pixel centres are aligned (destination pixel `x` samples source position
    /// `(x + 0.5) * srcWidth / width - 0.5`), positions outside the image take the edge pixel,
    /// and the weights are fixed point: each of the two horizontal and two vertical weights is
    /// rounded to 1/256, the horizontal pass keeps 8 fractional bits, and the result is rounded
    /// to the nearest integer (halves up).
    /// - Precondition: `width > 0`, `height > 0`, `width * height` fits an `Int`, and this image is
    ///   not empty (``GrayImage/init()``'s 0 x 0 scratch has no pixels to interpolate).
    /// - Complexity: O(`width * height` + `srcHeight`).
    public func resized(width: Int, height: Int) -> GrayImage {
        var result = GrayImage()
        var buffers = ResizeBuffers()
        result.resize(from: self, width: width, height: height, buffers: &buffers)
        return result
    }

    /// Makes this image `source` resized to `width` x `height` (see ``resized(width:height:)``),
    /// reusing this image's storage and `buffers` (nothing is allocated once they are large enough).
    mutating func resize(from source: GrayImage, width: Int, height: Int, buffers: inout ResizeBuffers) {
        precondition(width > 0 && height > 0, "resize to \(width)x\(height)")
        precondition(!width.multipliedReportingOverflow(by: height).overflow, "resize to \(width)x\(height): more pixels than an Int counts")
        precondition(source.width > 0 && source.height > 0, "resize of an empty \(source.width)x\(source.height) image")
        self.width = width
        self.height = height
        if pixels.count != width * height {
            // Shrinking keeps the capacity; the pyramid's levels only shrink after the first.
            if pixels.count > width * height {
                pixels.removeLast(pixels.count - width * height)
            } else {
                pixels.append(contentsOf: repeatElement(0, count: width * height - pixels.count))
            }
        }
        if width == source.width && height == source.height {
            pixels.withUnsafeMutableBufferPointer { dst in
                _ = dst.initialize(from: source.pixels)
            }
            return
        }
        buffers.prepare(sourceWidth: source.width, sourceHeight: source.height, width: width, height: height)
        let srcWidth = source.width
        source.pixels.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                buffers.xOffsets.withUnsafeBufferPointer { xOfs in
                    buffers.xWeights.withUnsafeBufferPointer { xW in
                        buffers.row0.withUnsafeMutableBufferPointer { row0 in
                            buffers.row1.withUnsafeMutableBufferPointer { row1 in
                                var rowA = row0, rowB = row1
                                var rowAIndex = -1, rowBIndex = -1
                                for y in 0..<height {
                                    let (r0, r1, w0, w1) = buffers.yTaps[y]
                                    // The two source rows resized horizontally (kept between output rows).
                                    if rowAIndex != r0 {
                                        if rowBIndex == r0 {
                                            swap(&rowA, &rowB)
                                            swap(&rowAIndex, &rowBIndex)
                                        } else {
                                            Self.horizontal(src, row: r0, srcWidth: srcWidth, xOfs, xW, into: rowA)
                                            rowAIndex = r0
                                        }
                                    }
                                    if rowBIndex != r1 {
                                        Self.horizontal(src, row: r1, srcWidth: srcWidth, xOfs, xW, into: rowB)
                                        rowBIndex = r1
                                    }
                                    let out = y * width
                                    let a = UInt32(w0), b = UInt32(w1)
                                    for x in 0..<width {
                                        let v = a &* UInt32(rowA[x]) &+ b &* UInt32(rowB[x]) &+ 0x8000
                                        dst[out + x] = UInt8(truncatingIfNeeded: v >> 16)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Source row `row` resized horizontally to `xOffsets.count / 2` values with 8 fractional bits.
    @inline(__always)
    private static func horizontal(
        _ src: UnsafeBufferPointer<UInt8>, row: Int, srcWidth: Int,
        _ xOffsets: UnsafeBufferPointer<Int32>, _ xWeights: UnsafeBufferPointer<UInt16>,
        into out: UnsafeMutableBufferPointer<UInt16>
    ) {
        let base = row * srcWidth
        for x in 0..<(xOffsets.count / 2) {
            let p0 = UInt16(src[base + Int(xOffsets[2 * x])])
            let p1 = UInt16(src[base + Int(xOffsets[2 * x + 1])])
            out[x] = xWeights[2 * x] &* p0 &+ xWeights[2 * x + 1] &* p1
        }
    }
}

/// The taps and row buffers of a bilinear resize, kept between calls so that resizing the same
/// sizes again allocates nothing.
struct ResizeBuffers {
    /// Per destination column: the two source columns.
    var xOffsets: [Int32] = []
    /// Per destination column: the two weights, in 1/256 (summing to 256).
    var xWeights: [UInt16] = []
    /// Per destination row: the two source rows and their weights in 1/256.
    var yTaps: [(Int, Int, UInt16, UInt16)] = []
    /// Two source rows resized horizontally.
    var row0: [UInt16] = []
    var row1: [UInt16] = []
    private var key = (0, 0, 0, 0)

    mutating func prepare(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        guard key != (sourceWidth, sourceHeight, width, height) else { return }
        key = (sourceWidth, sourceHeight, width, height)
        xOffsets.removeAll(keepingCapacity: true)
        xWeights.removeAll(keepingCapacity: true)
        for x in 0..<width {
            let (o0, o1, w0, w1) = Self.taps(x, source: sourceWidth, destination: width)
            xOffsets.append(Int32(o0))
            xOffsets.append(Int32(o1))
            xWeights.append(w0)
            xWeights.append(w1)
        }
        yTaps.removeAll(keepingCapacity: true)
        for y in 0..<height {
            yTaps.append(Self.taps(y, source: sourceHeight, destination: height))
        }
        if row0.count < width {
            row0 = [UInt16](repeating: 0, count: width)
            row1 = [UInt16](repeating: 0, count: width)
        }
    }

    /// OpenCV's `interpolationLinear::getCoeffs`: the source samples of destination index `i`, and
    /// their weights in 1/256. The scale is computed as OpenCV does (the inverse of its
    /// `dst / src` ratio), in double precision, so the taps match it bit for bit.
    static func taps(_ i: Int, source: Int, destination: Int) -> (Int, Int, UInt16, UInt16) {
        let scale = 1.0 / (Double(destination) / Double(source))
        let position = scale * (Double(i) + 0.5) - 0.5
        let floor = Int(position.rounded(.down))
        guard floor >= 0, source > 1 else { return (0, 0, 256, 0) }
        guard floor < source - 1 else { return (source - 1, source - 1, 256, 0) }
        let w1 = UInt16(((position - Double(floor)) * 256).rounded(.toNearestOrEven))
        return (floor, floor + 1, 256 - w1, w1)
    }
}
