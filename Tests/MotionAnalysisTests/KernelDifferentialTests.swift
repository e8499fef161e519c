import Foundation
import SignalProcessing
import Testing
@testable import MotionAnalysis
import TestSupport

/// The hand-optimised kernels (SIMD, unrolled blocks with remainders, two lags at a time, running
/// sums, mirrored buffers) against plain computations of the same thing, over many sizes (0, 1, odd,
/// just below and above the unroll widths) and seeded random inputs.
@Suite struct KernelDifferentialTests {
    /// `Σ w[i]·w[i+lag]` one product at a time.
    private func directLagSum(_ w: [Double], _ lag: Int) -> (sum: Double, magnitude: Double) {
        var s = 0.0, m = 0.0
        var i = 0
        while i + lag < w.count {
            s += w[i] * w[i + lag]
            m += abs(w[i] * w[i + lag])
            i += 1
        }
        return (s, m)
    }

    @Test("lagSum and lagPairSums equal the direct sums at every length 0-140 and every lag, and the pair equals two single lags bit for bit")
    func lagSumsAtEveryLengthAndLag() {
        var rng = SplitMix64(seed: 41)
        for length in Array(0...70) + [71, 79, 80, 81, 95, 96, 97, 100, 127, 128, 129, 140] {
            var w = (0..<length).map { _ in rng.gaussian() }
            // Edge values: exact zeros and a wide range of magnitudes.
            if length > 3 { w[length / 2] = 0; w[1] *= 1e6; w[length - 1] *= 1e-6 }
            w.withUnsafeBytes { raw in
                let p = raw.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!
                for lag in 0...length {
                    let single = GaitSignal.lagSum(p, length: length, lag: lag)
                    let direct = directLagSum(w, lag)
                    #expect(abs(single - direct.sum) <= 1e-13 * direct.magnitude, "length \(length) lag \(lag): \(single) vs \(direct.sum)")
                    guard lag < length else { continue }
                    let pair = GaitSignal.lagPairSums(p, length: length, lag: lag)
                    let next = lag + 1 <= length ? GaitSignal.lagSum(p, length: length, lag: lag + 1) : 0
                    #expect(pair.0.bitPattern == single.bitPattern && pair.1.bitPattern == next.bitPattern,
                            "length \(length) lag \(lag): pair \(pair) vs \(single), \(next)")
                }
            }
        }
    }

    /// GaitSignal's period estimate recomputed directly from its history: pair means, mean removed,
    /// every lag's sum one product at a time, then `choosePeriod`'s rule (the first local maximum within
    /// `peakTolerance` of the best, refined by a parabola; halved when a stride's second step
    /// correlates) and the gait-band rule (periodicity 0 when the band-passed values `h` hold under
    /// `minimumGaitBandRatio` of the energy of the values above the band, `above`).
    private func directEstimate(_ h: [Double], above: [Double]) -> (period: Double, periodicity: Double) {
        let fs = GaitSignal.rate / 2
        let minLag = Int(GaitSignal.lagRange.min * fs), maxLag = Int(GaitSignal.lagRange.max * fs)
        let length = h.count / 2
        var w = [Double](repeating: 0, count: length)
        for i in 0..<length { w[i] = 0.5 * (h[2 * i] + h[2 * i + 1]) }
        let mean = w.reduce(0, +) / Double(length)
        w = w.map { $0 - mean }
        let energy = w.reduce(1e-12) { $0 + $1 * $1 }
        func at(_ lag: Int) -> Double { directLagSum(w, lag).sum / energy * Double(length) / Double(length - lag) }
        let r = (minLag...maxLag).map(at)
        var best = -Double.infinity
        var peaks: [Int] = []
        for k in 1..<(r.count - 1) where r[k] >= r[k - 1] && r[k] >= r[k + 1] {
            best = max(best, r[k])
            peaks.append(k)
        }
        var index = 0
        if let first = peaks.first(where: { r[$0] >= best - GaitSignal.peakTolerance }) {
            index = first
        } else {
            for k in r.indices where r[k] > r[index] { index = k }
        }
        var lag = Double(index + minLag)
        if index > 0 && index < r.count - 1 {
            let d = r[index - 1] - 2 * r[index] + r[index + 1]
            if d < 0 { lag += 0.5 * (r[index - 1] - r[index + 1]) / d }
        }
        let range = GaitSignal.strideSecondStepRange
        var second = -1.0
        for k in r.indices {
            let l = Double(k + minLag)
            if l >= range.min * lag && l <= range.max * lag { second = max(second, r[k]) }
        }
        var chosen = (period: lag / fs, periodicity: r[index])
        if second > GaitSignal.strideSecondStepCorrelation && lag / 2 / fs >= 0.2 { chosen.period = lag / 2 / fs }
        let inBand = h.reduce(0) { $0 + $1 * $1 }, outside = above.reduce(0) { $0 + $1 * $1 }
        return inBand / max(1e-18, outside) < GaitSignal.minimumGaitBandRatio ? (chosen.period, 0) : chosen
    }

    @Test("the period estimate equals a direct recomputation from the history at every update of walks, runs, noise and vibration")
    func periodEstimateEqualsDirectComputation() {
        var rng = SplitMix64(seed: 46)
        var compared = 0, strides = 0, vibrations = 0
        for trial in 0..<6 {
            var signal = GaitSignal()
            let interval = [0.55, 0.3, 0.7, 0.45, 0.0, 0.0][trial]
            let vibration = trial == 5 ? 7.0 : 0
            for i in 0..<1500 {
                let t = Double(i) / GaitSignal.rate
                var v = 1 + 0.02 * rng.gaussian()
                if interval > 0 {
                    let phase = t.truncatingRemainder(dividingBy: 2 * interval)
                    v += 0.4 * exp(-pow((phase - 0.1) / 0.06, 2)) + 0.3 * exp(-pow((phase - interval - 0.1) / 0.06, 2))
                }
                if vibration > 0 { v += 0.3 * sin(2 * .pi * vibration * t) }
                _ = signal.step(value: v, vector: Vector3(x: 0, y: 0, z: v), bin: i, origin: 0)
                let n = signal.count - 1
                guard n >= 100, n % 25 == 0 else { continue }
                // Due now: the window of min(n, 200) grid samples before the newest.
                let length = min(n, 200)
                let window = signal.history.withWindow(last: length / 2 * 2, skipping: 1) { Array($0) }
                let above = signal.above.withWindow(last: length / 2 * 2, skipping: 1) { Array($0) }
                let want = directEstimate(window, above: above)
                let period = signal.period, periodicity = signal.periodicity
                #expect(abs(period - want.period) <= 1e-9 * want.period && abs(periodicity - want.periodicity) <= 1e-9,
                        "trial \(trial) grid sample \(n): \((period, periodicity)) vs \(want)")
                compared += 1
                if want.periodicity == 0 { vibrations += 1 }
                if abs(want.period - interval) < 0.1 { strides += 1 }
            }
        }
        #expect(compared > 300 && strides > 50 && vibrations > 10, "\(compared) \(strides) \(vibrations)")
    }

    @Test("how long the carrying orientation has been steady equals a direct check of the kept blocks' 1-s directions")
    func stableDurationEqualsDirectCheck() {
        var rng = SplitMix64(seed: 47)
        var signal = GaitSignal()
        let perBlock = Int(GaitSignal.blockDuration * GaitSignal.rate)
        var blocks: [Vector3] = []
        var sum = Vector3.zero
        var down = Vector3(x: 0, y: 0, z: -1)
        let cosLimit = cos(GaitSignal.stableAngle * Double.pi / 180)
        var durations = Set<Double>()
        for i in 0..<(perBlock * 120) {
            // Now and then the phone turns: by 5-60 degrees, or tumbles.
            if rng.uniform() < 0.004 {
                let turn = Vector3(x: rng.gaussian(), y: rng.gaussian(), z: rng.gaussian()) * (rng.uniform() < 0.5 ? 0.1 : 1)
                down = (down + turn).normalized
            }
            let v = down + Vector3(x: rng.gaussian(), y: rng.gaussian(), z: rng.gaussian()) * 0.05
            _ = signal.step(value: v.magnitude, vector: v, bin: i, origin: 0)
            sum = sum + v
            guard (i + 1) % perBlock == 0 else { continue }
            blocks.append(sum)
            sum = .zero
            let kept = Array(blocks.suffix(GaitSignal.blockCapacity))
            var want = Double(kept.count) * GaitSignal.blockDuration
            if kept.count >= 2 {
                let pairs = (0..<(kept.count - 1)).map { kept[$0] + kept[$0 + 1] }
                let current = pairs[pairs.count - 1]
                var good = 2
                for k in stride(from: pairs.count - 2, through: 0, by: -1) {
                    let c = current.dot(pairs[k]) / max(1e-12, current.magnitude * pairs[k].magnitude)
                    if c < cosLimit { break }
                    good += 1
                }
                want = Double(good) * GaitSignal.blockDuration
            }
            #expect(signal.stableDuration == want, "block \(blocks.count)")
            durations.insert(want)
        }
        // Steady spans of every length were checked, broken by turns and filling the kept blocks.
        #expect(durations.count >= 10 && durations.contains(1) && durations.contains(Double(GaitSignal.blockCapacity) * GaitSignal.blockDuration))
    }

    @Test("the stroke detector's ring gives the same strokes whatever its size (where it wraps), with jitter and data gaps",
          arguments: [50.0, 100.0, 190.0])
    func strokeRingSizeDoesNotMatter(rate: Double) {
        var rng = SplitMix64(seed: UInt64(rate) + 100)
        var swings: [(time: Double, peak: Double, width: Double)] = []
        var t = 1.0
        while t < 55 {
            swings.append((t, (Bool.random(using: &rng) ? 1 : -1) * Double.random(in: 5...14, using: &rng),
                           Double.random(in: 0.3...1.4, using: &rng)))
            t += Double.random(in: 0.5...3, using: &rng)
        }
        var trace = Generate.swings(swings, rate: rate, seconds: 60, noise: 0.3, seed: UInt64(rate))
        // Jittered times and dropped batches (0.05-0.6 s), as watches deliver them.
        var kept: [DeviceMotion] = []
        var i = 0
        while i < trace.count {
            if rng.uniform() < 0.004 { i += Int(Double.random(in: 0.05...0.6, using: &rng) * rate); continue }
            trace[i].time += 0.2 / rate * (rng.uniform() - 0.5)
            kept.append(trace[i])
            i += 1
        }
        var strokes: [[SwingEvent]] = []
        for ringRate in [200.0, 211.0, 997.0, 5000.0] {
            var p = StrokeDetector.Parameters()
            p.maximumSampleRate = ringRate
            var d = StrokeDetector(parameters: p)
            var out = d.process(kept)
            if let e = d.finish() { out.append(e) }
            strokes.append(out)
        }
        #expect(strokes[0].count > 5)
        for other in strokes.dropFirst() { #expect(other == strokes[0]) }
    }

    @Test("a mirrored history's windows are the last values appended, at every capacity, fill and skip")
    func mirroredHistoryWindows() {
        var rng = SplitMix64(seed: 43)
        for capacity in [1, 2, 3, 7, 8, 16, 33] {
            var history = MirroredHistory(capacity: capacity)
            var all: [Double] = []
            for _ in 0..<(3 * capacity + 2) {
                let v = rng.gaussian()
                history.append(v)
                all.append(v)
                #expect(history.count == min(all.count, capacity) && history.total == all.count)
                for skip in 0...history.count {
                    for n in 0...(history.count - skip) {
                        let want = Array(all[(all.count - skip - n)..<(all.count - skip)])
                        let got = history.withWindow(last: n, skipping: skip) { Array($0) }
                        #expect(got == want, "capacity \(capacity), \(all.count) appended, last \(n) skipping \(skip)")
                    }
                }
            }
        }
    }

    @Test("the pedometer's median of up to eight values equals the sorted median")
    func pedometerMedian() {
        var rng = SplitMix64(seed: 44)
        for trial in 0..<400 {
            let n = trial % (PedometerMedian.maximumCount + 1)
            var ring = RingBuffer<Double>(capacity: PedometerMedian.maximumCount)
            // Wrapped rings too: more appended than held.
            let extra = trial % 3 == 0 ? 5 : 0
            var held: [Double] = []
            for k in 0..<(n + extra) {
                // Ties are common (few distinct values) in a third of the trials.
                let v = trial % 3 == 1 ? Double(Int.random(in: 0...2, using: &rng)) : rng.gaussian()
                ring.append(v)
                held.append(v)
                if k >= PedometerMedian.maximumCount { held.removeFirst() }
            }
            guard ring.count <= PedometerMedian.maximumCount else { continue }
            let sorted = held.sorted()
            let want = sorted.isEmpty ? 0 : sorted.count % 2 == 1 ? sorted[sorted.count / 2]
                : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            #expect(PedometerMedian.of(ring) == want, "\(held)")
        }
    }

    @Test("the three-axis SIMD filter is the scalar cascade on each axis, bit for bit, from rest and settled")
    func axisFilterIsTheScalarCascadePerAxis() {
        var rng = SplitMix64(seed: 45)
        for (design, rate) in [(Butterworth.bandPass(order: 2, low: 3.5, high: 12, sampleRate: 50), 50.0),
                               (Butterworth.bandPass(order: 4, low: 0.3, high: 3, sampleRate: 100), 100.0),
                               (Butterworth.bandPass(order: 3, low: 1, high: 20, sampleRate: 200), 200.0)] {
            for settled in [false, true] {
                let start = SIMD4(rng.gaussian(), rng.gaussian(), -1 + rng.gaussian(), 0)
                var simd = settled ? AxisFilter(design, steadyOn: start) : AxisFilter(design)
                var scalar = (0..<3).map { axis -> BiquadCascade in
                    var c = design
                    c.reset()
                    if settled { c.setSteadyState(input: start[axis]) }
                    return c
                }
                for i in 0..<Int(4 * rate) {
                    let x = SIMD4(rng.gaussian(), rng.gaussian(), -1 + 0.1 * rng.gaussian(), 0) * (i % 97 == 0 ? 50 : 1)
                    let y = simd.process(x)
                    for axis in 0..<3 {
                        let want = scalar[axis].process(x[axis])
                        #expect(y[axis].bitPattern == want.bitPattern, "axis \(axis) sample \(i)")
                        if y[axis].bitPattern != want.bitPattern { return }
                    }
                }
            }
        }
    }

    @Test("SwingWatch's running sums give the transcription's swings at odd and even buffer sizes, with restarts",
          arguments: [25.0, 33.0, 50.0, 101.0])
    func swingWatchMatchesTranscriptionAtEveryBufferSize(rate: Double) {
        var rng = SplitMix64(seed: UInt64(rate))
        var swings: [(time: Double, peak: Double, width: Double)] = []
        var t = 1.0
        while t < 75 {
            swings.append((t, Double.random(in: -12...12, using: &rng), Double.random(in: 0.3...0.9, using: &rng)))
            t += Double.random(in: 0.4...3, using: &rng)
        }
        let trace = Generate.swings(swings, rate: rate, seconds: 80, noise: 0.3, seed: UInt64(rate))
        let p = SwingWatchDetector.Parameters(sampleRate: rate)
        for wrist in Wrist.allCases {
            var fast = SwingWatchDetector(parameters: p, wrist: wrist)
            var slow = SwingWatchTranscription(parameters: p, wrist: wrist)
            var a: [SwingEvent] = [], b: [SwingEvent] = []
            for (i, m) in trace.enumerated() {
                if i > 0 && i % 1500 == 0 {
                    fast.restart()
                    slow.restart()
                }
                if let e = fast.process(m) { a.append(e) }
                if let e = slow.process(time: m.time, gravity: m.gravity, rotationRate: m.rotationRate) { b.append(e) }
            }
            #expect(a.count > 5)
            #expect(a.count == b.count)
            for (x, y) in zip(a, b) {
                #expect(x.time == y.time && x.kind == y.kind && x.peakRate == y.peakRate)
                #expect(abs(x.angle - y.angle) < 1e-9)
            }
        }
    }
}
