import Foundation
import Testing
@testable import SignalProcessing

@Suite struct ExcursionLimiterTests {
    /// A 1-Hz sine of amplitude 1 at 30 Hz, `seconds` long.
    private func sine(seconds: Double, rate: Double = 30) -> [Double] {
        (0..<Int(seconds * rate)).map { sin(2 * Double.pi * Double($0) / rate) }
    }

    @Test("a steady pulse passes unchanged: its peaks are about 1.6 mean absolute deviations out")
    func aPulsePassesUnchanged() {
        var limiter = ExcursionLimiter(limit: 5, sampleRate: 30)
        limiter.reset(level: 0)
        for x in sine(seconds: 30) {
            #expect(abs(limiter.process(x) - x) < 1e-12)
        }
        // The spread is the sine's mean absolute deviation, 2/π.
        #expect(abs(limiter.spread - 2 / Double.pi) < 0.02)
    }

    @Test("a spike 20 times the pulse is cut to the limit, and the pulse after it passes again")
    func aSpikeIsLimited() {
        var limiter = ExcursionLimiter(limit: 5, sampleRate: 30)
        limiter.reset(level: 0)
        var signal = sine(seconds: 20)
        for i in 450..<459 { signal[i] += 20 }  // 0.3 s at 15 s
        var out = signal
        limiter.process(&out)
        // The bound starts at 5 mean absolute deviations and grows by at most 4/120 a clipped sample
        // (β = 1/(4 s × 30 Hz)), about 1.35-fold over the spike's 9 samples, as the level rises a little.
        let spread = 2 / Double.pi
        for i in 450..<459 {
            #expect(out[i] < 5 * spread * 1.5)
            #expect(out[i] > 1)  // limited, not removed
        }
        // Within a second and a half of the spike's end the output is the input again.
        for i in 505..<600 { #expect(abs(out[i] - signal[i]) < 1e-9) }
        // The spread is back near the sine's own.
        #expect(abs(limiter.spread / spread - 1) < 0.2)
    }

    @Test("nothing is limited while the spread is first learnt, whose start is the plain mean")
    func warmUp() {
        var limiter = ExcursionLimiter(limit: 2, sampleRate: 10, levelSeconds: 1000, warmUpSeconds: 1)
        limiter.reset(level: 0)
        #expect(limiter.warmUp == 10)
        // A square wave of ±1 around a level that barely moves: the mean of |x - level| is 1.
        let inputs = [1.0, -1, 1, -1, 1, -1, 1, -1, 50, -1]
        for x in inputs { #expect(abs(limiter.process(x) - x) < 1e-12) }
        // Nine samples of 1 and one of ~50, averaged (an exponential start from 0 would be far lower).
        #expect(abs(limiter.spread - (9 + 50) / 10) < 0.1)
        // After the warm-up, an excursion beyond twice the spread is cut there.
        let level = limiter.level
        let bound = 2 * limiter.spread
        #expect(abs(limiter.process(100) - (level + bound)) < 1e-12)
    }

    @Test("a lasting rise in amplitude is followed within seconds")
    func followsAGrowingAmplitude() {
        var limiter = ExcursionLimiter(limit: 5, sampleRate: 30)
        limiter.reset(level: 0)
        let signal = sine(seconds: 10) + sine(seconds: 30).map { 8 * $0 }
        var out = signal
        limiter.process(&out)
        // The first second at 8 times the amplitude is cut; from 25 s (15 s later) nothing is.
        #expect(zip(out[300..<330], signal[300..<330]).contains { abs($0 - $1) > 0.1 })
        for i in 750..<out.count { #expect(abs(out[i] - signal[i]) < 1e-9) }
    }

    @Test("an infinite limit limits nothing, even a constant start (zero spread)")
    func infiniteLimit() {
        var limiter = ExcursionLimiter(limit: .infinity, sampleRate: 30, warmUpSeconds: 0.1)
        limiter.reset(level: 3)
        for _ in 0..<10 { #expect(limiter.process(3) == 3) }
        #expect(limiter.spread == 0)
        #expect(limiter.process(1000) == 1000)
    }

    @Test("after a flat start (zero spread) the first movement passes, and the spread is learnt from it")
    func flatStart() {
        var limiter = ExcursionLimiter(limit: 5, sampleRate: 30, warmUpSeconds: 0.1)
        limiter.reset(level: 3)
        for _ in 0..<10 { _ = limiter.process(3) }
        #expect(limiter.spread == 0)
        #expect(limiter.process(4) == 4)
        #expect(limiter.spread > 0)
    }

    @Test("after a flat stretch of T seconds the pulse is limited for about T/(k - 1) seconds")
    func recoveryAfterAFlatStretch() {
        var limiter = ExcursionLimiter(limit: 5, sampleRate: 30)
        limiter.reset(level: 0)
        let signal = sine(seconds: 10) + [Double](repeating: 0, count: 300) + sine(seconds: 10)
        var out = signal
        limiter.process(&out)
        // 10 s flat: limited for about 2.5 s after (30 Hz), nothing from 4 s after.
        let limited = (600..<900).filter { abs(out[$0] - signal[$0]) > 1e-9 }
        #expect(!limited.isEmpty)
        #expect(limited.last! < 600 + 4 * 30)
    }

    @Test("a step stays: once most recent samples were limited, the limiter starts afresh at the new level")
    func aStepRestartsIt() {
        var limiter = ExcursionLimiter(limit: 5, sampleRate: 30)
        limiter.reset(level: 0)
        let signal = sine(seconds: 10) + sine(seconds: 10).map { $0 + 1e6 }
        var out = signal
        limiter.process(&out)
        // Limited for 0.46 s of the step (the share of limited samples, averaged over 0.5 s, passes
        // 0.6 at the 14th), then the input itself (a warm-up, then a pulse well within the bound).
        for i in 300..<313 { #expect(out[i] < 10) }
        for i in 314..<600 { #expect(abs(out[i] - signal[i]) < 1e-6) }
    }

    @Test("a pulse coming after a flat start is limited for about half a second (0.53 s here), not for seconds")
    func aPulseAfterAFlatStart() {
        var limiter = ExcursionLimiter(limit: 5, sampleRate: 30)
        limiter.reset(level: 5)
        let signal = [Double](repeating: 5, count: 300) + sine(seconds: 10).map { 5 + $0 }
        var out = signal
        limiter.process(&out)
        let limited = (300..<600).filter { abs(out[$0] - signal[$0]) > 1e-12 }
        #expect(!limited.isEmpty && limited.last! < 300 + 18, "\(limited)")
    }
}
