import Foundation
import Testing
@testable import SignalProcessing

@Suite struct ResamplingTests {
    /// 30 Hz timestamps with ±3 ms jitter and ~2 % of samples dropped (seeded).
    static func jitteredTimes(count: Int, seed: UInt64) -> [Double] {
        var g = SplitMix64(seed: seed)
        var t: [Double] = []
        for k in 0..<count {
            if k > 0 && k < count - 1 && Double.random(in: 0..<1, using: &g) < 0.02 { continue }
            t.append(Double(k) / 30 + Double.random(in: -0.003...0.003, using: &g))
        }
        return t
    }

    @Test func linearSignalIsRecoveredExactlyFromJitteredDroppedSamples() {
        let times = Self.jitteredTimes(count: 900, seed: 1)
        let values = times.map { 2 * $0 - 1 }
        let u = Resampling.uniform(times: times, values: values, rate: 25)
        #expect(u.start == times[0])
        #expect(u.values.count == Int(((times.last! - times[0]) * 25).rounded(.down)) + 1)
        for (k, v) in u.values.enumerated() { #expect(abs(v - (2 * u.time(at: k) - 1)) < 1e-9) }
    }

    @Test func interpolationErrorOfASinusoidIsBoundedBySecondDerivative() {
        // Linear interpolation error ≤ h²/8 max|x''| with h the largest input gap.
        let times = Self.jitteredTimes(count: 600, seed: 2)
        let f = 1.2
        let values = times.map { sin(2 * Double.pi * f * $0) }
        let u = Resampling.uniform(times: times, values: values, rate: 30)
        let h = zip(times.dropFirst(), times).map { $0 - $1 }.max()!
        #expect(h > 1.5 / 30)  // the generator did drop samples
        let bound = h * h / 8 * pow(2 * Double.pi * f, 2)
        for (k, v) in u.values.enumerated() {
            #expect(abs(v - sin(2 * Double.pi * f * u.time(at: k))) <= bound)
        }
    }

    @Test(arguments: [1, 7, 100, 10_000])
    func streamingInChunksEqualsBatch(chunk: Int) {
        let times = Self.jitteredTimes(count: 700, seed: 3)
        let values = times.map { cos(3 * $0) + 0.1 * $0 }
        let batch = Resampling.uniform(times: times, values: values, rate: 30)
        var r = UniformResampler(rate: 30)
        var out: [Double] = []
        var emittedTimes: [Double] = []
        var i = 0
        while i < times.count {
            for j in i..<min(times.count, i + chunk) {
                r.process(time: times[j], value: values[j]) { t, v in
                    emittedTimes.append(t)
                    out.append(v)
                }
            }
            i += chunk
        }
        #expect(out == batch.values)
        #expect(emittedTimes == batch.times)
    }

    @Test func repeatedAndBackwardTimestampsAreSkipped() {
        let u = Resampling.uniform(times: [0, 0.1, 0.1, 0.05, 0.2], values: [0, 1, 50, 60, 2], rate: 20)
        #expect(u.values.count == 5)
        for (k, v) in u.values.enumerated() { #expect(abs(v - Double(k) * 0.5) < 1e-12) }
    }

    /// A time that is not a finite number is skipped like a repeated one: an infinite time had every
    /// grid point after the previous sample to emit (a hang), a NaN first time left no grid at all.
    @Test(arguments: [Double.infinity, -.infinity, .nan])
    func nonFiniteTimestampsAreSkipped(_ bad: Double) {
        let clean = Resampling.uniform(times: [0, 0.1, 0.2], values: [0, 1, 2], rate: 20)
        #expect(Resampling.uniform(times: [0, 0.1, bad, 0.2], values: [0, 1, 9, 2], rate: 20) == clean)
        #expect(Resampling.uniform(times: [0, 0.1, 0.2, bad], values: [0, 1, 2, 9], rate: 20) == clean)
        #expect(Resampling.uniform(times: [bad, 0, 0.1, 0.2], values: [9, 0, 1, 2], rate: 20) == clean)
        var r = UniformResampler(rate: 20)
        var out: [Double] = []
        for (t, v) in [(bad, 9.0), (0, 0), (0.1, 1), (bad, 9), (0.2, 2)] { r.process(time: t, value: v, into: &out) }
        #expect(out == clean.values && r.start == 0)
    }

    @Test func emptyAndSingleSampleInputs() {
        #expect(Resampling.uniform(times: [], values: [], rate: 10).values.isEmpty)
        #expect(Resampling.uniform(times: [4], values: [7], rate: 10) == UniformSignal(start: 4, rate: 10, values: [7]))
    }

    @Test func interpolateClampsOutsideTheSpan() {
        let y = Resampling.interpolate(times: [0, 1, 2], values: [0, 10, 0], at: [-1, 0.5, 1.5, 3])
        #expect(y == [0, 5, 5, 0])
    }
}
