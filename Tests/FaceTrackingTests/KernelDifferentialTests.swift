import SignalProcessing
import Testing
@testable import FaceTracking

/// The detector's optimised image kernels (bilinear resize with cached row buffers and reused
/// storage, summed-area tables recomputed in place) against plain per-pixel computations, over many
/// sizes (1, odd, up and down, the same) and a sequence of calls that reuses every buffer.
@Suite struct ImageKernelDifferentialTests {
    /// Bilinear resize one destination pixel at a time from the same taps (fixed point, as OpenCV's
    /// INTER_LINEAR_EXACT): horizontal pass to 8 fractional bits, vertical pass, rounded.
    private func directResize(_ src: GrayImage, width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = []
        for y in 0..<height {
            let (r0, r1, wy0, wy1) = ResizeBuffers.taps(y, source: src.height, destination: height)
            for x in 0..<width {
                let (c0, c1, wx0, wx1) = ResizeBuffers.taps(x, source: src.width, destination: width)
                let h0 = Int(wx0) * Int(src[c0, r0]) + Int(wx1) * Int(src[c1, r0])
                let h1 = Int(wx0) * Int(src[c0, r1]) + Int(wx1) * Int(src[c1, r1])
                out.append(UInt8((Int(wy0) * h0 + Int(wy1) * h1 + 0x8000) >> 16))
            }
        }
        return out
    }

    @Test("resizing equals the per-pixel computation at every size, into one reused image and buffers")
    func resizeEqualsDirectWithReusedBuffers() throws {
        var rng = SplitMix64(seed: 7)
        var target = GrayImage()
        var buffers = ResizeBuffers()
        for source in [(1, 1), (1, 9), (9, 1), (2, 2), (7, 5), (16, 10), (33, 17), (64, 48)] {
            let src = Fixtures.noise(width: source.0, height: source.1, seed: UInt64(source.0 * 1000 + source.1))
            var sizes = [(1, 1), (source.0, source.1), (source.0, 1), (1, source.1), (2 * source.0 + 1, source.1),
                         (source.0, 2 * source.1 + 3)]
            for _ in 0..<12 { sizes.append((Int.random(in: 1...80, using: &rng), Int.random(in: 1...60, using: &rng))) }
            // Shrinking by a pyramid's factors, as the detector does.
            var scale: Float = 1.1
            while Float(source.0) / scale >= 1 && Float(source.1) / scale >= 1 && scale < 8 {
                sizes.append((Int((Float(source.0) / scale).rounded()), Int((Float(source.1) / scale).rounded())))
                scale *= 1.1
            }
            for (w, h) in sizes where w > 0 && h > 0 {
                let want = directResize(src, width: w, height: h)
                target.resize(from: src, width: w, height: h, buffers: &buffers)
                #expect(target.width == w && target.height == h)
                #expect(target.pixels == want, "\(source) -> \(w)x\(h), reused buffers")
                #expect(src.resized(width: w, height: h).pixels == want, "\(source) -> \(w)x\(h), fresh")
            }
        }
    }

    @Test("summed-area tables recomputed in place, growing and shrinking, equal fresh ones and direct sums")
    func integralImageRecomputedInPlace() {
        var integral = IntegralImage()
        for (k, (w, h)) in [(5, 4), (1, 1), (20, 3), (3, 20), (31, 17), (2, 2), (40, 33), (1, 7)].enumerated() {
            let image = Fixtures.noise(width: w, height: h, seed: UInt64(k + 11))
            let squares = k % 2 == 0
            integral.compute(image, squares: squares)
            let fresh = IntegralImage(image, squares: squares)
            #expect(integral.sums == fresh.sums && integral.squaredSums == fresh.squaredSums)
            #expect(integral.squaredSums.count == (squares ? (w + 1) * (h + 1) : 0))
            for y in 0...h {
                for x in 0...w {
                    var sum: UInt32 = 0, sq: UInt32 = 0
                    for r in 0..<y { for c in 0..<x { let v = UInt32(image[c, r]); sum &+= v; sq &+= v * v } }
                    #expect(integral.sums[y * (w + 1) + x] == sum, "\(w)x\(h) at \(x),\(y)")
                    if squares { #expect(integral.squaredSums[y * (w + 1) + x] == sq) }
                }
            }
        }
    }
}
