import Foundation
import Testing
import SignalProcessing
@testable import PulseDetection

/// The stages' hand-optimised pieces (sorted windows, cached decisions, fused statistics) against
/// plain computations of the same values, over many sizes and seeded random inputs with ties.
@Suite struct PulseKernelReferenceTests {
    @Test func insertionSortEqualsTheGeneralSort() {
        var g = SplitMix64(seed: 3)
        for n in 0...40 {
            for levels in [2.0, 1e9] {
                var x = (0..<n).map { _ in (g.uniform() * levels).rounded(.down) - levels / 2 }
                let expected = x.sorted()
                x.insertionSort()
                #expect(x == expected, "n \(n)")
            }
        }
    }

    /// Windows of every length from the tracker's shortest (8) up, odd and even, in three kinds: a
    /// pulse with noise, the same rounded to a few levels (runs of ties at the median and in the
    /// deviations), and a pulse over a floor that more than half the samples sit on (MAD 0).
    private static func windows(count: Int, seed: UInt64) -> [[Double]] {
        var g = SplitMix64(seed: seed)
        let pulse = (0..<count).map { i in sin(2 * Double.pi * 1.3 * Double(i) / 10) + 0.3 * g.gaussian() }
        let coarse = pulse.map { ($0 * 2).rounded() / 2 }
        let floor = pulse.enumerated().map { i, v in i % 3 == 0 ? v : 0.5 }
        return [pulse, coarse, floor]
    }

    @Test func sortedWindowsGiveTheSameUpdatesAsSelectionAtEveryLength() {
        for count in Array(8...24) + [31, 32, 33, 63, 64, 65, 99, 100] {
            var bySelection = RateTracker(rate: 10, hop: 1)
            var bySorting = RateTracker(rate: 10, hop: 1)
            for step in 0..<3 {
                let w = Self.windows(count: count, seed: UInt64(count * 10 + step))
                let a = bySelection.update(windows: w)
                let b = bySorting.update(windows: w, sorted: w.map { $0.sorted() })
                #expect(a == b, "\(count) samples, update \(step)")
                #expect(bySelection.channelSpreads == bySorting.channelSpreads, "\(count) samples, update \(step)")
                #expect(bySelection.channelScores == bySorting.channelScores, "\(count) samples, update \(step)")
            }
        }
    }

    /// `NoiseLevel` written out plainly: the fourth differences from the samples kept in an array,
    /// the starting median from a sorted copy.
    private struct PlainNoiseLevel {
        let smoothing: Double, settle: Int
        var samples: [Double] = [], first: [Double] = []
        var meanSquare = 0.0, averaged = 0

        init(samples: Double) {
            smoothing = 1 / max(1, samples)
            settle = max(16, Int(samples / 4))
        }

        mutating func add(_ x: Double) {
            samples.append(x)
            let n = samples.count
            guard n >= 5 else { return }
            let s = samples
            let d = s[n - 1] - 4 * s[n - 2] + 6 * s[n - 3] - 4 * s[n - 4] + s[n - 5]
            let square = d * d
            if first.count < 16 {
                first.append(square)
                if first.count == 16 {
                    let sorted = first.sorted()
                    meanSquare = (sorted[7] + sorted[8]) / 2 / 0.455
                    averaged = 16
                }
                return
            }
            if meanSquare == 0 {
                if square > 0 { first = [square] }
                return
            }
            averaged += 1
            let weight = averaged > settle ? smoothing : 1 / Double(averaged)
            meanSquare += weight * (min(square, 16 * meanSquare) - meanSquare)
        }

        var sigma: Double { (meanSquare / 70).squareRoot() }
    }

    @Test(arguments: [1.0, 20, 64, 300])
    func noiseLevelEqualsAPlainComputation(samples: Double) {
        var g = SplitMix64(seed: UInt64(samples))
        var fast = NoiseLevel(samples: samples)
        var plain = PlainNoiseLevel(samples: samples)
        for i in 0..<1500 {
            // A constant start, then a pulse with noise, spikes and a flat stretch.
            var x = i < 30 ? 2.0 : sin(Double(i) / 5) + 0.1 * g.gaussian()
            if i % 97 == 0 { x += 20 }
            if i >= 700 && i < 760 { x = 1 }
            if i == 1000 {
                // A new stretch: the fast one forgets, the plain one starts over.
                fast.reset()
                plain = PlainNoiseLevel(samples: samples)
            }
            fast.add(x)
            plain.add(x)
            #expect(fast.sigma == plain.sigma, "sample \(i)")
        }
    }

    /// A beat tracker that may skip its walk along the best sequence (`openPathStart`, while nothing
    /// can be confirmed) against one that walks it every time (a change of settings drops the cache):
    /// the same confirmed beats, confirmed by the same call, and the same live beats.
    private static func dropCache(_ tracker: inout BeatTracker) {
        let settings = tracker.settings
        tracker.settings = settings
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func skippingTheWalkWhenNothingCanBeConfirmedChangesNoBeat(seed: UInt64) {
        var g = SplitMix64(seed: seed)
        var cached = BeatTracker(), walking = BeatTracker()
        var a: [Beat] = [], b: [Beat] = []
        // Beats emitted so far by the time of each call.
        var aCounts: [Int] = [], bCounts: [Int] = []
        var t = 0.0
        let period = 0.6 + 0.6 * g.uniform()
        while t < 90 {
            // A beat, sometimes missed; a dicrotic wave after it; now and then a noise upstroke.
            t += period * (1 + 0.1 * (g.uniform() - 0.5))
            var times: [(Double, Double)] = []
            if g.uniform() > 0.05 { times.append((t, 0.8 + 0.4 * g.uniform())) }
            if g.uniform() < 0.5 { times.append((t + 0.35 * period, 0.2 + 0.3 * g.uniform())) }
            if g.uniform() < 0.1 { times.append((t + period * g.uniform(), 3 * g.uniform())) }
            times.sort { $0.0 < $1.0 }
            for (time, strength) in times {
                let now = time + 0.05 + 0.1 * g.uniform()
                cached.add(time: time, strength: strength, slope: strength * 2, period: period, now: now) { a.append($0) }
                Self.dropCache(&walking)
                walking.add(time: time, strength: strength, slope: strength * 2, period: period, now: now) { b.append($0) }
                #expect(cached.live(now: now, delay: 0.1) == walking.live(now: now, delay: 0.1))
                aCounts.append(a.count)
                bCounts.append(b.count)
            }
            if g.uniform() < 0.02 {
                // The end of a stretch part-way.
                cached.finish(before: t - 1) { a.append($0) }
                Self.dropCache(&walking)
                walking.finish(before: t - 1) { b.append($0) }
            }
        }
        cached.finish { a.append($0) }
        Self.dropCache(&walking)
        walking.finish { b.append($0) }
        #expect(a.count > 50)
        #expect(a == b)
        #expect(aCounts == bCounts)
    }
    /// `HRV.localReferences` (one forward scan over the reference pool, sorted by insertion) against
    /// a direct search for each interval's neighbours.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func localReferencesEqualADirectSearchForEachIntervalsNeighbours(seed: UInt64) {
        var g = SplitMix64(seed: seed)
        for n in [0, 1, 2, 3, 4, 5, 9, 10, 11, 12, 25, 200] {
            // Intervals with ties, some out of range, some not references.
            let intervals = (0..<n).map { _ in g.uniform() < 0.1 ? 5000 : (800 + 200 * g.uniform()).rounded() }
            let inRange = intervals.map { $0 < 3000 }
            let references = (0..<n).map { i in inRange[i] && g.uniform() > 0.15 }
            for refs in [nil, references] {
                let fast = HRV.localReferences(intervals, inRange: inRange, references: refs)
                let pool = (0..<n).filter { inRange[$0] && (refs?[$0] ?? true) }
                for i in 0..<n {
                    guard inRange[i] else {
                        #expect(fast[i] == nil)
                        continue
                    }
                    let left = pool.filter { $0 < i }, right = pool.filter { $0 > i }
                    let half = HRV.neighbourCount / 2
                    let nl = min(left.count, max(half, HRV.neighbourCount - right.count))
                    let nr = min(right.count, HRV.neighbourCount - nl)
                    let l = left.suffix(nl).map { intervals[$0] }, r = right.prefix(nr).map { intervals[$0] }
                    let steps = zip(l, l.dropFirst()).map { abs($1 - $0) } + zip(r, r.dropFirst()).map { abs($1 - $0) }
                    let window = l + r
                    guard window.count >= HRV.minimumNeighbours else {
                        #expect(fast[i] == nil, "n \(n), interval \(i)")
                        continue
                    }
                    let median = Statistics.percentile(sorted: window.sorted(), 50)
                    let step = steps.isEmpty ? 0 : Statistics.percentile(sorted: steps.sorted(), 50)
                    #expect(fast[i]?.median == median && fast[i]?.step == step, "n \(n), interval \(i)")
                }
            }
        }
    }
    /// The tracker's periodicity and concentration (autocorrelation summed with the energy in one
    /// pass and reused when the tracked period is the peak's; spectrum through the real FFT,
    /// normalised in place) against both written out over the same cleaned window: a pulse small
    /// enough that nothing is clipped, so the window is just `(w - median) / spread` less its mean.
    @Test func periodicityAndConcentrationEqualPlainComputations() {
        let rate = 10.0
        var compared = 0, repeating = 0
        for count in [8, 9, 12, 17, 31, 50, 64, 99, 100] {
            for bpm in [45.0, 72, 130, 200] {
                var g = SplitMix64(seed: UInt64(count) &* 1000 &+ UInt64(bpm))
                let w = (0..<count).map { i in
                    sin(2 * Double.pi * bpm / 60 * Double(i) / rate + 0.4) + 0.05 * g.gaussian()
                }
                var tracker = RateTracker(rate: rate, hop: 1)
                guard let u = tracker.update(windows: [w]) else {
                    Issue.record("no update for \(count) samples at \(bpm) bpm")
                    continue
                }
                let sorted = w.sorted()
                let middle = { (s: [Double]) in s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2 }
                let median = middle(sorted)
                let spread = 1.4826 * middle(w.map { abs($0 - median) }.sorted())
                let z = w.map { ($0 - median) / spread }
                guard z.allSatisfy({ abs($0) <= 3 }) else { continue }
                let mean = z.reduce(0, +) / Double(count)
                let x = z.map { $0 - mean }
                // Periodicity at the tracked period: x against itself a lag later, the delayed copy by
                // Catmull-Rom interpolation, scaled up for the overlap, capped at 1.
                let lag = 60 / u.bpm * rate
                let l0 = Int(lag.rounded(.down))
                var periodicity = 0.0
                if l0 >= 1, l0 + 2 < count {
                    let f = lag - Double(l0)
                    func cr(_ j: Int) -> Double {
                        let (p0, p1, p2, p3) = (x[j - 1], x[j], x[j + 1], x[j + 2])
                        return p1 + 0.5 * f * (p2 - p0 + f * (2 * p0 - 5 * p1 + 4 * p2 - p3 + f * (3 * (p1 - p2) + p3 - p0)))
                    }
                    let overlap = count - l0 - 2
                    let s = (0..<overlap).reduce(0.0) { $0 + x[$1] * cr($1 + l0) }
                    let energy = x.reduce(0) { $0 + $1 * $1 }
                    periodicity = energy > 0 ? min(1, s / energy * Double(count) / Double(overlap)) : 0
                }
                #expect(abs(u.periodicity - periodicity) <= 1e-9, "\(count) samples at \(bpm) bpm")
                compared += 1
                if periodicity > 0.5 { repeating += 1 }
                // Concentration: the Hann-windowed, zero-padded power within 0.12 Hz of the tracked
                // rate and its double, over the rest of the 0.5-5 Hz power.
                var m = 16
                while Double(m) < max(rate * 60 / 2.5, 10 * rate) { m *= 2 }
                let binHz = rate / Double(m)
                let h = (0..<count).map { x[$0] * (0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(count - 1))) }
                let power = (0...(m / 2)).map { k -> Double in
                    var re = 0.0, im = 0.0
                    for j in 0..<count {
                        let a = -2 * Double.pi * Double(j * k % m) / Double(m)
                        re += h[j] * cos(a)
                        im += h[j] * sin(a)
                    }
                    return re * re + im * im
                }
                let lo = max(1, Int((0.5 / binHz).rounded(.down))), hi = min(m / 2, Int((5 / binHz).rounded(.up)))
                let total = power[lo...hi].reduce(0, +)
                var at = 0.0
                for harmonic in [1.0, 2.0] {
                    let fh = harmonic * u.bpm / 60
                    let a = max(lo, Int(((fh - 0.12) / binHz).rounded(.up))), b = min(hi, Int(((fh + 0.12) / binHz).rounded(.down)))
                    if a <= b { at += power[a...b].reduce(0, +) / total }
                }
                let concentration = at / max(1e-12, 1 - at)
                #expect(abs(u.concentration - concentration) <= 1e-9 * max(1, concentration), "\(count) samples at \(bpm) bpm")
            }
        }
        #expect(compared >= 24 && repeating >= 16, "\(compared) windows compared, \(repeating) repeating")
    }
}
