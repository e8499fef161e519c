import Foundation
import Testing
import SignalProcessing
@testable import PulseDetection

@Suite struct RateTrackerTests {
    /// Windows of a noisy pulse with outliers and repeated values (ties in the median and MAD), of
    /// even and odd lengths.
    private static func windows(count: Int, seed: UInt64) -> [[Double]] {
        var rng = SplitMix64(seed: seed)
        return (0..<3).map { channel in
            (0..<count).map { i in
                let t = Double(i) / 10
                var v = sin(2 * Double.pi * (1.1 + 0.2 * Double(channel)) * t) + 0.3 * (rng.uniform() - 0.5)
                if i % 17 == 3 { v += 6 * (rng.uniform() - 0.5) }  // spikes the clipping must catch
                if i % 11 == 5 { v = 0.25 }  // ties
                return v
            }
        }
    }

    @Test(arguments: [(100, 1 as UInt64), (99, 2), (64, 3), (37, 4)])
    func sortedWindowsGiveExactlyTheSameUpdatesAsSelection(count: Int, seed: UInt64) {
        var bySelection = RateTracker(rate: 10, hop: 1)
        var bySorting = RateTracker(rate: 10, hop: 1)
        for step in 0..<6 {
            let w = Self.windows(count: count, seed: seed &+ UInt64(step))
            let a = bySelection.update(windows: w)
            let b = bySorting.update(windows: w, sorted: w.map { $0.sorted() })
            #expect(a != nil)
            #expect(a == b, "update \(step)")
        }
    }
}
