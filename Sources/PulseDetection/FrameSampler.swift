internal import CPrefetch

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
///   equals the mean of the per-pixel conversion exactly when the region's width and height are
///   even (at an odd frame edge the last chroma column or row covers one luma column or row but
///   counts as much as the others: 65x49 frames read R 234.20 against 234.62 per pixel).
///
/// Sums are exact integers, so the result equals a float64 reference up to the final division.
/// Nothing is allocated per frame; the loops read 16 bytes per load in SIMD registers, eight rows at a time.
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
    static func count(_ length: Int, _ stride: Int) -> Int { length <= 0 ? 0 : (length - 1) / stride + 1 }

    // MARK: Kernels

    /// Sums of the bytes at offsets 0, 1, 2, 3 (mod 4) of every sample read, over every `stride`-th
    /// row and sample of `rect` (in samples of `bytesPerSample` bytes: 4 for BGRA, so the four sums
    /// are blue, green, red, alpha; 2 for interleaved CbCr, so Cb is phases 0 + 2 and Cr 1 + 3).
    ///
    /// When `stride` is a power of two and `stride * bytesPerSample <= 16` (strides 1, 2, 4 for BGRA;
    /// up to 16 for luma), rows are read 16 bytes at a time in SIMD registers and, for strides above
    /// 1, the samples not wanted are masked off: a strided read does the same arithmetic per row as a
    /// full one, on a `stride`-th of the rows. Other strides run a scalar loop.
    static func sums(_ plane: FramePlane, _ rect: PixelRect, bytesPerSample: Int, stride: Int) -> SIMD4<UInt64> {
        if stride == 1 {
            return vectorSums(plane, rect, bytesPerSample: bytesPerSample, stride: 1, masked: false)
        }
        if stride <= 16 / bytesPerSample && stride & (stride - 1) == 0 {
            return vectorSums(plane, rect, bytesPerSample: bytesPerSample, stride: stride, masked: true)
        }
        return scalarSums(plane, rect, bytesPerSample: bytesPerSample, stride: stride)
    }

    /// Rows read side by side in a strided read (16 measured no better than 8 here).
    static let rowsPerGroup = 8

    /// Bands of rows a full read walks side by side. Which count is fastest depends on the CPU's
    /// prefetchers: on the machine of earlier sessions 8 bands read a cold NV12 640x480 frame about
    /// twice as fast as one stream; on the 2-core AMD EPYC of 23 Nov 2026, 2 bands took 45-51 / 19-20
    /// / 298-332 / 117-146 µs (BGRA 640x480, NV12 640x480, BGRA 1920x1080, NV12 1920x1080), 8 bands
    /// 58-61 / 22-28 / 387-536 / 141-198 µs and 1 band 49-55 / 19-20 / 349-410 / 122-148 µs, with
    /// OpenCV's cv2.mean at 49 / 19 / 284 / 121 µs (`bench/check_frame_speed.py`, side by side).
    static let bandsPerFullRead = 2

    /// 16-byte loads per 64-byte cache line (the line size of x86-64 and of most arm64 cores; on
    /// cores with 128-byte lines every other prefetch is redundant, which costs next to nothing).
    static let loadsPerLine = 4

    /// The SIMD path of `sums`, 16 bytes per load viewed as eight 16-bit lanes.
    ///
    /// Each lane adds its two bytes whole (`low + 256 * high`, wrapping) in one accumulator and its
    /// high byte alone (a 16-bit shift) in another; the low bytes' sum is then the first minus 256
    /// times the second, modulo 65536, which is exact while neither sum can reach 65536 (at most 256
    /// bytes of 255 per lane between widenings). Lanes alternate between bytes 0, 1 and 2, 3 of each
    /// 4-byte group, so the widening yields the four phase sums. Two additions and a shift per load
    /// (plus a mask for strides above 1).
    ///
    /// Rows go eight at a time, so that eight streams of memory reads are in flight instead of one:
    /// - full reads (`stride` 1) walk ``bandsPerFullRead`` bands of rows (the first, second, ...
    ///   part of the region) side by side, each band reading its rows in order, so each stream stays
    ///   sequential and the hardware prefetcher follows them all.
    /// - strided reads walk eight consecutive sampled rows side by side, since the rows between them
    ///   are not read and there is no sequential stream to follow; for the same reason the hardware
    ///   prefetcher does not see the next rows coming (each starts a new stream it must first
    ///   detect), so each cache line read goes with a software prefetch of the same line of the row
    ///   eight sampled rows ahead (`vitals_prefetch`: into the level-2 cache, since eight wide rows
    ///   can outgrow level 1). Measured here (`vitals bench` with 64 frames, median of 30 runs
    ///   alternating with the code before), that took a stride-4 read from 0.49 / 0.97 / 0.37 / 0.62
    ///   of the full read's time to 0.39 / 0.44 / 0.36 / 0.50 (BGRA 640x480, NV12 640x480, BGRA
    ///   1920x1080, NV12 1920x1080: long rows gain least); but 64 NV12 640x480 frames stayed in
    ///   the last-level cache. Truly cold (512 MiB of frames) it reads 0.49 / 0.82 / 0.36 / 0.50, and
    ///   prefetching 2-4 groups ahead gained NV12 640x480 0.02-0.04 and cost BGRA 640x480 as much.
    ///   On frames already in the cache the prefetches cost 0-6 %. Also tried, no better: 4 or 16 rows side by side, prefetching 4,
    ///   16 or 24 rows ahead, into level 1, the first lines of the next rows early, Y and CbCr
    ///   rows interleaved (slower). Keep `add` small: when it grew by a few lines, the compiler
    ///   stopped inlining it (despite `@inline(__always)`) and the strided read took twice as long.
    @inline(__always)
    static func vectorSums(
        _ plane: FramePlane, _ rect: PixelRect, bytesPerSample: Int, stride: Int, masked: Bool
    ) -> SIMD4<UInt64> {
        // Keep byte k of a 16-byte load when its sample index k / bytesPerSample is a multiple of
        // stride; loads start at the region's first sample and stride divides the 16 / bytesPerSample
        // samples of a load, so one mask serves every load.
        let sampleShift = bytesPerSample.trailingZeroBitCount
        let strideMask = stride - 1
        var maskBytes = SIMD16<UInt8>(repeating: 0)
        for k in 0..<16 where (k >> sampleShift) & strideMask == 0 { maskBytes[k] = 0xFF }
        let mask = unsafeBitCast(maskBytes, to: SIMD8<UInt16>.self)

        let rowBytes = (rect.x1 - rect.x0) * bytesPerSample
        let loads = rowBytes / 16
        let rowStep = stride * plane.bytesPerRow
        let first = plane.baseAddress + rect.y0 * plane.bytesPerRow + rect.x0 * bytesPerSample
        let rows = count(rect.y1 - rect.y0, stride)
        var totals = SIMD4<UInt64>(repeating: 0)

        /// Adds `group` rows `groupStep` bytes apart, 16 bytes of each per step, and prefetches the
        /// first `prefetchRows` of the `group` rows that follow them (each `groupStep` after the
        /// previous), one cache line of each per cache line read.
        @inline(__always)
        func add(_ row: UnsafeRawPointer, group: Int, groupStep: Int, prefetchRows: Int = 0) {
            @inline(__always)
            func step(_ offset: Int, _ whole: inout SIMD8<UInt16>, _ high: inout SIMD8<UInt16>) {
                var r = row + offset
                for _ in 0..<group {
                    var v = r.loadUnaligned(as: SIMD8<UInt16>.self)
                    if masked { v &= mask }
                    whole &+= v
                    high &+= v &>> 8
                    r += groupStep
                }
            }
            let ahead = group * groupStep
            var done = 0
            while done < loads {
                let steps = min(loads - done, 256 / group)
                var whole = SIMD8<UInt16>(repeating: 0), high = SIMD8<UInt16>(repeating: 0)
                var offset = done &* 16
                var left = steps
                if prefetchRows > 0 {
                    while left >= Self.loadsPerLine {
                        var p = row + offset + ahead
                        for _ in 0..<prefetchRows {
                            vitals_prefetch(p)
                            p += groupStep
                        }
                        for _ in 0..<Self.loadsPerLine {
                            step(offset, &whole, &high)
                            offset &+= 16
                        }
                        left -= Self.loadsPerLine
                    }
                }
                for _ in 0..<left {
                    step(offset, &whole, &high)
                    offset &+= 16
                }
                let low = unsafeBitCast(whole &- (high &<< 8), to: SIMD4<UInt32>.self)
                let odd = unsafeBitCast(high, to: SIMD4<UInt32>.self)
                let field = SIMD4<UInt32>(repeating: 0xFFFF)
                totals &+= SIMD4(
                    UInt64((low & field).wrappedSum()), UInt64((odd & field).wrappedSum()),
                    UInt64((low &>> 16).wrappedSum()), UInt64((odd &>> 16).wrappedSum()))
                done += steps
            }
            // The bytes past the last whole load, one at a time.
            for g in 0..<group {
                let r = row + g * groupStep
                var i = loads * 16
                while i < rowBytes {
                    if (i >> sampleShift) & strideMask == 0 {
                        totals[i & 3] &+= UInt64(r.load(fromByteOffset: i, as: UInt8.self))
                    }
                    i += 1
                }
            }
        }

        let group = masked ? Self.rowsPerGroup : Self.bandsPerFullRead
        let grouped = rows - rows % group
        if masked {
            var row = first
            for read in Swift.stride(from: 0, to: grouped, by: group) {
                // While reading these rows, fetch the next group's (or the last rows', if fewer).
                add(row, group: group, groupStep: rowStep, prefetchRows: min(group, rows - (read + group)))
                row += group * rowStep
            }
        } else {
            let bandStep = (rows / group) * rowStep
            var row = first
            for _ in 0..<(rows / group) {
                add(row, group: group, groupStep: bandStep)
                row += rowStep
            }
        }
        var row = first + grouped * rowStep
        for _ in grouped..<rows {
            add(row, group: 1, groupStep: 0)
            row += rowStep
        }
        return totals
    }

    /// The scalar path of `sums`, for strides one 16-byte mask cannot serve (not a power of two, or
    /// `stride * bytesPerSample > 16`).
    static func scalarSums(_ plane: FramePlane, _ rect: PixelRect, bytesPerSample: Int, stride: Int) -> SIMD4<UInt64> {
        var totals = SIMD4<UInt64>(repeating: 0)
        let n = count(rect.x1 - rect.x0, stride)
        let step = bytesPerSample &* stride
        for r in 0..<count(rect.y1 - rect.y0, stride) {
            let row = plane.baseAddress + (rect.y0 + r * stride) * plane.bytesPerRow + rect.x0 * bytesPerSample
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
        }
        return totals
    }
}
