import Testing
import Foundation
@testable import PulseDetection

/// Issue 2 gates on the simulated finger: 40-200 bpm (every 10) at 30 fps with ±3 ms timestamp
/// jitter, 2 % dropped frames, baseline drift and motion spikes (the simulator's defaults).
@Suite struct SimulatedFingerAccuracyTests {
    static let rates: [Double] = Array(stride(from: 40.0, through: 200.0, by: 10.0))

    static func settings(bpm: Double, seed: UInt64, variability: Double = 0.01) -> SimulatedFinger.Settings {
        var s = SimulatedFinger.Settings()  // defaults: ±3 ms jitter, 2 % drops, drift, 2 spikes/min
        s.bpm = bpm
        s.frameRate = 30
        s.seed = seed
        s.intervalVariability = variability * 60 / bpm  // beat-to-beat variation, fraction of the period
        return s
    }

    static func analyse(bpm: Double, seconds: Double, variability: Double = 0.01) -> (PulseAnalysis, SimulatedFinger.Settings) {
        let settings = Self.settings(bpm: bpm, seed: UInt64(bpm), variability: variability)
        var finger = SimulatedFinger(settings: settings)
        return (PulseAnalysis.run(finger.inputs(duration: seconds), sampleRate: 30), settings)
    }

    @Test(arguments: rates.dropFirst())
    func wholeRecordingRateIsWithinOneBPM(bpm: Double) {
        checkWholeRecordingRate(bpm: bpm)
    }

    @Test
    func wholeRecordingRateIsWithinOneBPMAtFortyBPM() {
        checkWholeRecordingRate(bpm: 40)
    }

    private func checkWholeRecordingRate(bpm: Double) {
        let (analysis, settings) = Self.analyse(bpm: bpm, seconds: 60)
        let truth = SimulatedFinger.meanRate(settings: settings, until: 60)
        let answer = analysis.heartRate?.bpm
        #expect(answer != nil, "declined at \(bpm) bpm")
        if let answer {
            #expect(abs(answer - truth) <= 1, "\(bpm) bpm: answered \(answer), truth \(truth)")
        }
    }

    /// Reported rates within 10 % of half or double the truth.
    static func halfOrDoubleReports(bpm: Double) -> [RateEstimate] {
        let (analysis, settings) = Self.analyse(bpm: bpm, seconds: 60)
        let truth = SimulatedFinger.meanRate(settings: settings, until: 60)
        return analysis.rates.filter { abs($0.bpm / truth - 0.5) <= 0.05 || abs($0.bpm / truth - 2) <= 0.2 }
    }

    @Test(arguments: rates)
    func noReportedRateIsHalfOrDouble(bpm: Double) {
        let bad = Self.halfOrDoubleReports(bpm: bpm)
        #expect(bad.isEmpty, "\(bpm) bpm: half/double-rate reports \(bad.map { "\($0.bpm) bpm at \($0.time) s" })")
    }

    @Test
    func rmssdIsWithinFivePercentOnACleanFinger() {
        // The same measure without impairments: timing precision of confirmed beats alone.
        var settings = SimulatedFinger.Settings.ideal
        settings.bpm = 75
        settings.seed = 3
        settings.intervalVariability = 0.04 * 60 / 75
        var finger = SimulatedFinger(settings: settings)
        let analysis = PulseAnalysis.run(finger.inputs(duration: 120), sampleRate: 30)
        let truth = SimulatedFinger.beats(settings: settings, until: 120).filter { $0.onset > 15 && $0.onset < 115 }
        let trueIntervals = zip(truth, truth.dropFirst()).map { ($1.onset - $0.onset) * 1000 }
        let expected = HRV.measures(intervals: trueIntervals).measures.rmssd
        let measured = HRV.measures(beatTimes: analysis.beats.filter { $0.time > 15 && $0.time < 115 }.map(\.time)).measures.rmssd
        #expect(abs(measured / expected - 1) <= 0.05, "RMSSD \(measured) ms, truth \(expected) ms")
    }
}

/// A motion spike in the first window after contact, where no rate history outvotes it.
@Suite struct FirstRateAfterASpikeTests {
    /// First rates of a clean simulated PPG at 60, 100, 140 and 180 bpm with one motion spike (4 pulse
    /// amplitudes, 0.3 s, raised cosine) put at 40 places through the first 5 s: how many are more than
    /// 5 bpm off, and how many come after 6 s or not at all.
    static func firstRates(outlierEdge: Double) -> (wrong: Int, late: Int) {
        var wrong = 0, late = 0
        for bpm in [60.0, 100.0, 140.0, 180.0] {
            for k in 0..<40 {
                let inputs = Self.spikedPPG(bpm: bpm, seconds: 8, spikes: [0.2 + Double(k) * 0.12])
                var settings = PulseAnalyzer.Settings()
                settings.tracker.outlierEdge = outlierEdge
                guard let first = PulseAnalysis.run(inputs, sampleRate: 30, settings: settings).rates.first else {
                    late += 1
                    continue
                }
                if abs(first.bpm - bpm) > 5 { wrong += 1 } else if first.time > 6.05 { late += 1 }
            }
        }
        return (wrong, late)
    }

    /// The simulator's settings for a clean PPG at `bpm` (30 Hz, no motion spikes; jitter, drops,
    /// drift and noise as by default).
    static func cleanPPG(bpm: Double, seed: UInt64) -> SimulatedFinger.Settings {
        var s = SimulatedFinger.Settings()
        s.bpm = bpm
        s.frameRate = 30
        s.seed = seed
        s.output = .ppg
        s.motionSpikesPerMinute = 0
        return s
    }

    /// A clean simulated PPG at `bpm` (seed 7, 30 Hz) with a motion spike (4 pulse amplitudes, 0.3 s,
    /// raised cosine) starting at each of `spikes` (seconds).
    static func spikedPPG(bpm: Double, seconds: Double, spikes: [Double], sign: Double = 1) -> [PulseInput] {
        var finger = SimulatedFinger(settings: cleanPPG(bpm: bpm, seed: 7))
        return finger.inputs(duration: seconds).map { input -> PulseInput in
            guard case .ppg(let t, let v) = input else { return input }
            let spike = spikes.reduce(0.0) { sum, at in
                let d = t - at
                return sum + (d >= 0 && d < 0.3 ? 2 * (1 - cos(2 * Double.pi * d / 0.3)) : 0)
            }
            return .ppg(time: t, value: v + sign * spike)
        }
    }

    /// Rates over 30 s of a 40-bpm pulse (its second harmonic nearly as strong as the fundamental)
    /// with spikes at `spikes`.
    static func slowPulseRates(spikes: [Double]) -> [RateEstimate] {
        PulseAnalysis.run(spikedPPG(bpm: 40, seconds: 30, spikes: spikes), sampleRate: 30).rates
    }

    /// Spikes in later windows are dropped from the spectrum too. Clipped to three deviations, as
    /// they were, a spike stays as a plateau whose broad spectrum leans to a slow pulse's harmonic:
    /// updates were declined for 11 s ([4.5, 10]) or reported at 55-60 bpm (below) until the spikes
    /// left the window.
    @Test(arguments: [[3.75, 11.2], [1, 7.5], [4.5, 10]])
    func spikesInLaterWindowsDoNotMoveASlowPulseToItsHarmonic(spikes: [Double]) {
        let rates = Self.slowPulseRates(spikes: spikes)
        let first = try! #require(rates.first, "no rate in 30 s")
        #expect(first.time <= 8, "first rate at \(first.time) s")
        #expect(rates.allSatisfy { abs($0.bpm - 40) <= 5 }, "\(rates.map { Int($0.bpm.rounded()) })")
        let longestSilence = zip(rates, rates.dropFirst()).map { $1.time - $0.time }.max() ?? 0
        #expect(longestSilence <= 4, "no rate for \(longestSilence) s")
    }

    /// Two spikes 1 s apart and a third 8 s later: while two of the first window's three stretches
    /// hold a spike, the spikes are the window's typical peak and are only clipped. One update
    /// reads 55 bpm and the next nine are declined; clipped as before, six read 55-60 bpm.
    @Test func spikesASecondApartAreDeclinedRatherThanMisread() {
        let rates = Self.slowPulseRates(spikes: [3, 4, 12])
        #expect(rates.filter { abs($0.bpm - 40) > 5 }.count <= 1, "\(rates.map { Int($0.bpm.rounded()) })")
    }

    /// Dropping each outlier's whole excursion, not just its samples past three deviations, halves
    /// the wrong and late first rates (10 of 160 when the flanks stay: 6 wrong, 4 late).
    @Test func aSpikesFlanksAreDroppedWithIt() {
        let withEdge = Self.firstRates(outlierEdge: RateTracker.Settings().outlierEdge)
        let flanksKept = Self.firstRates(outlierEdge: .infinity)
        #expect(withEdge.wrong <= 2 && withEdge.wrong + withEdge.late <= 4, "\(withEdge)")
        #expect(flanksKept.wrong + flanksKept.late >= 2 * (withEdge.wrong + withEdge.late), "\(flanksKept) vs \(withEdge)")
    }
}

/// A motion spike next to a slow pulse's beat: the beats after it are still shown live.
@Suite struct LiveBeatsAfterASpikeTests {
    /// Live beats missed among the three true beats after a spike (4 pulse amplitudes, 0.3 s, upward
    /// or, `sign` -1, downward) put at 15 places through one period of a clean 40-bpm PPG, summed
    /// over the places.
    static func missedAfterSpikes(_ settings: PulseAnalyzer.Settings, sign: Double = 1) -> Int {
        let truth = SimulatedFinger.beats(settings: FirstRateAfterASpikeTests.cleanPPG(bpm: 40, seed: 7), until: 30)
        var missed = 0
        for k in 0..<15 {
            let at = 15 + Double(k) * 0.1
            var live: [Double] = []
            _ = PulseAnalysis.run(FirstRateAfterASpikeTests.spikedPPG(bpm: 40, seconds: 30, spikes: [at], sign: sign),
                                  sampleRate: 30, settings: settings) { event in
                if case .beat(let b) = event { live.append(b.time) }
            }
            for t in truth.filter({ $0.onset > at + 0.3 }).prefix(3)
            where !live.contains(where: { $0 > t.onset - 0.05 && $0 < t.peak + 0.05 }) {
                missed += 1
            }
        }
        return missed
    }

    /// Measured, upward spikes: 2 of the 45 beats (12 without the limiter and with the reward cap at
    /// 2, as before 2026-11-25; 1 with the limiter alone, 3 with the cap alone). Downward: 5 (13 as
    /// before; 7 when a live beat had to follow its predecessor on the best sequence, whatever the
    /// last beat shown).
    @Test func theBeatsAfterASpikeAreShown() {
        #expect(Self.missedAfterSpikes(PulseAnalyzer.Settings()) <= 3)
        #expect(Self.missedAfterSpikes(PulseAnalyzer.Settings(), sign: -1) <= 5)
        var before = PulseAnalyzer.Settings()
        before.excursionLimit = .infinity
        before.beatTracker.maximumReward = 2
        #expect(Self.missedAfterSpikes(before) >= 8, "the case this guards no longer shows the problem")
        #expect(Self.missedAfterSpikes(before, sign: -1) >= 8, "the case this guards no longer shows the problem")
    }
}

/// A lasting step in the signal (the finger pressed harder, the exposure changed) is not a spike:
/// the beat band's spike limiter costs no beat after it. (A first version crept toward a 10⁶ step
/// for 13 s, its bound growing e-fold a second, and lost the beats meanwhile.)
@Suite struct BeatsAfterAStepTests {
    /// The true beats with onsets in 16-37 s of a clean 72-bpm PPG stepped by `step` at 15 s, and
    /// those of them found with `settings`.
    static func beatsAfterAStep(_ step: Double, settings: PulseAnalyzer.Settings) -> (found: Int, truth: Int) {
        let s = FirstRateAfterASpikeTests.cleanPPG(bpm: 72, seed: 5)
        var finger = SimulatedFinger(settings: s)
        let inputs = finger.inputs(duration: 40).map { input -> PulseInput in
            guard case .ppg(let t, let v) = input, t >= 15 else { return input }
            return .ppg(time: t, value: v + step)
        }
        let beats = PulseAnalysis.run(inputs, sampleRate: 30, settings: settings).beats.map(\.time)
        let truth = SimulatedFinger.beats(settings: s, until: 40).filter { $0.onset > 16 && $0.onset < 37 }
        return (truth.filter { t in beats.contains { $0 > t.onset - 0.05 && $0 < t.peak + 0.05 } }.count, truth.count)
    }

    /// Measured: 25 of 25 after a step of 20 pulse amplitudes, 20 of 25 after 10⁶ (the band-pass
    /// rings for 5 s after such a step, limiter or not).
    @Test(arguments: [20.0, 1e6])
    func theBeatsAfterAStepAreFound(step: Double) {
        var off = PulseAnalyzer.Settings()
        off.excursionLimit = .infinity
        let with = Self.beatsAfterAStep(step, settings: PulseAnalyzer.Settings())
        let without = Self.beatsAfterAStep(step, settings: off)
        #expect(with.found >= without.found, "\(with) with the limiter, \(without) without")
        if step < 100 { #expect(with.found >= with.truth - 1, "\(with)") }
    }
}
