import Foundation
import Testing
@testable import SignalProcessing

@Suite struct SpectrumTests {
    // Reference values: scipy 1.17.1 `welch(x, fs=30, nperseg=64)` (and 100, and the default 256) on
    // `scipyReferenceSignal()`; defaults otherwise (Hann, 50 % overlap, constant detrend, density).
    @Test func welchMatchesScipyForPowerOfTwoSegments() {
        let s = Spectrum.welch(scipyReferenceSignal(), sampleRate: 30, segmentLength: 64)
        #expect(s.frequencies.count == 33)
        let bins = [0, 1, 2, 5, 10, 32]
        let f = [0.0, 0.46875, 0.9375, 2.34375, 4.6875, 15.0]
        let p = [0.01598610060984089, 0.011866130297693359, 0.47381370884758756, 0.0005074332592446482,
                 1.1516952258673878e-06, 9.919944416726263e-10]
        for (k, b) in bins.enumerated() {
            #expect(close(s.frequencies[b], f[k], absolute: 1e-12))
            #expect(close(s.power[b], p[k], relative: 1e-8))
        }
    }

    @Test func welchMatchesScipyForOtherSegmentLengths() {
        let s = Spectrum.welch(scipyReferenceSignal(), sampleRate: 30, segmentLength: 100)
        #expect(s.frequencies.count == 51)
        let bins = [0, 1, 4, 8, 30, 50]
        let p = [0.000789822047205566, 0.017534598804893668, 1.1134779688046055, 2.9859792912284642e-05,
                 1.860715544250649e-05, 2.4103891798847225e-09]
        for (k, b) in bins.enumerated() { #expect(close(s.power[b], p[k], relative: 1e-8)) }
        #expect(close(s.frequencies[4], 1.2, absolute: 1e-12))

        let d = Spectrum.welch(scipyReferenceSignal(), sampleRate: 30)
        #expect(d.frequencies.count == 129)
        #expect(close(d.frequencies[12], 1.40625, absolute: 1e-12))
        #expect(close(d.power[12], 0.009925164772569984, relative: 1e-8))
    }

    @Test(arguments: [64, 100, 257])
    func periodogramSatisfiesParseval(n: Int) {
        // Rectangular window, mean removed: Σ density × Δf equals the population variance exactly.
        var g = SplitMix64(seed: UInt64(n))
        let x = (0..<n).map { _ in 2 + g.gaussian() }
        let fs = 50.0
        let s = Spectrum.periodogram(x, sampleRate: fs)
        let integral = s.power.reduce(0, +) * fs / Double(n)
        let m = x.reduce(0, +) / Double(n)
        let variance = x.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(n)
        #expect(close(integral, variance, relative: 1e-10))
    }

    @Test func welchOfWhiteNoiseIntegratesToItsVariance() {
        // Unit-variance white noise: flat density 2/fs one-sided; the integral is 1 within a few %.
        var g = SplitMix64(seed: 2024)
        let x = (0..<40_000).map { _ in g.gaussian() }
        let fs = 100.0
        let s = Spectrum.welch(x, sampleRate: fs, segmentLength: 256)
        let integral = s.power.reduce(0, +) * s.resolution
        #expect(abs(integral - 1) < 0.03)
        let mid = Array(s.power[20..<108])
        #expect(abs(mid.reduce(0, +) / Double(mid.count) - 2 / fs) < 0.1 * 2 / fs)
    }

    @Test func aSinusoidPeaksAtItsFrequencyWithItsPower() {
        // A sin of amplitude A has power A²/2, all within a few bins of its frequency.
        let fs = 32.0, a = 3.0
        let x = (0..<4096).map { a * sin(2 * Double.pi * 2.0 * Double($0) / fs) }
        let s = Spectrum.welch(x, sampleRate: fs, segmentLength: 512)
        let k = s.peakIndex()!
        #expect(close(s.frequencies[k], 2.0, absolute: 1e-12))
        #expect(close(s.bandPower(low: 1.5, high: 2.5), a * a / 2, relative: 0.01))
        #expect(s.peakIndex(low: 3, high: 16).map { s.power[$0] < 1e-6 * s.power[k] } == true)
    }

    @Test func emptyAndTinySignals() {
        #expect(Spectrum.welch([], sampleRate: 10).power.isEmpty)
        let s = Spectrum.welch([1, 2, 3], sampleRate: 10)
        #expect(s.frequencies.count == 2 && s.power.allSatisfy(\.isFinite))
    }
}
