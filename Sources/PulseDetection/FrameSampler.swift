/// A rectangular region of interest in a frame.
public enum FrameRegion: Sendable, Hashable {
    /// The whole frame.
    case full
    /// A rectangle in pixels (origin at the top-left pixel); clipped to the frame.
    case pixels(x: Int, y: Int, width: Int, height: Int)
    /// A rectangle as fractions (0...1) of the frame's width and height; rounded to whole pixels, clipped.
    case fraction(x: Double, y: Double, width: Double, height: Double)

    /// A centred rectangle covering `fraction` of the frame's width and of its height.
    public static func centered(fraction: Double) -> FrameRegion {
        .fraction(x: (1 - fraction) / 2, y: (1 - fraction) / 2, width: fraction, height: fraction)
    }

    /// The half-open pixel rectangle `[x0, x1) x [y0, y1)` this region covers in a `width` x `height` frame.
    /// - Throws: `FrameError.invalidRegion` when the rectangle is empty after clipping.
    func resolve(width: Int, height: Int) throws -> PixelRect {
        let rect: PixelRect
        switch self {
        case .full:
            rect = PixelRect(x0: 0, y0: 0, x1: width, y1: height)
        case let .pixels(x, y, w, h):
            rect = PixelRect(
                x0: max(0, x), y0: max(0, y),
                x1: min(width, x.addingReportingOverflow(max(0, w)).partialValue),
                y1: min(height, y.addingReportingOverflow(max(0, h)).partialValue))
        case let .fraction(x, y, w, h):
            func pixel(_ f: Double, _ size: Int) -> Int {
                guard f.isFinite else { return f > 0 ? size : 0 }
                return Int((min(max(f, 0), 1) * Double(size)).rounded())
            }
            rect = PixelRect(
                x0: pixel(x, width), y0: pixel(y, height),
                x1: pixel(x + w, width), y1: pixel(y + h, height))
        }
        guard rect.x1 > rect.x0, rect.y1 > rect.y0 else {
            throw FrameError(.invalidRegion, "region \(self) does not cover any pixel of a \(width)x\(height) frame")
        }
        return rect
    }
}

/// A half-open rectangle of pixels, `[x0, x1) x [y0, y1)`.
struct PixelRect: Equatable {
    var x0: Int, y0: Int, x1: Int, y1: Int
}

/// Mean colour of a frame over a region of interest, reading every pixel or every `stride`-th row
/// and column ("jump sampling"), for BGRA and 4:2:0 Y'CbCr frames.
///
/// - BGRA: the mean of each channel over the sampled pixels.
/// - 4:2:0 (bi-planar or planar): the mean luma over the sampled luma samples and the mean Cb and Cr
///   over the chroma samples under the region (the region is widened to even coordinates so whole
///   chroma samples are covered). A strided mean reads every `stride`-th row and column of each
///   plane in that plane's own grid, so the chroma planes are read as sparsely as the luma plane
///   (a quarter of the rows for stride 4 in every plane). The mean R, G, B is the affine
///   Y'CbCr -> RGB conversion of those means, unclipped (see `YCbCrEncoding.rgb`); with stride 1 it
///   equals the mean of the per-pixel conversion exactly.
///
/// Sums are exact integers, so the result equals a float64 reference up to the final division.
/// Nothing is allocated per frame; the full-frame loops read 64 bytes per step in SIMD registers.
/// (Pixel words are read little-endian, as on every platform Swift targets here: x86-64, arm64.)
///
/// - Complexity: O(pixels in the region / stride²) arithmetic; memory traffic is every row read
///   (a strided read still touches every cache line of the rows it reads).
public struct FrameSampler: Sendable, Hashable {
    /// The region whose mean is taken.
    public var region: FrameRegion
    /// Read every `stride`-th row and column (1 = every pixel).
    public var stride: Int

    /// - Throws: `FrameError.invalidStride` when `stride < 1`.
    public init(region: FrameRegion = .full, stride: Int = 1) throws {
        guard stride >= 1 else {
            throw FrameError(.invalidStride, "sampling stride must be at least 1 (got \(stride))")
        }
        self.region = region
        self.stride = stride
    }

    /// The mean colour of `frame` over the region, stamped with the frame's time.
    /// - Throws: `FrameError.invalidRegion` when the region does not cover any pixel of this frame.
    public func sample(_ frame: Frame) throws -> ColorSample {
        let rect = try region.resolve(width: frame.width, height: frame.height)
        switch frame.format {
        case .bgra:
            let sums = Self.sums(frame.plane0, rect, bytesPerSample: 4, stride: stride)
            let n = Double(Self.count(rect.x1 - rect.x0, stride) * Self.count(rect.y1 - rect.y0, stride))
            return ColorSample(
                time: frame.time, red: Double(sums[2]) / n, green: Double(sums[1]) / n, blue: Double(sums[0]) / n)
        case let .yuv420BiPlanar(encoding), let .yuv420Planar(encoding):
            let m = try yCbCrMeans(frame)
            let (r, g, b) = encoding.rgb(y: m.y, cb: m.cb, cr: m.cr)
            return ColorSample(time: frame.time, red: r, green: g, blue: b)
        }
    }

    /// Mean luma, Cb and Cr (sample values, 0...255) of a 4:2:0 frame over the region; for a BGRA
    /// frame, the BT.601 full-range Y'CbCr of its mean colour.
    /// - Throws: `FrameError.invalidRegion` when the region does not cover any pixel of this frame.
    public func yCbCrMeans(_ frame: Frame) throws -> (y: Double, cb: Double, cr: Double) {
        var rect = try region.resolve(width: frame.width, height: frame.height)
        switch frame.format {
        case .bgra:
            let c = try sample(frame)
            let y = 0.299 * c.red + 0.587 * c.green + 0.114 * c.blue
            return (y, 128 + (c.blue - y) / 1.772, 128 + (c.red - y) / 1.402)
        case .yuv420BiPlanar, .yuv420Planar:
            // Widen to the chroma grid so the region covers whole chroma samples.
            rect.x0 &= ~1
            rect.y0 &= ~1
            rect.x1 = min(frame.width, (rect.x1 + 1) & ~1)
            rect.y1 = min(frame.height, (rect.y1 + 1) & ~1)
            let chromaRect = PixelRect(x0: rect.x0 / 2, y0: rect.y0 / 2, x1: (rect.x1 + 1) / 2, y1: (rect.y1 + 1) / 2)
            let chromaStride = stride
            let lumaSum = Self.sums(frame.plane0, rect, bytesPerSample: 1, stride: stride).wrappedSum()
            let cbSum: UInt64, crSum: UInt64
            if case .yuv420BiPlanar = frame.format {
                let s = Self.sums(frame.plane1, chromaRect, bytesPerSample: 2, stride: chromaStride)
                cbSum = s[0] &+ s[2]
                crSum = s[1] &+ s[3]
            } else {
                cbSum = Self.sums(frame.plane1, chromaRect, bytesPerSample: 1, stride: chromaStride).wrappedSum()
                crSum = Self.sums(frame.plane2, chromaRect, bytesPerSample: 1, stride: chromaStride).wrappedSum()
            }
            let nLuma = Double(Self.count(rect.x1 - rect.x0, stride) * Self.count(rect.y1 - rect.y0, stride))
            let nChroma = Double(
                Self.count(chromaRect.x1 - chromaRect.x0, chromaStride)
                    * Self.count(chromaRect.y1 - chromaRect.y0, chromaStride))
            return (Double(lumaSum) / nLuma, Double(cbSum) / nChroma, Double(crSum) / nChroma)
        }
    }

    /// How many of `length` consecutive positions a stride of `stride` visits, starting at the first.
    @inline(__always)
    static func count(_ length: Int, _ stride: Int) -> Int { (length + stride - 1) / stride }

    // MARK: Kernels

    /// Sums of the bytes at offsets 0, 1, 2, 3 (mod 4) of every sample read, over every `stride`-th
    /// row and sample of `rect` (in samples of `bytesPerSample` bytes: 4 for BGRA, so the four sums
    /// are blue, green, red, alpha; 2 for interleaved CbCr, so Cb is phases 0 + 2 and Cr 1 + 3).
    ///
    /// When `stride` is a power of two and `stride * bytesPerSample <= 16` (strides 1, 2, 4 for BGRA;
    /// up to 16 for luma), whole 64-byte blocks are read into SIMD registers and the samples not
    /// wanted are masked off: a strided read costs the same per row as a full one, and reads a
    /// `stride`-th of the rows. Other strides run a scalar loop.
    static func sums(_ plane: FramePlane, _ rect: PixelRect, bytesPerSample: Int, stride: Int) -> SIMD4<UInt64> {
        if stride * bytesPerSample <= 16 && stride & (stride - 1) == 0 {
            return blockSums(plane, rect, bytesPerSample: bytesPerSample, stride: stride)
        }
        return scalarSums(plane, rect, bytesPerSample: bytesPerSample, stride: stride)
    }

    /// The SIMD path of `sums`: 64 bytes per step. Each 64-bit lane holds four 16-bit fields (even
    /// bytes in one register, odd bytes in another), which cannot overflow in 256 steps
    /// (256 x 255 < 65536); the fields are widened into the totals every 256 steps.
    static func blockSums(_ plane: FramePlane, _ rect: PixelRect, bytesPerSample: Int, stride: Int) -> SIMD4<UInt64> {
        // Keep byte k of a block when its sample index k / bytesPerSample is a multiple of stride;
        // blocks start at the region's first sample, and stride divides the samples per block.
        // Both are powers of two here and the kept pattern repeats every 16 bytes, so one 16-byte
        // mask, repeated, covers a block; the compiler keeps it in one register.
        let sampleShift = bytesPerSample.trailingZeroBitCount
        let strideMask = stride - 1
        var even16 = SIMD2<UInt64>(repeating: 0)
        var odd16 = SIMD2<UInt64>(repeating: 0)
        for lane in 0..<2 {
            for byte in 0..<8 where ((8 * lane + byte) >> sampleShift) & strideMask == 0 {
                if byte & 1 == 0 {
                    even16[lane] |= 0xFF << UInt64(8 * byte)
                } else {
                    odd16[lane] |= 0xFF << UInt64(8 * (byte - 1))
                }
            }
        }
        let evenMask = SIMD8(lowHalf: SIMD4(lowHalf: even16, highHalf: even16), highHalf: SIMD4(lowHalf: even16, highHalf: even16))
        let oddMask = SIMD8(lowHalf: SIMD4(lowHalf: odd16, highHalf: odd16), highHalf: SIMD4(lowHalf: odd16, highHalf: odd16))
        var even = SIMD8<UInt64>(repeating: 0)
        var odd = SIMD8<UInt64>(repeating: 0)
        var pending = 0
        var totals = SIMD4<UInt64>(repeating: 0)
        let rowBytes = (rect.x1 - rect.x0) * bytesPerSample
        let blocks = rowBytes / 64
        let tailStart = blocks * 64

        @inline(__always)
        func flush() {
            let low16 = SIMD8<UInt64>(repeating: 0x0000_FFFF_0000_FFFF)
            let p0 = (even & low16).wrappedSum()
            let p2 = ((even &>> 16) & low16).wrappedSum()
            let p1 = (odd & low16).wrappedSum()
            let p3 = ((odd &>> 16) & low16).wrappedSum()
            totals &+= SIMD4(
                (p0 & 0xFFFF_FFFF) &+ (p0 >> 32), (p1 & 0xFFFF_FFFF) &+ (p1 >> 32),
                (p2 & 0xFFFF_FFFF) &+ (p2 >> 32), (p3 & 0xFFFF_FFFF) &+ (p3 >> 32))
            even = SIMD8(repeating: 0)
            odd = SIMD8(repeating: 0)
            pending = 0
        }

        @inline(__always)
        func tail(_ row: UnsafeRawPointer) {
            var i = tailStart
            while i < rowBytes {
                if (i >> sampleShift) & strideMask == 0 {
                    totals[i & 3] &+= UInt64(row.load(fromByteOffset: i, as: UInt8.self))
                }
                i += 1
            }
        }

        let rowStep = stride * plane.bytesPerRow
        var row = plane.baseAddress + rect.y0 * plane.bytesPerRow + rect.x0 * bytesPerSample
        var rowsLeft = count(rect.y1 - rect.y0, stride)
        // Strided reads, and full reads of long rows: eight rows side by side, so the memory latency
        // at the start of each row (where the hardware prefetcher has not yet caught on) overlaps
        // across eight rows instead of being paid row after row, and more reads are in flight.
        let e16 = evenMask.lowHalf.lowHalf, o16 = oddMask.lowHalf.lowHalf
        if stride > 1 || rowBytes >= Self.groupedRowBytes {
            let group = Self.rowsPerGroup
            while rowsLeft >= group {
                var b = 0
                while b < blocks {
                    // `group` rows x 4 quarters samples per field per step.
                    let steps = min(blocks - b, (256 - pending) / (4 * group))
                    var e = SIMD2<UInt64>(repeating: 0), o = SIMD2<UInt64>(repeating: 0)
                    for k in b..<(b + steps) {
                        for q in 0..<4 {
                            let offset = k &* 64 &+ q &* 16
                            var r = row
                            for _ in 0..<group {
                                let a = r.loadUnaligned(fromByteOffset: offset, as: SIMD2<UInt64>.self)
                                e &+= a & e16
                                o &+= (a &>> 8) & o16
                                r += rowStep
                            }
                        }
                    }
                    even.lowHalf.lowHalf &+= e
                    odd.lowHalf.lowHalf &+= o
                    b += steps
                    pending += 4 * group * steps
                    if pending > 256 - 4 * group { flush() }
                }
                for g in 0..<group { tail(row + g * rowStep) }
                row += group * rowStep
                rowsLeft -= group
            }
        }

        // One row at a time: the four 16-byte quarters of a block are added together before they
        // reach the (two-register) accumulators, so everything stays in registers; each step adds
        // 4 samples per field.
        while rowsLeft > 0 {
            var b = 0
            while b < blocks {
                let steps = min(blocks - b, (256 - pending) / 4)
                var e = SIMD2<UInt64>(repeating: 0), o = SIMD2<UInt64>(repeating: 0)
                for k in b..<(b + steps) {
                    let p = row + k &* 64
                    let v0 = p.loadUnaligned(as: SIMD2<UInt64>.self)
                    let v1 = p.loadUnaligned(fromByteOffset: 16, as: SIMD2<UInt64>.self)
                    let v2 = p.loadUnaligned(fromByteOffset: 32, as: SIMD2<UInt64>.self)
                    let v3 = p.loadUnaligned(fromByteOffset: 48, as: SIMD2<UInt64>.self)
                    e &+= ((v0 & e16) &+ (v1 & e16)) &+ ((v2 & e16) &+ (v3 & e16))
                    o &+= (((v0 &>> 8) & o16) &+ ((v1 &>> 8) & o16)) &+ (((v2 &>> 8) & o16) &+ ((v3 &>> 8) & o16))
                }
                even.lowHalf.lowHalf &+= e
                odd.lowHalf.lowHalf &+= o
                b += steps
                pending += 4 * steps
                if pending > 252 { flush() }
            }
            tail(row)
            row += rowStep
            rowsLeft -= 1
        }
        flush()
        return totals
    }

    /// Rows read side by side in the grouped loop (16 measured no better than 8 here).
    static let rowsPerGroup = 8

    /// Full-frame reads take rows eight at a time from this row length (bytes) up: measured here,
    /// eight streams read 1920x1080 BGRA rows (7680 bytes) 20-30 % faster than one, while short rows
    /// (640x480 NV12, 640 bytes) read slower that way.
    static let groupedRowBytes = 4096

    /// The scalar path of `sums`, for strides that do not divide a 64-byte block.
    static func scalarSums(_ plane: FramePlane, _ rect: PixelRect, bytesPerSample: Int, stride: Int) -> SIMD4<UInt64> {
        var totals = SIMD4<UInt64>(repeating: 0)
        let n = count(rect.x1 - rect.x0, stride)
        let step = bytesPerSample &* stride
        var y = rect.y0
        while y < rect.y1 {
            let row = plane.baseAddress + y * plane.bytesPerRow + rect.x0 * bytesPerSample
            switch bytesPerSample {
            case 4:
                // 16-bit fields in 32-bit words: at most 256 pixels before widening (256 x 255 < 65536).
                var start = 0
                while start < n {
                    let end = min(n, start + 256)
                    var lo: UInt32 = 0, hi: UInt32 = 0
                    var offset = start &* step
                    for _ in start..<end {
                        let p = row.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                        lo &+= p & 0x00FF_00FF
                        hi &+= (p &>> 8) & 0x00FF_00FF
                        offset &+= step
                    }
                    totals &+= SIMD4(UInt64(lo & 0xFFFF), UInt64(hi & 0xFFFF), UInt64(lo >> 16), UInt64(hi >> 16))
                    start = end
                }
            case 2:
                var even: UInt64 = 0, odd: UInt64 = 0
                var offset = 0
                for _ in 0..<n {
                    let v = row.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
                    even &+= UInt64(v & 0xFF)
                    odd &+= UInt64(v &>> 8)
                    offset &+= step
                }
                totals &+= SIMD4(even, odd, 0, 0)
            default:
                var s: UInt64 = 0
                var offset = 0
                for _ in 0..<n {
                    s &+= UInt64(row.load(fromByteOffset: offset, as: UInt8.self))
                    offset &+= step
                }
                totals[0] &+= s
            }
            y += stride
        }
        return totals
    }
}
