import SignalProcessing
import Testing

@testable import PulseDetection


/// Pixel memory for one test frame: planes with padded rows, padding filled with 0xFF so a kernel
/// that reads past a row's payload is caught.
struct TestImage {
    var width: Int, height: Int
    var planes: [[UInt8]]
    var bytesPerRow: [Int]

    /// Random BGRA pixels, `padding` extra bytes per row.
    static func bgra(width: Int, height: Int, padding: Int, seed: UInt64) -> TestImage {
        var rng = SplitMix64(seed: seed)
        let bpr = 4 * width + padding
        var p = [UInt8](repeating: 0xFF, count: bpr * height)
        for y in 0..<height { for x in 0..<(4 * width) { p[y * bpr + x] = UInt8.random(in: 0...255, using: &rng) } }
        return TestImage(width: width, height: height, planes: [p], bytesPerRow: [bpr])
    }

    /// Random 4:2:0 planes: luma, then CbCr interleaved (`biPlanar`) or Cb and Cr.
    static func yuv420(width: Int, height: Int, padding: Int, biPlanar: Bool, seed: UInt64) -> TestImage {
        var rng = SplitMix64(seed: seed)
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        func plane(_ w: Int, _ h: Int) -> ([UInt8], Int) {
            let bpr = w + padding
            var p = [UInt8](repeating: 0xFF, count: bpr * h)
            for y in 0..<h { for x in 0..<w { p[y * bpr + x] = UInt8.random(in: 0...255, using: &rng) } }
            return (p, bpr)
        }
        let (luma, lbpr) = plane(width, height)
        if biPlanar {
            let (c, cbpr) = plane(2 * cw, ch)
            return TestImage(width: width, height: height, planes: [luma, c], bytesPerRow: [lbpr, cbpr])
        }
        let (cb, bbpr) = plane(cw, ch)
        let (cr, rbpr) = plane(cw, ch)
        return TestImage(width: width, height: height, planes: [luma, cb, cr], bytesPerRow: [lbpr, bbpr, rbpr])
    }

    subscript(plane: Int, x: Int, y: Int) -> Double { Double(planes[plane][y * bytesPerRow[plane] + x]) }

    /// Calls `body` with a frame viewing this memory.
    func withFrame<R>(_ format: PixelFormat, time: Double = 0, _ body: (Frame) throws -> R) throws -> R {
        try planes[0].withUnsafeBytes { p0 in
            try planes[planes.count > 1 ? 1 : 0].withUnsafeBytes { p1 in
                try planes[planes.count > 2 ? 2 : 0].withUnsafeBytes { p2 in
                    let plane0 = FramePlane(baseAddress: p0.baseAddress!, bytesPerRow: bytesPerRow[0])
                    let frame: Frame
                    switch format {
                    case .bgra:
                        frame = try Frame(
                            bgra: p0.baseAddress!, width: width, height: height,
                            bytesPerRow: bytesPerRow[0], time: time)
                    case let .yuv420BiPlanar(encoding):
                        frame = try Frame(
                            yuv420BiPlanar: plane0,
                            chroma: FramePlane(baseAddress: p1.baseAddress!, bytesPerRow: bytesPerRow[1]),
                            encoding: encoding, width: width, height: height, time: time)
                    case let .yuv420Planar(encoding):
                        frame = try Frame(
                            yuv420Planar: plane0,
                            cb: FramePlane(baseAddress: p1.baseAddress!, bytesPerRow: bytesPerRow[1]),
                            cr: FramePlane(baseAddress: p2.baseAddress!, bytesPerRow: bytesPerRow[2]),
                            encoding: encoding, width: width, height: height, time: time)
                    }
                    return try body(frame)
                }
            }
        }
    }
}

/// Float64 reference: mean B, G, R over every `stride`-th row and column of `[x0,x1) x [y0,y1)`.
func referenceBGRA(_ img: TestImage, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, stride: Int) -> (Double, Double, Double) {
    var b = 0.0, g = 0.0, r = 0.0, n = 0.0
    for y in Swift.stride(from: y0, to: y1, by: stride) {
        for x in Swift.stride(from: x0, to: x1, by: stride) {
            b += img[0, 4 * x, y]; g += img[0, 4 * x + 1, y]; r += img[0, 4 * x + 2, y]; n += 1
        }
    }
    return (r / n, g / n, b / n)
}

/// Float64 reference for 4:2:0 by converting each sampled pixel with its own chroma sample, using
/// the published BT.601 / BT.709 coefficients written out independently of `YCbCrEncoding`.
func referencePerPixelRGB(
    _ img: TestImage, biPlanar: Bool, encoding: YCbCrEncoding,
    _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, stride: Int
) -> (Double, Double, Double) {
    var r = 0.0, g = 0.0, b = 0.0, n = 0.0
    for y in Swift.stride(from: y0, to: y1, by: stride) {
        for x in Swift.stride(from: x0, to: x1, by: stride) {
            let yy = img[0, x, y]
            let cb = biPlanar ? img[1, 2 * (x / 2), y / 2] : img[1, x / 2, y / 2]
            let cr = biPlanar ? img[1, 2 * (x / 2) + 1, y / 2] : img[2, x / 2, y / 2]
            var (ys, pb, pr) = (yy, cb - 128, cr - 128)
            if encoding.range == .video {
                ys = (yy - 16) * 255 / 219
                pb *= 255 / 224
                pr *= 255 / 224
            }
            switch encoding.matrix {
            case .bt601:
                r += ys + 1.402 * pr
                g += ys - 0.344136286 * pb - 0.714136286 * pr
                b += ys + 1.772 * pb
            case .bt709:
                r += ys + 1.5748 * pr
                g += ys - 0.187324273 * pb - 0.468124273 * pr
                b += ys + 1.8556 * pb
            case .bt2020:
                r += ys + 1.4746 * pr
                g += ys - 0.164553127 * pb - 0.571353127 * pr
                b += ys + 1.8814 * pb
            }
            n += 1
        }
    }
    return (r / n, g / n, b / n)
}

func expectClose(_ c: ColorSample, _ ref: (Double, Double, Double), tolerance: Double, _ context: String) {
    #expect(abs(c.red - ref.0) <= tolerance, "red \(c.red) vs \(ref.0): \(context)")
    #expect(abs(c.green - ref.1) <= tolerance, "green \(c.green) vs \(ref.1): \(context)")
    #expect(abs(c.blue - ref.2) <= tolerance, "blue \(c.blue) vs \(ref.2): \(context)")
}

struct FrameSamplerTests {
    /// Sizes chosen to hit the 16-byte load loop, its tail, odd sizes, fewer and more rows than
    /// the eight read side by side, and rows longer than one widening (1100 BGRA pixels = 4400 bytes;
    /// 4200 luma bytes).
    static let sizes: [(Int, Int)] = [(1, 1), (3, 5), (17, 9), (33, 31), (64, 48), (1100, 7), (1100, 33), (4200, 3)]

    /// Int.max: a stride past every frame reads each region's first pixel (no overflow).
    @Test(arguments: [1, 2, 3, 4, 7, Int.max])
    func bgraMeanMatchesFloat64ReferenceForEveryStrideSizeAndPadding(stride: Int) throws {
        for (i, (w, h)) in Self.sizes.enumerated() {
            for padding in [0, 3, 64] {
                let img = TestImage.bgra(width: w, height: h, padding: padding, seed: UInt64(i * 100 + padding))
                let sampler = try FrameSampler(stride: stride)
                let c = try img.withFrame(.bgra, time: 1.5) { try sampler.sample($0) }
                #expect(c.time == 1.5)
                expectClose(c, referenceBGRA(img, 0, 0, w, h, stride: stride), tolerance: 1e-9, "\(w)x\(h) pad \(padding)")
            }
        }
    }

    @Test(arguments: [1, 2, 4])
    func largeFlatFramesOfTheHighestValuesAreExact(stride: Int) throws {
        // 1920x1080 of one colour near 255: any overflow in the 16-bit lanes would show.
        let w = 1920, h = 1080
        var p = [UInt8](repeating: 0, count: 4 * w * h)
        for i in 0..<(w * h) { p[4 * i] = 255; p[4 * i + 1] = 254; p[4 * i + 2] = 253; p[4 * i + 3] = 255 }
        let sampler = try FrameSampler(stride: stride)
        let c = try p.withUnsafeBytes { buf in
            try sampler.sample(try Frame(bgra: buf.baseAddress!, width: w, height: h, bytesPerRow: 4 * w, time: 0))
        }
        #expect(c.blue == 255 && c.green == 254 && c.red == 253)
        // The same bytes as a 4:2:0 frame: luma all 255, Cb 255 and Cr 254 (alternating bytes).
        let m = try p.withUnsafeBytes { buf in
            let base = buf.baseAddress!
            var chroma = [UInt8](repeating: 0, count: w * h / 2)
            for i in 0..<(w * h / 4) { chroma[2 * i] = 255; chroma[2 * i + 1] = 254 }
            return try chroma.withUnsafeBytes { cbuf in
                let frame = try Frame(
                    yuv420BiPlanar: FramePlane(baseAddress: base, bytesPerRow: w),
                    chroma: FramePlane(baseAddress: cbuf.baseAddress!, bytesPerRow: w),
                    encoding: .fullRange601, width: w, height: h, time: 0)
                return try sampler.yCbCrMeans(frame)
            }
        }
        // The luma bytes run 255, 254, 253, 255: stride 2 reads 255 and 253, stride 4 only 255.
        let luma = [1: (255.0 + 254 + 253 + 255) / 4, 2: (255.0 + 253) / 2, 4: 255][stride]
        #expect(m.y == luma && m.cb == 255 && m.cr == 254)
    }

    @Test func bgraRegionsInPixelsAndFractionsAreClippedToTheFrame() throws {
        let img = TestImage.bgra(width: 50, height: 40, padding: 8, seed: 7)
        let cases: [(FrameRegion, (Int, Int, Int, Int))] = [
            (.pixels(x: 5, y: 3, width: 20, height: 11), (5, 3, 25, 14)),
            (.pixels(x: -10, y: 30, width: 25, height: 100), (0, 30, 15, 40)),
            (.fraction(x: 0.25, y: 0.25, width: 0.5, height: 0.5), (13, 10, 38, 30)),
            (.centered(fraction: 1), (0, 0, 50, 40)),
        ]
        for stride in [1, 4] {
            for (region, r) in cases {
                let c = try img.withFrame(.bgra) { try FrameSampler(region: region, stride: stride).sample($0) }
                expectClose(c, referenceBGRA(img, r.0, r.1, r.2, r.3, stride: stride), tolerance: 1e-9, "\(region)")
            }
        }
    }

    static let encodings: [YCbCrEncoding] = [
        .videoRange601, .fullRange601, YCbCrEncoding(range: .video, matrix: .bt709),
        YCbCrEncoding(range: .full, matrix: .bt709), YCbCrEncoding(range: .video, matrix: .bt2020),
    ]

    @Test(arguments: [true, false])
    func yuv420FullMeanMatchesPerPixelConversionForEvenAlignedRegions(biPlanar: Bool) throws {
        let stride = 1
        for (i, (w, h)) in [(2, 2), (18, 10), (64, 48), (200, 6), (2100, 36), (4200, 4)].enumerated() {
            let img = TestImage.yuv420(width: w, height: h, padding: 5, biPlanar: biPlanar, seed: UInt64(i))
            for encoding in Self.encodings {
                let format: PixelFormat = biPlanar ? .yuv420BiPlanar(encoding) : .yuv420Planar(encoding)
                let c = try img.withFrame(format) { try FrameSampler(stride: stride).sample($0) }
                let ref = referencePerPixelRGB(img, biPlanar: biPlanar, encoding: encoding, 0, 0, w, h, stride: stride)
                expectClose(c, ref, tolerance: 1e-6, "\(w)x\(h) \(encoding)")
            }
            // An even-aligned region inside the frame.
            if w >= 18 && h >= 10 {
                let encoding = YCbCrEncoding.videoRange601
                let format: PixelFormat = biPlanar ? .yuv420BiPlanar(encoding) : .yuv420Planar(encoding)
                let region = FrameRegion.pixels(x: 4, y: 2, width: 12, height: 6)
                let c = try img.withFrame(format) { try FrameSampler(region: region, stride: stride).sample($0) }
                let ref = referencePerPixelRGB(img, biPlanar: biPlanar, encoding: encoding, 4, 2, 16, 8, stride: stride)
                expectClose(c, ref, tolerance: 1e-6, "region in \(w)x\(h)")
            }
        }
    }

    @Test(arguments: [true, false], [1, 2, 3, 4, 5, 8, Int.max])
    func yuv420PlaneMeansMatchFloat64ReferenceForOddSizesRegionsAndStrides(biPlanar: Bool, stride: Int) throws {
        // Odd frame sizes and odd region edges: the region widens to the chroma grid.
        for (i, (w, h)) in [(1, 1), (3, 5), (17, 9), (33, 31), (1101, 3), (2101, 37), (4201, 17)].enumerated() {
            let img = TestImage.yuv420(width: w, height: h, padding: 3, biPlanar: biPlanar, seed: UInt64(50 + i))
            for region in [FrameRegion.full, .pixels(x: 1, y: 1, width: 6, height: 3)] {
                guard let rect = try? region.resolve(width: w, height: h) else { continue }
                let x0 = rect.x0 & ~1, y0 = rect.y0 & ~1
                let x1 = min(w, (rect.x1 + 1) & ~1), y1 = min(h, (rect.y1 + 1) & ~1)
                var ySum = 0.0, yN = 0.0
                for y in Swift.stride(from: y0, to: y1, by: stride) {
                    for x in Swift.stride(from: x0, to: x1, by: stride) { ySum += img[0, x, y]; yN += 1 }
                }
                let cs = stride  // each plane is read at the same stride in its own grid
                var cb = 0.0, cr = 0.0, cN = 0.0
                for y in Swift.stride(from: y0 / 2, to: (y1 + 1) / 2, by: cs) {
                    for x in Swift.stride(from: x0 / 2, to: (x1 + 1) / 2, by: cs) {
                        cb += biPlanar ? img[1, 2 * x, y] : img[1, x, y]
                        cr += biPlanar ? img[1, 2 * x + 1, y] : img[2, x, y]
                        cN += 1
                    }
                }
                let format: PixelFormat =
                    biPlanar ? .yuv420BiPlanar(.fullRange601) : .yuv420Planar(.fullRange601)
                let m = try img.withFrame(format) { try FrameSampler(region: region, stride: stride).yCbCrMeans($0) }
                #expect(abs(m.y - ySum / yN) <= 1e-9, "luma \(w)x\(h) \(region)")
                #expect(abs(m.cb - cb / cN) <= 1e-9, "Cb \(w)x\(h) \(region)")
                #expect(abs(m.cr - cr / cN) <= 1e-9, "Cr \(w)x\(h) \(region)")
            }
        }
    }

    @Test func greyAndPrimaryColoursConvertAsPublished() {
        // Video-range white (235,128,128) is RGB 255; full-range pure red per BT.601 is Y 76.245.
        let white = YCbCrEncoding.videoRange601.rgb(y: 235, cb: 128, cr: 128)
        #expect(abs(white.red - 255) < 1e-9 && abs(white.green - 255) < 1e-9 && abs(white.blue - 255) < 1e-9)
        let y = 0.299 * 255, cb = 128 - 0.168736 * 255, cr = 128 + 0.5 * 255
        let red = YCbCrEncoding.fullRange601.rgb(y: y, cb: cb, cr: cr)
        #expect(abs(red.red - 255) < 1e-3 && abs(red.green) < 1e-3 && abs(red.blue) < 1e-3)
        // BT.2020 (ITU-R BT.2020-2, non-constant luminance): Y' = 0.2627 R' + 0.6780 G' + 0.0593 B',
        // Cb = (B' - Y') / 1.8814, Cr = (R' - Y') / 1.4746. Full-range pure green:
        let g = 0.6780 * 255
        let green = YCbCrEncoding(range: .full, matrix: .bt2020).rgb(y: g, cb: 128 - g / 1.8814, cr: 128 - g / 1.4746)
        #expect(abs(green.red) < 1e-9 && abs(green.green - 255) < 1e-9 && abs(green.blue) < 1e-9)
    }

    /// A row or a plane longer than an `Int` counts is `.invalidSize`: a BGRA row of Int.max / 2
    /// pixels and a 4:2:0 frame Int.max wide trapped multiplying, and a frame of Int.max rows was
    /// made (its row addresses overflow when read).
    @Test func geometryBeyondMemoryThrowsInvalidSize() throws {
        let bytes = [UInt8](repeating: 0, count: 64)
        try bytes.withUnsafeBytes { buf in
            let base = buf.baseAddress!
            func isInvalidSize(_ e: any Error) -> Bool { (e as? FrameError)?.code == .invalidSize }
            #expect(performing: { try Frame(bgra: base, width: Int.max / 2, height: 1, bytesPerRow: Int.max, time: 0) }, throws: isInvalidSize)
            #expect(performing: { try Frame(bgra: base, width: 4, height: Int.max, bytesPerRow: 16, time: 0) }, throws: isInvalidSize)
            #expect(performing: { try Frame(bgra: base, width: 4, height: 1 << 60, bytesPerRow: 16, time: 0) }, throws: isInvalidSize)
            let wide = FramePlane(baseAddress: base, bytesPerRow: Int.max)
            #expect(performing: { try Frame(yuv420BiPlanar: wide, chroma: wide, encoding: .fullRange601, width: Int.max, height: 2, time: 0) }, throws: isInvalidSize)
            #expect(performing: { try Frame(yuv420Planar: wide, cb: wide, cr: wide, encoding: .fullRange601, width: Int.max, height: 2, time: 0) }, throws: isInvalidSize)
            let plane = FramePlane(baseAddress: base, bytesPerRow: 8)
            #expect(performing: { try Frame(yuv420Planar: plane, cb: plane, cr: plane, encoding: .fullRange601, width: 8, height: Int.max, time: 0) }, throws: isInvalidSize)
            // The largest frame that fits still does: a single row of Int.max / 4 pixels.
            _ = try Frame(bgra: base, width: Int.max / 4, height: 1, bytesPerRow: Int.max, time: 0)
        }
    }

    @Test func invalidGeometryAndRequestsThrowCodedErrors() throws {
        let bytes = [UInt8](repeating: 0, count: 64)
        try bytes.withUnsafeBytes { buf in
            let base = buf.baseAddress!
            #expect(throws: FrameError(.invalidSize, "frame size 0x4 is not positive")) {
                try Frame(bgra: base, width: 0, height: 4, bytesPerRow: 16, time: 0)
            }
            #expect { try Frame(bgra: base, width: 4, height: 4, bytesPerRow: 15, time: 0) } throws: {
                ($0 as? FrameError)?.code == .invalidBytesPerRow
            }
            let plane = FramePlane(baseAddress: base, bytesPerRow: 3)
            #expect { try Frame(yuv420BiPlanar: plane, chroma: plane, encoding: .fullRange601, width: 3, height: 1, time: 0) } throws: {
                ($0 as? FrameError)?.code == .invalidBytesPerRow  // chroma row needs 4 bytes
            }
            let frame = try Frame(bgra: base, width: 4, height: 4, bytesPerRow: 16, time: 0)
            #expect { try FrameSampler(region: .pixels(x: 4, y: 0, width: 2, height: 2)).sample(frame) } throws: {
                ($0 as? FrameError)?.code == .invalidRegion
            }
            #expect { try FrameSampler(region: .fraction(x: .nan, y: 0, width: 0, height: 1)).sample(frame) } throws: {
                ($0 as? FrameError)?.code == .invalidRegion
            }
        }
        #expect { try FrameSampler(stride: 0) } throws: { ($0 as? FrameError)?.code == .invalidStride }
    }
}
