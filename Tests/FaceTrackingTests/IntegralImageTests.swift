import Testing
@testable import FaceTracking

@Suite struct IntegralImageTests {
    @Test(arguments: [(1, 1), (7, 5), (33, 17)])
    func rectangleSumsEqualBruteForceSums(size: (Int, Int)) {
        let (w, h) = size
        let image = Fixtures.noise(width: w, height: h, seed: UInt64(w * 100 + h))
        let integral = IntegralImage(image)
        for y in 0..<h {
            for x in 0..<w {
                for (rw, rh) in [(1, 1), (w - x, h - y), ((w - x + 1) / 2, (h - y + 1) / 2)] {
                    var sum: UInt32 = 0, squares: UInt32 = 0
                    for r in y..<(y + rh) {
                        for c in x..<(x + rw) {
                            let v = UInt32(image[c, r])
                            sum += v
                            squares += v * v
                        }
                    }
                    #expect(integral.sum(x: x, y: y, width: rw, height: rh) == sum)
                    #expect(integral.squaredSum(x: x, y: y, width: rw, height: rh) == squares)
                }
            }
        }
    }

    @Test func firstRowAndColumnAreZero() {
        let integral = IntegralImage(Fixtures.noise(width: 5, height: 4, seed: 1))
        #expect(integral.sums[0..<6].allSatisfy { $0 == 0 })
        #expect(stride(from: 0, to: 30, by: 6).allSatisfy { integral.sums[$0] == 0 })
    }

    @Test func recomputingForASmallerImageGivesItsTables() {
        var integral = IntegralImage(Fixtures.noise(width: 20, height: 20, seed: 2))
        let small = Fixtures.noise(width: 6, height: 3, seed: 3)
        integral.compute(small, squares: false)
        #expect(integral.sums == IntegralImage(small).sums)
        #expect(integral.squaredSums.isEmpty)
    }

    @Test func lbpCodeMatchesDirectBlockComparison() {
        let image = Fixtures.noise(width: 23, height: 19, seed: 4)
        let integral = IntegralImage(image, squares: false)
        for (x, y, bw, bh) in [(0, 0, 1, 1), (3, 2, 2, 3), (5, 4, 6, 5), (2, 1, 7, 6)] {
            func block(_ i: Int, _ j: Int) -> Int {
                var s = 0
                for r in (y + i * bh)..<(y + (i + 1) * bh) { for c in (x + j * bw)..<(x + (j + 1) * bw) { s += Int(image[c, r]) } }
                return s
            }
            // Clockwise from the top-left block, bit 7 first.
            let ring = [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0)]
            var expected = 0
            for (bit, (i, j)) in ring.enumerated() where block(i, j) >= block(1, 1) { expected |= 128 >> bit }
            let code = integral.sums.withUnsafeBufferPointer {
                lbpCode(sums: $0.baseAddress!, stride: 24, x: x, y: y, blockWidth: bw, blockHeight: bh)
            }
            #expect(code == expected, "block grid at (\(x), \(y)), \(bw)x\(bh)")
        }
    }
}
