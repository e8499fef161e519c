import Testing
@testable import SignalProcessing

@Suite struct StatisticsTests {
    @Test func percentileInterpolatesLikeNumpy() {
        let x: [Double] = [7, 1, 3, 5]
        #expect(Statistics.percentile(x, 50) == 4)
        #expect(Statistics.percentile(x, 25) == 2.5)
        #expect(Statistics.percentile(x, 0) == 1)
        #expect(Statistics.percentile(x, 100) == 7)
    }

    @Test func medianAbsoluteDeviationIgnoresOneOutlier() {
        let x: [Double] = [1, 2, 3, 4, 1000]
        #expect(Statistics.median(x) == 3)
        #expect(Statistics.medianAbsoluteDeviation(x) == 1)
    }

    @Test func emptyInputGivesNaN() {
        #expect(Statistics.mean([Double]()).isNaN)
        #expect(Statistics.median([Double]()).isNaN)
        #expect(Statistics.standardDeviation([1.0]).isNaN)
    }

    /// A percentile at NaN is NaN (it trapped converting the rank to Int); outside 0...100 it is
    /// clamped.
    @Test func aPercentileAtNaNIsNaN() {
        #expect(Statistics.percentile([3, 1, 2], .nan).isNaN)
        #expect(Statistics.percentile(sorted: [1, 2, 3], .nan).isNaN)
        var values: [Double] = [3, 1, 2]
        #expect(values.withUnsafeMutableBufferPointer { Statistics.selectPercentile($0, .nan) }.isNaN)
        #expect(Statistics.percentile([3, 1, 2], .infinity) == 3 && Statistics.percentile([3, 1, 2], -.infinity) == 1)
    }
}

@Suite struct SelectMedianTests {
    @Test(arguments: [1, 2, 3, 4, 5, 10, 11, 100, 101])
    func selectionMedianMatchesTheSortedMedian(count: Int) {
        var state: UInt64 = 42
        var values: [Double] = (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 40) / 1000
        }
        values += values.prefix(count / 3)  // ties
        let expected = Statistics.median(values)
        let got = values.withUnsafeMutableBufferPointer { Statistics.selectMedian($0) }
        #expect(got == expected)
    }
}

@Suite struct SelectPercentileTests {
    @Test(arguments: [1, 2, 3, 4, 5, 10, 11, 100, 101, 1000])
    func selectionPercentileEqualsTheSortedPercentileBitForBit(count: Int) {
        var random = SplitMix64(seed: UInt64(count))
        var values: [Double] = (0..<count).map { _ in random.gaussian() * 100 }
        values += values.prefix(count / 3)  // ties
        for p in [0, 10, 25, 50, 73.3, 90, 100.0] {
            var scratch = values
            let got = scratch.withUnsafeMutableBufferPointer { Statistics.selectPercentile($0, p) }
            #expect(got.bitPattern == Statistics.percentile(values, p).bitPattern, "p = \(p)")
        }
    }
}
