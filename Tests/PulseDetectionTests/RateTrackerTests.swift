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

@Suite struct RateTrackerHarmonicTests {
    /// Three channels of a 10-Hz window (`seconds` long, ending at `end`) of a pulse that beats at
    /// 50 bpm until `change` and at 100 bpm after it, with a little noise.
    private static func windows(end: Double, change: Double, seconds: Double = 10, seed: UInt64) -> [[Double]] {
        var rng = SplitMix64(seed: seed)
        let n = Int(seconds * 10)
        return (0..<3).map { _ in
            (0..<n).map { i in
                let t = end - seconds + Double(i + 1) / 10
                let hz = t < change ? 50.0 / 60 : 100.0 / 60
                return sin(2 * Double.pi * hz * t) + 0.1 * (rng.uniform() - 0.5)
            }
        }
    }

    @Test func aTrackLeftAtHalfTheRateEveryChannelShowsIsDeclinedUntilItCatchesUp() {
        var tracker = RateTracker(rate: 10, hop: 1)
        var declinedAtHalf = 0
        var last: RateTracker.Update?
        for step in 0..<40 {
            let end = 10 + Double(step)
            guard let u = tracker.update(windows: Self.windows(end: end, change: 20, seed: UInt64(step))) else {
                Issue.record("no update at \(end) s")
                return
            }
            if end <= 20 { #expect(abs(u.bpm - 50) < 3 && !u.atHarmonic && u.confidence > 0.5, "\(end) s: \(u)") }
            if u.atHarmonic {
                // The track is still near 50 bpm while every channel's spectrum peaks near 100.
                #expect(u.confidence == 0)
                #expect(abs(u.bpm * 2 - 100) <= 10, "\(end) s: \(u.bpm)")
                declinedAtHalf += 1
            }
            last = u
        }
        // The jump from 50 to 100 bpm leaves the track behind for some hops; then it follows.
        #expect(declinedAtHalf > 0)
        #expect(abs((last?.bpm ?? 0) - 100) < 3 && last?.atHarmonic == false)
    }

    @Test func aChannelLeftOutIsNotUsed() {
        var tracker = RateTracker(rate: 10, hop: 1)
        var w = Self.windows(end: 10, change: 100, seed: 1)  // 50 bpm in every channel
        w[2] = Self.windows(end: 10, change: 0, seed: 2)[2]  // 100 bpm in the last one, and clean
        for i in w[2].indices { w[2][i] *= 3 }
        let u = tracker.update(windows: w, usable: [true, true, false])
        #expect(u.map { abs($0.bpm - 50) < 3 && $0.channel != 2 } == true)
        #expect(tracker.channelScores[2] == 0)
    }
}
