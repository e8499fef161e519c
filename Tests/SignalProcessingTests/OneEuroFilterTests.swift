import Testing
@testable import SignalProcessing

@Suite struct OneEuroFilterTests {
    @Test("the smoothing factor is 1/(1 + τ/Δt) with τ = 1/(2π fc)")
    func smoothingFactor() {
        // 1 Hz at 30 fps: τ = 0.159155 s, Δt = 0.033333 s, α = 1/(1 + 4.774648) = 0.173171.
        #expect(abs(OneEuroFilter.smoothingFactor(cutoff: 1, interval: 1.0 / 30) - 0.1731707) < 1e-6)
        #expect(OneEuroFilter.smoothingFactor(cutoff: 5, interval: 0) == 0)
    }

    @Test("with no speed term it is a first-order low-pass: a step is followed as 1 - (1 - α)^n")
    func withoutSpeedTermItIsALowPass() {
        var f = OneEuroFilter(parameters: .init(minimumCutoff: 2, speedCoefficient: 0))
        #expect(f.filter(0, at: 0) == 0)  // the first sample passes through
        let a = OneEuroFilter.smoothingFactor(cutoff: 2, interval: 0.01)
        for n in 1...50 {
            let y = f.filter(1, at: Double(n) * 0.01)
            var expected = 1.0
            for _ in 0..<n { expected *= 1 - a }
            #expect(abs(y - (1 - expected)) < 1e-12)
        }
    }

    @Test("the speed term shortens the lag behind a ramp")
    func speedTermCutsLag() {
        var slow = OneEuroFilter(parameters: .init(minimumCutoff: 1, speedCoefficient: 0))
        var fast = OneEuroFilter(parameters: .init(minimumCutoff: 1, speedCoefficient: 1))
        var lagSlow = 0.0, lagFast = 0.0
        for n in 0..<300 {
            let t = Double(n) / 100, x = 2 * t  // 2 units/s: the cutoff rises to about 3 Hz
            lagSlow = x - slow.filter(x, at: t)
            lagFast = x - fast.filter(x, at: t)
        }
        // A first-order low-pass trails a ramp by slope × τ: 2/(2π) = 0.318 at 1 Hz, 2/(2π·3) at 3 Hz.
        #expect(abs(lagSlow - 2 / (2 * .pi)) < 0.02)
        #expect(abs(lagFast - 2 / (2 * .pi * 3)) < 0.02)
        #expect(abs(fast.derivative - 2) < 0.01)
    }

    @Test("a sample at a repeated or earlier time, or a non-finite value, changes nothing")
    func badSamplesAreIgnored() {
        var f = OneEuroFilter(parameters: .init(minimumCutoff: 1, speedCoefficient: 0.5))
        _ = f.filter(1, at: 0)
        let y = f.filter(2, at: 0.1)
        let saved = f
        #expect(f.filter(5, at: 0.1) == y)
        #expect(f.filter(5, at: 0.05) == y)
        #expect(f.filter(.nan, at: 0.2) == y)
        #expect(f.filter(5, at: .infinity) == y)
        #expect(f == saved)
        f.reset()
        #expect(f.filter(7, at: 3) == 7)
    }
}
