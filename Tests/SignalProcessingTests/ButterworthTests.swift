import Foundation
import Testing
@testable import SignalProcessing

/// The analytic squared magnitude of a bilinear-transformed Butterworth filter, in prewarped
/// frequencies Ω = tan(π f / fs): low-pass 1 / (1 + (Ω/Ωc)^2N).
private func lowPassSquared(_ f: Double, cutoff: Double, fs: Double, order: Int) -> Double {
    let r = tan(Double.pi * f / fs) / tan(Double.pi * cutoff / fs)
    return 1 / (1 + pow(r, Double(2 * order)))
}

@Suite struct ButterworthTests {
    static let orders = Array(1...8)
    static let rates: [Double] = [25, 30, 100, 1000]

    @Test(arguments: orders, rates)
    func lowPassIsHalfPowerAtCutoffAndMatchesAnalyticMagnitude(order: Int, fs: Double) {
        let fc = fs / 7
        let f = Butterworth.lowPass(order: order, cutoff: fc, sampleRate: fs)
        #expect(f.order == order)
        #expect(close(f.magnitude(atFrequency: fc, sampleRate: fs), 1 / 2.0.squareRoot(), absolute: 1e-10))
        #expect(close(f.magnitude(atFrequency: 0, sampleRate: fs), 1, absolute: 1e-12))
        for q in stride(from: 0.01, to: 0.5, by: 0.03) {
            let fq = q * fs
            let expected = lowPassSquared(fq, cutoff: fc, fs: fs, order: order).squareRoot()
            #expect(close(f.magnitude(atFrequency: fq, sampleRate: fs), expected, absolute: 1e-10))
        }
    }

    @Test(arguments: orders, rates)
    func highPassIsHalfPowerAtCutoffAndMatchesAnalyticMagnitude(order: Int, fs: Double) {
        let fc = fs / 9
        let f = Butterworth.highPass(order: order, cutoff: fc, sampleRate: fs)
        #expect(close(f.magnitude(atFrequency: fc, sampleRate: fs), 1 / 2.0.squareRoot(), absolute: 1e-10))
        #expect(close(f.magnitude(atFrequency: fs / 2, sampleRate: fs), 1, absolute: 1e-12))
        #expect(f.magnitude(atFrequency: 0, sampleRate: fs) < 1e-12)
        for q in stride(from: 0.01, to: 0.5, by: 0.03) {
            let fq = q * fs
            // High-pass: 1 / (1 + (Ωc/Ω)^2N).
            let r = tan(Double.pi * fc / fs) / tan(Double.pi * fq / fs)
            let expected = (1 / (1 + pow(r, Double(2 * order)))).squareRoot()
            #expect(close(f.magnitude(atFrequency: fq, sampleRate: fs), expected, absolute: 1e-10))
        }
    }

    @Test(arguments: orders, rates)
    func bandPassIsHalfPowerAtBothEdgesAndMatchesAnalyticMagnitude(order: Int, fs: Double) {
        let low = fs * 0.7 / 30, high = fs * 3.5 / 30
        let f = Butterworth.bandPass(order: order, low: low, high: high, sampleRate: fs)
        #expect(f.sections.count == order)
        #expect(f.order == 2 * order)
        #expect(close(f.magnitude(atFrequency: low, sampleRate: fs), 1 / 2.0.squareRoot(), absolute: 1e-9))
        #expect(close(f.magnitude(atFrequency: high, sampleRate: fs), 1 / 2.0.squareRoot(), absolute: 1e-9))
        let wl = tan(Double.pi * low / fs), wh = tan(Double.pi * high / fs)
        for q in stride(from: 0.005, to: 0.5, by: 0.02) {
            let w = tan(Double.pi * q)
            // Band-pass: 1 / (1 + ((Ω² - Ωl Ωh) / (Ω (Ωh - Ωl)))^2N).
            let r = (w * w - wl * wh) / (w * (wh - wl))
            let expected = (1 / (1 + pow(r, Double(2 * order)))).squareRoot()
            #expect(close(f.magnitude(atFrequency: q * fs, sampleRate: fs), expected, absolute: 1e-9))
        }
    }

    @Test(arguments: orders)
    func stopBandFallsTwentyDecibelsPerDecadePerOrder(order: Int) {
        // Far below Nyquist the bilinear warping is negligible: one decade above the cutoff the
        // attenuation is 10 log10(1 + 10^2N) ≈ 20 N dB.
        let fs = 100_000.0, fc = 100.0
        let f = Butterworth.lowPass(order: order, cutoff: fc, sampleRate: fs)
        let db = -20 * log10(f.magnitude(atFrequency: 10 * fc, sampleRate: fs))
        #expect(abs(db - 20 * Double(order)) < 0.05)
        let h = Butterworth.highPass(order: order, cutoff: 10 * fc, sampleRate: fs)
        let dbh = -20 * log10(h.magnitude(atFrequency: fc, sampleRate: fs))
        #expect(abs(dbh - 20 * Double(order)) < 0.05)
    }

    // Reference values: scipy 1.17.1, `sos = butter(N, Wn, btype, fs=30, output='sos')`, then
    // `sosfiltfilt(sos, x)` / `sosfilt(sos, x)` on `scipyReferenceSignal()`, sample indices below.
    static let referenceIndices = [0, 1, 2, 50, 150, 297, 298, 299]

    @Test func filtfiltMatchesScipyForBandPassOrder2() {
        let y = Butterworth.bandPass(order: 2, low: 0.7, high: 3.5, sampleRate: 30).filtfilt(scipyReferenceSignal())
        let expected = [0.06405379310299497, 0.25696568034459344, 0.4450669121553973, 0.010651846835848966,
                        0.011250009355627921, -0.3753060514925414, -0.30097334892370997, -0.2661032181118492]
        for (i, e) in zip(Self.referenceIndices, expected) { #expect(close(y[i], e, absolute: 1e-10)) }
    }

    @Test func causalFilterMatchesScipySosfilt() {
        let y = Butterworth.bandPass(order: 2, low: 0.7, high: 3.5, sampleRate: 30).filtered(scipyReferenceSignal())
        let expected = [0.023883035346728244, 0.13201394843330447, 0.3002563902869523, 0.41574957680246577,
                        0.4198678637387806, -0.3317283324427084, -0.03909522769434563, 0.21795165313856943]
        for (i, e) in zip(Self.referenceIndices, expected) { #expect(close(y[i], e, absolute: 1e-10)) }
    }

    @Test func filtfiltMatchesScipyForOddOrderLowPass() {
        let y = Butterworth.lowPass(order: 3, cutoff: 5, sampleRate: 30).filtfilt(scipyReferenceSignal())
        let expected = [0.3968591447572035, 0.5683220249637062, 0.7499540166734593, 0.260311257276944,
                        0.010679698767348159, 0.2783298596538495, 0.30278743330063695, 0.18198286788508367]
        for (i, e) in zip(Self.referenceIndices, expected) { #expect(close(y[i], e, absolute: 1e-10)) }
    }

    @Test func filtfiltMatchesScipyForHighPassOrder4() {
        let y = Butterworth.highPass(order: 4, cutoff: 0.5, sampleRate: 30).filtfilt(scipyReferenceSignal())
        let expected = [0.04627268735847406, 0.6538869574241716, 0.2296320954515753, 0.3052685865996907,
                        0.15653337441321385, 0.21935981211109185, -0.034083826921423865, -0.1547185099482149]
        for (i, e) in zip(Self.referenceIndices, expected) { #expect(close(y[i], e, absolute: 1e-9)) }
    }

    @Test func filtfiltMatchesScipyForBandPassOrder5() {
        let y = Butterworth.bandPass(order: 5, low: 0.5, high: 4, sampleRate: 30).filtfilt(scipyReferenceSignal())
        let expected = [-0.0516117831743062, 0.14181558867887228, 0.33792647883207816, 0.002312144844303088,
                        0.010290593521969316, -0.2020702357148923, -0.11991651579013529, -0.07677695299266402]
        for (i, e) in zip(Self.referenceIndices, expected) { #expect(close(y[i], e, absolute: 1e-9)) }
    }

    @Test func padLengthIsScipysDefault() {
        #expect(Butterworth.bandPass(order: 2, low: 1, high: 3, sampleRate: 30).defaultPadLength == 15)
        // An odd low-pass has one first-order section (b2 == a2 == 0): 3 × (2 × 2 + 1 - 1).
        #expect(Butterworth.lowPass(order: 3, cutoff: 5, sampleRate: 30).defaultPadLength == 12)
    }

    @Test(arguments: [1, 7, 100, 1000])
    func streamingInChunksEqualsBatch(chunk: Int) {
        let x = scipyReferenceSignal()
        let batch = Butterworth.bandPass(order: 3, low: 0.7, high: 3.5, sampleRate: 30).filtered(x)
        var f = Butterworth.bandPass(order: 3, low: 0.7, high: 3.5, sampleRate: 30)
        var out: [Double] = []
        var i = 0
        while i < x.count {
            var block = Array(x[i..<min(x.count, i + chunk)])
            if chunk == 1 { block = [f.process(block[0])] } else { f.process(&block) }
            out += block
            i += chunk
        }
        #expect(out == batch)
    }

    @Test func resetClearsState() {
        var f = Butterworth.lowPass(order: 2, cutoff: 2, sampleRate: 30)
        let first = (0..<20).map { _ in f.process(1) }
        f.reset()
        let second = (0..<20).map { _ in f.process(1) }
        #expect(first == second)
    }

    @Test func filtfiltPassesAConstantThroughLowPassAndRemovesItInBandPass() {
        let x = [Double](repeating: 3.25, count: 200)
        let lp = Butterworth.lowPass(order: 4, cutoff: 3, sampleRate: 30).filtfilt(x)
        #expect(lp.allSatisfy { abs($0 - 3.25) < 1e-12 })
        let bp = Butterworth.bandPass(order: 2, low: 0.7, high: 3.5, sampleRate: 30).filtfilt(x)
        #expect(bp.allSatisfy { abs($0) < 1e-12 })
    }

    @Test func filtfiltHasZeroPhaseForAPassBandSinusoid() {
        // A 1.5 Hz sinusoid through a 0.7-3.5 Hz band-pass: the forward-backward output has the gain
        // |H(1.5 Hz)|² and no delay, so away from the ends it equals the scaled input.
        let fs = 30.0
        let f = Butterworth.bandPass(order: 2, low: 0.7, high: 3.5, sampleRate: fs)
        let g = pow(f.magnitude(atFrequency: 1.5, sampleRate: fs), 2)
        let x = (0..<1200).map { sin(2 * Double.pi * 1.5 * Double($0) / fs) }
        let y = f.filtfilt(x)
        for i in 300..<900 { #expect(abs(y[i] - g * x[i]) < 1e-3) }
    }

    @Test func filtfiltHandlesSignalsShorterThanThePadding() {
        let f = Butterworth.bandPass(order: 2, low: 0.7, high: 3.5, sampleRate: 30)
        #expect(f.filtfilt([]).isEmpty)
        #expect(f.filtfilt([1]).count == 1)
        let y = f.filtfilt([1, 2, 3, 4, 5])
        #expect(y.count == 5 && y.allSatisfy(\.isFinite))
    }

    @Test func aRetunedFilterKeepsItsStateAndTakesTheNewResponse() {
        let fs = 30.0
        let narrow = Butterworth.bandPass(order: 2, low: 0.5, high: 5, sampleRate: fs)
        let wide = Butterworth.bandPass(order: 2, low: 0.5, high: 7, sampleRate: fs)
        var f = narrow
        let x = (0..<300).map { sin(2 * Double.pi * 1.2 * Double($0) / fs) + 0.3 * sin(2 * Double.pi * 6 * Double($0) / fs) }
        for v in x.prefix(150) { _ = f.process(v) }
        let stateBefore = f.sections.map { [$0.s1, $0.s2] }
        f.retune(to: wide)
        #expect(f.sections.map { [$0.s1, $0.s2] } == stateBefore)
        #expect(f.magnitude(atFrequency: 6, sampleRate: fs) == wide.magnitude(atFrequency: 6, sampleRate: fs))
        #expect(f.magnitude(atFrequency: 6, sampleRate: fs) > 1.5 * narrow.magnitude(atFrequency: 6, sampleRate: fs))
        // Retuned to its own design, a filter runs on exactly as if nothing had happened.
        var a = narrow, b = narrow
        for v in x.prefix(150) { _ = a.process(v); _ = b.process(v) }
        b.retune(to: narrow)
        for v in x.suffix(150) { #expect(a.process(v) == b.process(v)) }
    }
}

/// Designs and spectra with a sample rate that is not a finite number, an order past
/// ``Butterworth/maximumOrder`` or a negative window length stop with a message naming it: an
/// infinite rate passed the cutoff check and gave NaN coefficients (and a Welch spectrum of NaN
/// frequencies) without a word, Int.max poles trapped doubling the order, a negative count trapped
/// making a range. Values reach the exit test's process as text: JSON has no NaN or infinity.
@Suite struct DesignPreconditionTests {
    @Test(arguments: ["lowPass", "highPass", "bandPass", "welch"])
    func anInfiniteSampleRateIsNamed(design: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [design] in
            switch design {
            case "lowPass": _ = Butterworth.lowPass(order: 2, cutoff: 1, sampleRate: .infinity)
            case "highPass": _ = Butterworth.highPass(order: 2, cutoff: 1, sampleRate: .infinity)
            case "bandPass": _ = Butterworth.bandPass(order: 2, low: 1, high: 2, sampleRate: .infinity)
            default: _ = Spectrum.welch([1, 2, 3, 4], sampleRate: .infinity)
            }
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("sample rate must be a positive finite number") == true)
    }

    @Test(arguments: [Butterworth.maximumOrder + 1, Int.max])
    func anOrderPastTheMaximumIsNamed(order: Int) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [order] in
            _ = Butterworth.lowPass(order: order, cutoff: 1, sampleRate: 30)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("Butterworth order must be 1...") == true)
    }

    @Test func aNegativeWindowLengthIsNamed() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Window.hann.coefficients(-1)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("a window has a count of coefficients >= 0") == true)
    }

    @Test func theHighestOrderIsDesigned() {
        let filter = Butterworth.lowPass(order: Butterworth.maximumOrder, cutoff: 1, sampleRate: 30)
        #expect(filter.sections.count == Butterworth.maximumOrder / 2)
        #expect(Window.rectangular.coefficients(0).isEmpty && Window.hann.coefficients(0).isEmpty)
    }
}
