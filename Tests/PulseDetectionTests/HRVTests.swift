import Foundation
import SignalProcessing
import Testing
@testable import PulseDetection

/// Beat times (s) from intervals (ms), first beat at `start`.
private func beatTimes(_ intervals: [Double], start: Double = 0.5) -> [Double] {
    var t = start
    return [start] + intervals.map { t += $0 / 1000; return t }
}

/// 300 intervals: 1000 ms ± 40 ms at 0.2 beat⁻¹ (HF, breathing), ± 25 ms at 0.08 beat⁻¹ (LF) and a
/// deterministic ±6 ms saw-tooth. The HeartPy numbers below were computed from exactly this series.
private func heartPyReferenceIntervals() -> [Double] {
    (0..<300).map { k in
        let kd = Double(k)
        return 1000 + 40 * sin(2 * Double.pi * 0.2 * kd) + 25 * sin(2 * Double.pi * 0.08 * kd)
            + 6 * Double((k * 37) % 11 - 5) / 5
    }
}

@Suite struct HRVTimeDomainTests {
    @Test func steppedIntervalsGiveAnalyticMeasures() {
        // 820, 880, 940, 880, ... (30 cycles): every successive difference is 60 ms.
        let cycle: [Double] = [820, 880, 940, 880]
        let rr = (0..<120).map { cycle[$0 % 4] }
        let r = HRV.measures(intervals: rr)
        #expect(r.rejected.isEmpty)
        let m = r.measures
        #expect(abs(m.ibi - 880) < 1e-9)
        #expect(abs(m.bpm - 60_000 / 880) < 1e-9)
        #expect(abs(m.sdnn - 1800.0.squareRoot()) < 1e-9)   // √((60² + 0 + 60² + 0) / 4)
        #expect(abs(m.rmssd - 60) < 1e-9)
        #expect(abs(m.sdsd) < 1e-9)
        #expect(m.pnn20 == 1 && m.pnn50 == 1)
        #expect(abs(m.hrMAD - 30) < 1e-9)                   // median of |x - 880| = {60, 0, 60, 0}
    }

    @Test func poincareOfSteppedIntervalsIsAnalytic() {
        // 121 intervals give 120 pairs, i.e. whole cycles of (820,880) (880,940) (940,880) (880,820):
        // (a - b)/√2 = ∓60/√2 and (a + b)/√2 = {1700, 1820, 1820, 1700}/√2, so sd1 = sd2 = 60/√2.
        let cycle: [Double] = [820, 880, 940, 880]
        let m = HRV.measures(intervals: (0..<121).map { cycle[$0 % 4] }).measures
        let expected = 60 / 2.0.squareRoot()
        #expect(abs(m.sd1 - expected) < 1e-9)
        #expect(abs(m.sd2 - expected) < 1e-9)
        #expect(abs(m.s - Double.pi * expected * expected) < 1e-6)
        #expect(abs(m.sd1sd2 - 1) < 1e-12)
    }

    @Test func differencesOfExactlyFiftyDoNotCountForPNN50() {
        // 800, 850, 900, 850, ...: successive differences of exactly 50 ms; HeartPy counts d > 50.
        let cycle: [Double] = [800, 850, 900, 850]
        let m = HRV.measures(intervals: (0..<80).map { cycle[$0 % 4] }).measures
        #expect(abs(m.rmssd - 50) < 1e-9)
        #expect(m.pnn20 == 1 && m.pnn50 == 0)
    }

    @Test(arguments: [10.0, 40.0, 80.0])
    func sinusoidalIntervalsGiveAnalyticRMSSDAndSDNN(amplitude a: Double) {
        // rr[k] = 900 + a sin(2π k / 8): successive differences 2a sin(π/8) cos(...), so
        // RMSSD = √2 a sin(π/8); SDNN (population, whole periods) = a / √2.
        let rr = (0..<400).map { 900 + a * sin(2 * Double.pi * Double($0) / 8) }
        let m = HRV.measures(beatTimes: beatTimes(rr)).measures
        let rmssd = 2.0.squareRoot() * a * sin(Double.pi / 8)
        #expect(abs(m.rmssd - rmssd) / rmssd < 0.001)
        #expect(abs(m.sdnn - a / 2.0.squareRoot()) / (a / 2.0.squareRoot()) < 0.001)
    }

    @Test func beatTimesAndIntervalsGiveTheSameMeasures() {
        let rr = heartPyReferenceIntervals()
        let a = HRV.measures(intervals: rr).measures.dictionary
        let b = HRV.measures(beatTimes: beatTimes(rr, start: 12.25)).measures.dictionary
        #expect(Set(a.keys) == Set(b.keys))
        for (k, v) in a { #expect(abs(v - b[k]!) <= 1e-6 * max(1, abs(v)), "\(k)") }
    }
}

@Suite struct HRVHeartPyCrossCheckTests {
    // Expected values: HeartPy 1.2.7 (PyPI; its __version__ reads 1.2.6), `hp.process_rr(list(rr), calc_freq=True, square_spectrum=False)`
    // on heartPyReferenceIntervals() (numpy 2.4.6 / scipy 1.17.1, with `np.trapz = np.trapezoid` because
    // numpy 2.4 removed trapz). Time-domain and Poincaré definitions are identical, so they agree to
    // rounding. LF/HF differ by construction (HeartPy: cubic smoothing spline, 4 samples per mean beat;
    // here: natural cubic spline at 4 Hz — the same rate at this 60 bpm mean), hence 3 %.
    static let heartPy: [String: Double] = [
        "bpm": 60.0007200086401, "ibi": 999.988, "sdnn": 33.529736791973555, "sdsd": 16.99104161693264,
        "rmssd": 34.89331164784061, "pnn20": 0.7090301003344481, "pnn50": 0.1605351170568562,
        "hr_mad": 21.752497955483648, "sd1": 24.67311151063549, "sd2": 40.49538314366996,
        "s": 3138.9132016866565, "sd1/sd2": 0.6092820858886544, "breathingrate": 0.2,
        "lf": 315.0069116452633, "hf": 797.2920279514635, "lf/hf": 0.3950960257995203,
    ]

    @Test func timeDomainAndPoincareMatchHeartPy() {
        let r = HRV.measures(intervals: heartPyReferenceIntervals())
        #expect(r.rejected.isEmpty)
        let d = r.measures.dictionary
        for name in ["bpm", "ibi", "sdnn", "sdsd", "rmssd", "pnn20", "pnn50", "hr_mad", "sd1", "sd2", "s", "sd1/sd2"] {
            #expect(abs(d[name]! - Self.heartPy[name]!) <= 1e-9 * abs(Self.heartPy[name]!), "\(name)")
        }
    }

    @Test func frequencyDomainAndBreathingRateMatchHeartPy() {
        let d = HRV.measures(intervals: heartPyReferenceIntervals()).measures.dictionary
        #expect(abs(d["breathingrate"]! - 0.2) < 1e-9)
        for name in ["lf", "hf", "lf/hf"] {
            #expect(abs(d[name]! - Self.heartPy[name]!) <= 0.03 * Self.heartPy[name]!, "\(name): \(d[name]!)")
        }
        // And against the analytic band powers of the two sinusoids, A²/2: 312.5 and 800 ms².
        #expect(abs(d["lf"]! - 312.5) < 0.03 * 312.5)
        #expect(abs(d["hf"]! - 800) < 0.03 * 800)
    }
}

@Suite struct HRVHeartPyAt80BPMTests {
    @Test func spectralMeasuresMatchHeartPyAwayFromSixtyBPM() {
        // 400 intervals around 750 ms (80 bpm), where HeartPy resamples at 4 per mean beat (5.33 Hz)
        // and we at 4 Hz. HeartPy 1.2.7 process_rr (as above) gave rmssd 26.2314, sdnn 25.7713,
        // breathingrate 0.2667, lf 200.84, hf 447.3577, lf/hf 0.4489.
        let rr = (0..<400).map { k -> Double in
            let kd = Double(k)
            return 750 + 30 * sin(2 * Double.pi * 0.2 * kd) + 20 * sin(2 * Double.pi * 0.06 * kd)
                + 6 * Double((k * 37) % 11 - 5) / 5
        }
        let m = HRV.measures(intervals: rr).measures
        #expect(abs(m.rmssd - 26.2314) < 1e-3)
        #expect(abs(m.sdnn - 25.7713) < 1e-3)
        #expect(abs(m.breathingRate - 0.2667) < 1e-3)
        #expect(abs(m.lf - 200.84) < 0.03 * 200.84)
        #expect(abs(m.hf - 447.3577) < 0.03 * 447.3577)
        #expect(abs(m.lfhf - 0.4489) < 0.03 * 0.4489)
    }
}

@Suite struct HRVHeartPyPowerTests {
    /// 500 intervals around 900 ms (450 s) with waves in each band: 30 ms at 0.02 Hz (VLF), 25 at 0.1 Hz
    /// (LF) and 35 at 0.25 Hz (HF), in time, plus a small deterministic jitter.
    private func threeBandRhythm(count: Int = 500) -> [Double] {
        var t = 0.0
        return (0..<count).map { k in
            let v = 900 + 35 * sin(2 * Double.pi * 0.25 * t) + 25 * sin(2 * Double.pi * 0.1 * t)
                + 30 * sin(2 * Double.pi * 0.02 * t) + 6 * Double((k * 37) % 11 - 5) / 5
            t += v / 1000
            return v
        }
    }

    @Test func veryLowFrequencyTotalAndRelativePowersMatchHeartPy() {
        // HeartPy 1.2.7 `process_rr(rr, calc_freq=True, square_spectrum=False)` on the same intervals
        // (numpy 2.4 with `np.trapz = np.trapezoid`); its resampling at 4 per mean beat (4.44 Hz) against
        // our 4 Hz, hence 3 %.
        let heartPy: [String: Double] = [
            "vlf": 450.07920648973663, "lf": 326.7308307691729, "hf": 600.2248076895364, "p_total": 1377.0348449484459,
            "vlf_perc": 32.68466358282945, "lf_perc": 23.727128762773262, "hf_perc": 43.5882076543973,
            "lf_nu": 35.247731090178476, "hf_nu": 64.75226890982152,
        ]
        let m = HRV.measures(intervals: threeBandRhythm()).measures
        for (name, value) in heartPy { #expect(abs(m[name]! - value) <= 0.03 * value, "\(name): \(m[name]!)") }
        // The 0.02-Hz wave's power, A²/2 = 450 ms², is VLF's; the parts add up.
        #expect(abs(m.vlf - 450) < 0.03 * 450)
        #expect(abs(m.pTotal - (m.vlf + m.lf + m.hf)) < 1e-9 * m.pTotal)
        #expect(abs(m.vlfPercent + m.lfPercent + m.hfPercent - 100) < 1e-9)
        #expect(abs(m.lfNU + m.hfNU - 100) < 1e-9 && abs(m.lfNU - 100 * m.lf / (m.lf + m.hf)) < 1e-9)
    }

    @Test func veryLowFrequencyNeedsFiveMinutes() {
        // 280 s of the same rhythm: LF, HF and their normalised units, but no VLF, total or percentages
        // (HeartPy reports them from the two bins below 0.04 Hz such a series has).
        let m = HRV.measures(intervals: threeBandRhythm(count: 310)).measures
        #expect(m.lf.isFinite && m.hf.isFinite && m.lfNU.isFinite && m.hfNU.isFinite)
        #expect(m.vlf.isNaN && m.pTotal.isNaN && m.vlfPercent.isNaN && m.lfPercent.isNaN && m.hfPercent.isNaN)
        #expect(m.dictionary["vlf"] == nil && m.dictionary["lf_nu"] != nil)
    }
}

@Suite struct HRVArtefactTests {
    /// Clean series with respiratory sinus arrhythmia of ±8 % around 800 ms.
    static func clean(_ n: Int = 200) -> [Double] {
        (0..<n).map { 800 + 64 * sin(2 * Double.pi * Double($0) / 4.5) }
    }

    @Test func cleanSeriesWithStrongSinusArrhythmiaKeepsEveryInterval() {
        #expect(HRV.measures(intervals: Self.clean()).rejected.isEmpty)
    }

    @Test func prematureBeatRejectsTheShortAndTheCompensatoryInterval() {
        var rr = Self.clean()
        let total = rr[50] + rr[51]
        rr[50] = 0.65 * rr[50]   // the ectopic beat comes 35 % early
        rr[51] = total - rr[50]  // full compensatory pause
        let r = HRV.measures(intervals: rr)
        #expect(r.rejected.map(\.index) == [50, 51])
        // Strong sinus arrhythmia widens the pair rule's threshold; the 20 % rule catches both.
        #expect(r.rejected.allSatisfy { $0.reason == .deviatesFromNeighbours || $0.reason == .ectopicOrMisplacedBeat })
        // Excluding them keeps RMSSD within 5 % of the clean series' (only diffs touching 50, 51 go).
        let clean = HRV.measures(intervals: Self.clean()).measures.rmssd
        #expect(abs(r.measures.rmssd - clean) / clean < 0.05)
    }

    @Test func missedAndExtraBeatsAreRejected() {
        var rr = Self.clean()
        rr[80] += rr[81]          // missed beat: one double interval
        rr.remove(at: 81)
        let split = rr[120]
        rr[120] = 0.4 * split     // false extra beat splits an interval
        rr.insert(0.6 * split, at: 121)
        let r = HRV.measures(intervals: rr)
        #expect(r.rejected.map(\.index) == [80, 120, 121])
    }

    @Test func implausibleIntervalsAreOutOfRange() {
        var rr = Self.clean(60)
        rr[10] = 3500   // a 3.5 s gap in detection
        rr[30] = 120    // 500 bpm
        let r = HRV.measures(intervals: rr)
        #expect(r.rejected.map(\.index) == [10, 30])
        #expect(r.rejected.allSatisfy { $0.reason == .outOfRange })
        #expect(r.accepted.filter { !$0 }.count == 2)
    }

    /// A run of excluded beats (say, upstrokes at half the rate found while the rate was declined)
    /// is no reference for the interval before it: a 1250-ms interval followed by twelve excluded
    /// beats about 1200 ms apart and then 80 beats about 600 ms apart was accepted (SDNN 73 ms) while
    /// the excluded run made up its neighbours.
    @Test func excludedBeatsDoNotVouchForTheirNeighbours() {
        var rr: [Double] = [1250]
        rr += (0..<12).map { 1200 + 10 * sin(Double($0)) }
        rr += (0..<80).map { 600 + 8 * sin(Double($0) * 1.3) }
        let times = beatTimes(rr)
        let r = HRV.measures(beatTimes: times, excludedBeats: Array(2...13))
        #expect(r.rejected.first?.index == 0)
        #expect(r.rejected.first?.reason == .deviatesFromNeighbours)
        #expect(r.measures.sdnn < 15)
    }

    @Test func excludedBeatsRemoveBothTheirIntervals() {
        let times = beatTimes(Self.clean(60))
        let r = HRV.measures(beatTimes: times, excludedBeats: [20])
        #expect(r.rejected.map(\.index) == [19, 20])
        #expect(r.rejected.allSatisfy { $0.reason == .excludedBeat })
    }

    /// Indices that are not beats' are ignored, however far out (Int.min trapped subtracting one).
    @Test func excludedIndicesOutsideTheBeatsAreIgnored() {
        let times = beatTimes(Self.clean(60))
        let clean = HRV.measures(beatTimes: times)
        let r = HRV.measures(beatTimes: times, excludedBeats: [Int.min, -1, times.count, Int.max])
        #expect(r.rejected == clean.rejected && r.measures.rmssd == clean.measures.rmssd)
        #expect(HRV.measures(beatTimes: times, excludedBeats: [0]).rejected.map(\.index) == [0])
        #expect(HRV.measures(beatTimes: times, excludedBeats: [times.count - 1]).rejected.map(\.index) == [times.count - 2])
    }
}

@Suite struct HRVAvailabilityTests {
    @Test func tooFewBeatsGiveNaNNotNumbers() {
        #expect(HRV.measures(beatTimes: []).measures.dictionary.isEmpty)
        #expect(HRV.measures(beatTimes: [1.0]).measures.dictionary.isEmpty)
        // Up to three intervals none can be judged against the others: rejected, not trusted.
        for times in [[1.0, 1.8], [1.0, 1.8, 2.6], [1.0, 1.8, 2.6, 3.4]] {
            let r = HRV.measures(beatTimes: times)
            #expect(r.measures.dictionary.isEmpty)
            #expect(r.rejected.allSatisfy { $0.reason == .tooFewToJudge })
        }
        let four = HRV.measures(beatTimes: [1.0, 1.8, 2.6, 3.4, 4.2]).measures.dictionary
        #expect(four["bpm"].map { abs($0 - 75) < 1e-9 } == true)
    }

    /// A missed beat among five intervals: judged against the other four (it was kept unjudged when
    /// five neighbours were required, and read SDNN 319 ms, RMSSD 560 ms).
    @Test func aShortSeriesStillHasItsArtefactsRejected() {
        let r = HRV.measures(intervals: [800, 810, 1600, 805, 795])
        #expect(r.rejected.map(\.index) == [2])
        #expect(r.rejected.first?.reason == .deviatesFromNeighbours)
        #expect(r.measures.sdnn < 6)
    }

    /// Constant or exactly alternating intervals have SD2 (or both SDs) at rounding noise: the ratio is
    /// undefined, not 0 or 1e14.
    @Test func sd1OverSd2IsUndefinedWhenTheSpreadsAreZero() {
        #expect(HRV.measures(intervals: [Double](repeating: 800, count: 20)).measures.sd1sd2.isNaN)
        #expect(HRV.measures(beatTimes: (0..<20).map { 0.4737 + Double($0) * 0.8 }).measures.sd1sd2.isNaN)
        #expect(HRV.measures(intervals: (0..<20).map { $0 % 2 == 0 ? 820 : 780 }).measures.sd1sd2.isNaN)
        let real = HRV.measures(intervals: (0..<40).map { 800 + 30 * sin(Double($0) * 1.1) }).measures
        #expect(real.sd1sd2.isFinite && abs(real.sd1sd2 - real.sd1 / real.sd2) < 1e-12)
    }

    /// An interval that is not a duration is accepted as input (and rejected): the result still
    /// encodes, with null where JSON has no number, and decodes back.
    @Test func resultsWithNaNIntervalsEncodeAsJSON() throws {
        var rr = (0..<30).map { 800 + 20 * sin(Double($0)) }
        rr[10] = .nan
        let r = HRV.measures(intervals: rr)
        let data = try JSONEncoder().encode(r)
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        #expect((object["intervals"] as? [Any])?[10] is NSNull)
        let back = try JSONDecoder().decode(HRVResult.self, from: data)
        #expect(back.intervals[10].isNaN && back.intervals[11] == rr[11])
        #expect(back.rejected.map(\.index) == r.rejected.map(\.index))
        #expect(back.rejected.map(\.reason) == r.rejected.map(\.reason))
        #expect(back.rejected.first { $0.index == 10 }?.reason == .outOfRange)
    }

    @Test func spectralMeasuresNeedFiftySecondsAndBreathingTwenty() {
        // 30 s of beats: breathing rate yes, LF/HF no; 60 s: both.
        let short = HRV.measures(intervals: [Double](repeating: 1000, count: 30).enumerated().map { 1000 + 30 * sin(Double($0.offset) * 1.6) })
        #expect(short.measures.breathingRate.isFinite)
        #expect(short.measures.lf.isNaN && short.measures.hf.isNaN && short.measures.lfhf.isNaN)
        let long = HRV.measures(intervals: (0..<60).map { 1000 + 30 * sin(Double($0) * 1.6) })
        #expect(long.measures.lf.isFinite && long.measures.hf.isFinite)
    }

    @Test func jsonUsesHeartPyNamesWithNullForMissing() throws {
        let r = HRV.measures(intervals: [800, 900, 800, 900, 850, 820])
        let data = try JSONEncoder().encode(r.measures)
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        #expect(Set(object.keys) == Set(HRVMeasures.names))
        #expect(object["lf/hf"] is NSNull)
        #expect((object["rmssd"] as? Double) == r.measures.rmssd)
        #expect(r.measures.rmssd.isFinite)
        let back = try JSONDecoder().decode(HRVMeasures.self, from: data)
        #expect(back.dictionary == r.measures.dictionary)
    }
}

@Suite struct HRVEctopicPairTests {
    @Test func slightlyPrematureBeatWithCompensatoryPauseIsRejectedAsAPair() {
        // 15 % premature in a calm rhythm (±2 % sinus arrhythmia): the 20 % rule alone would keep both.
        var rr = (0..<200).map { 800 + 16 * sin(2 * Double.pi * Double($0) / 4.5) }
        let total = rr[70] + rr[71]
        rr[70] *= 0.85
        rr[71] = total - rr[70]
        let r = HRV.measures(intervals: rr)
        #expect(r.rejected.map(\.index) == [70, 71])
        #expect(r.rejected.allSatisfy { $0.reason == .ectopicOrMisplacedBeat })
    }

    @Test func lateDetectedBeatIsRejectedAsAPair() {
        // A beat time detected 120 ms late: long then short, same sum.
        var times = beatTimes([Double](repeating: 750, count: 80).enumerated().map { 750 + 20 * sin(Double($0.offset)) })
        times[40] += 0.12
        let r = HRV.measures(beatTimes: times)
        #expect(r.rejected.map(\.index) == [39, 40])
        #expect(r.rejected.allSatisfy { $0.reason == .ectopicOrMisplacedBeat })
        #expect(r.ectopicBeats == [40])
    }

    /// 600 beats at 70 bpm with respiratory sinus arrhythmia of ±`arrhythmia` at 0.25 Hz and a ±2 %
    /// slow wave, every 12-27 beats a beat `prematurity` early with a full compensatory pause, and
    /// ±3 ms Gaussian beat-time noise. Returns (premature pairs caught, pairs, normal intervals
    /// rejected, RMSSD error against the sinus rhythm's own).
    static func prematureBeatSweep(arrhythmia: Double, prematurity: Double, seed: UInt64)
        -> (caught: Int, pairs: Int, falseRejections: Int, rmssdError: Double) {
        var g = SplitMix64(seed: seed)
        var t = 0.0
        var sinus: [Double] = []
        for _ in 0..<600 {
            let v = 857 * (1 + arrhythmia * sin(2 * Double.pi * 0.25 * t / 1000) + 0.02 * sin(2 * Double.pi * 0.08 * t / 1000 + 1))
            sinus.append(v)
            t += v
        }
        var rr = sinus
        var premature = [Bool](repeating: false, count: rr.count)
        var pairs: [Int] = []
        var k = 10
        while prematurity > 0 && k < rr.count - 10 {
            let mean = (rr[k] + rr[k + 1]) / 2
            rr[k] = mean * (1 - prematurity)
            rr[k + 1] = mean * (1 + prematurity)
            premature[k] = true
            premature[k + 1] = true
            pairs.append(k)
            k += 12 + Int(g.next() % 16)
        }
        var times: [Double] = []
        var clock = 0.0
        for v in rr {
            clock += v / 1000
            times.append(clock + 0.003 * g.gaussian())
        }
        let r = HRV.measures(beatTimes: times)
        // Beat-time interval i + 1 is rr[i + 1] (the first beat starts interval 0 of `times`).
        let rejected = Set(r.rejected.map { $0.index + 1 })
        let caught = pairs.filter { rejected.contains($0) && rejected.contains($0 + 1) }.count
        let falseRejections = rejected.filter { !premature[$0] }.count
        let sinusDiffs = zip(sinus, sinus.dropFirst()).map { $1 - $0 }
        let truth = (sinusDiffs.reduce(0) { $0 + $1 * $1 } / Double(sinusDiffs.count)).squareRoot()
        return (caught, pairs.count, falseRejections, r.measures.rmssd / truth - 1)
    }

    @Test(arguments: [0.0, 0.02, 0.04, 0.06])
    func prematureBeatsAreCaughtUnderSinusArrhythmia(arrhythmia: Double) {
        var caught = 0, pairs = 0, falseRejections = 0
        for seed in 0..<3 {
            let s = Self.prematureBeatSweep(arrhythmia: arrhythmia, prematurity: 0.15, seed: UInt64(seed))
            caught += s.caught
            pairs += s.pairs
            falseRejections += s.falseRejections
        }
        // Rejecting by the interval spread (5.2 MADs) caught 19 of 86 at ±4 % and none at ±6 %.
        #expect(Double(caught) >= 0.8 * Double(pairs), "caught \(caught) of \(pairs)")
        #expect(falseRejections == 0)
    }

    @Test(arguments: [0.0, 0.04, 0.06, 0.10])
    func sinusArrhythmiaWithBeatTimeNoiseKeepsEveryInterval(arrhythmia: Double) {
        for seed in 0..<3 {
            let s = Self.prematureBeatSweep(arrhythmia: arrhythmia, prematurity: 0, seed: UInt64(seed))
            #expect(s.falseRejections == 0)
        }
    }

    @Test func sustainedStepInRateIsNotAnArtefact() {
        // 900 ms for 60 beats then 700 ms (exercise onset): no interval is 10 % off in opposite
        // directions on consecutive beats with a compensating sum, and a step is not a spike.
        let rr = [Double](repeating: 900, count: 60) + [Double](repeating: 700, count: 60)
        let r = HRV.measures(intervals: rr)
        #expect(r.rejected.isEmpty)
    }
}

@Suite struct HRVSinusArrhythmiaTests {
    @Test(arguments: [3, 4, 5, 6, 8, 10, 13, 20], [0.02, 0.05, 0.08, 0.10])
    func sinusArrhythmiaIsNeverRejected(periodBeats: Int, amplitude: Double) {
        // Respiratory sinus arrhythmia: a sinusoidal modulation of up to ±10 % with any breathing
        // period from 3 to 20 beats, plus a slow ±3 % drift.
        let rr = (0..<300).map { k -> Double in
            let kd = Double(k)
            return 850 * (1 + amplitude * sin(2 * Double.pi * kd / Double(periodBeats) + 0.4)
                          + 0.03 * sin(2 * Double.pi * kd / 170))
        }
        #expect(HRV.measures(intervals: rr).rejected.isEmpty)
    }
}

@Suite struct HRVRobustnessTests {
    @Test func beatTimesThatGoBackwardsAreRejectedNotACrash() {
        var times = beatTimes((0..<120).map { 900 + 30 * sin(Double($0)) })
        times[60] = times[20]  // a timestamp jumps back 40 beats
        let r = HRV.measures(beatTimes: times)
        #expect(r.rejected.contains { $0.index == 59 && $0.reason == .outOfRange })
        #expect(r.measures.rmssd.isFinite && r.measures.lf.isFinite)
        #expect(HRV.measures(beatTimes: [0, 1, 2, .nan, 4, 5, 6, 7, 8]).measures.ibi == 1000)
    }

    @Test func anIntervalThatIsNotADurationBreaksTheSpectralSeriesThere() {
        // 300 intervals; entry 20 is NaN (then -1500, ...): the 279 after it still give LF and HF (a
        // NaN time used to spread to every later interval and leave no spectrum at all; after 10³⁰⁰
        // ms every later interval had the same time).
        let clean: [Double] = (0..<300).map { (k: Int) -> Double in
            900 + 40 * sin(Double(k) * 1.3) + 20 * sin(Double(k) * 0.3)
        }
        let reference = HRV.measures(intervals: Array(clean[21...])).measures
        for bad in [Double.nan, .infinity, -1500, 0, 1e300] {
            var rr = clean
            rr[20] = bad
            let r = HRV.measures(intervals: rr)
            #expect(r.rejected.contains { $0.index == 20 && $0.reason == .outOfRange })
            #expect(abs(r.measures.lf - reference.lf) <= 0.01 * reference.lf, "\(bad)")
            #expect(abs(r.measures.hf - reference.hf) <= 0.01 * reference.hf, "\(bad)")
        }
    }

    @Test func theSplineDoesNotBridgeAHoleLongerThanHalfTheSlowestPeriod() {
        // 80 s of beats, a 100-s hole (a gap in the recording), then 40 s of beats: the spectral
        // series is the 80-s stretch, not 220 s of interpolation across the hole.
        let first = beatTimes((0..<80).map { 1000 + 30 * sin(Double($0)) })
        let second = beatTimes((0..<40).map { 1000 + 30 * sin(Double($0)) }, start: first.last! + 100)
        let r = HRV.measures(beatTimes: first + second)
        let accepted = r.accepted
        let times = (1..<(first.count + second.count)).map { (first + second)[$0] - first[0] }
        let series = try! #require(HRV.resampledNN(intervals: r.intervals, times: times, accepted: accepted))
        #expect(Double(series.values.count) / HRV.resamplingRate < 81)
        #expect(r.measures.lf.isFinite)
    }

    @Test func aGapOfYearsBetweenBeatsGivesMeasuresNotAnAllocationFailure() {
        // Before: the 4 Hz grid spanned the gap, 4e9 samples (32 GB), and the process died.
        let first = beatTimes((0..<80).map { 1000 + 30 * sin(Double($0)) })
        let second = beatTimes((0..<80).map { 1000 + 30 * sin(Double($0)) }, start: first.last! + 1e9)
        let m = HRV.measures(beatTimes: first + second).measures
        #expect(m.rmssd.isFinite && m.lf.isFinite && m.breathingRate.isFinite)
        let viaIntervals = HRV.measures(intervals: (0..<80).map { 1000 + 30 * sin(Double($0)) } + [1e12]
                                        + (0..<80).map { 1000 + 30 * sin(Double($0)) }).measures
        #expect(viaIntervals.lf.isFinite)
    }

    @Test func threeMillisecondTimingJitterChangesRMSSDByLessThanFivePercent() {
        // Timing noise of σ adds about 6σ² to RMSSD² (each difference involves three beat times);
        // ±3 ms uniform jitter (σ = √3 ms) on a series with RMSSD ≈ 25 ms moves it by ~1.5 %.
        var g = SplitMix64(seed: 11)
        let rr = (0..<600).map { _ in 800 + 18 * g.gaussian() }
        let exact = HRV.measures(intervals: rr).measures.rmssd
        let times = beatTimes(rr).map { $0 + Double.random(in: -0.003...0.003, using: &g) }
        let jittered = HRV.measures(beatTimes: times).measures.rmssd
        #expect(exact > 20 && exact < 30)
        #expect(abs(jittered - exact) / exact < 0.05)
    }
}

@Test func intervalsThatDoNotVaryHaveNoBreathingRateAndNoLFHFRatio() {
    // 120 s of exactly 1000-ms intervals but for two slightly off at the ends: the spectra hold only
    // rounding error, which must not come out as a breathing rate at the band's edge or an LF/HF.
    var intervals = [Double](repeating: 1000, count: 120)
    intervals[0] = 1003
    intervals[119] = 998
    let m = HRV.measures(intervals: intervals).measures
    #expect(m.breathingRate.isNaN)
    #expect(m.lfhf.isNaN)
    #expect(m.lf < 1e-3 && m.hf < 1e-3)
}

@Test func aBreathingRateInsideTheBandIsStillFound() {
    // Respiratory sinus arrhythmia at 0.25 Hz: ±40 ms on 1-s intervals for 3 minutes.
    var t = 0.0
    let intervals = (0..<180).map { _ -> Double in
        let v = 1000 + 40 * sin(2 * Double.pi * 0.25 * t)
        t += v / 1000
        return v
    }
    let m = HRV.measures(intervals: intervals).measures
    #expect(abs(m.breathingRate - 0.25) < 0.02)
    #expect(m.lfhf.isFinite)
}

@Test(arguments: [0.1, 0.4])
func breathingAtTheBandsEdgeIsStillFound(rate: Double) {
    // Paced breathing at 6 breaths a minute (0.1 Hz), or fast breathing at 24 (0.4 Hz): the peak
    // sits in the band's first or last bin and is a real maximum.
    var t = 0.0
    let intervals = (0..<240).map { _ -> Double in
        let v = 1000 + 40 * sin(2 * Double.pi * rate * t)
        t += v / 1000
        return v
    }
    let m = HRV.measures(intervals: intervals).measures
    #expect(abs(m.breathingRate - rate) < 0.02)
}

/// A heartbeat series as HealthKit keeps Apple Watch's: the interval ending at a beat after a gap is
/// kept out, however normal it looks, and does not vouch for its neighbours; a gap flag on the first
/// beat has nothing before it.
@Test func aHeartbeatSeriesLeavesOutTheIntervalAcrossEachGap() {
    let times = beatTimes(heartPyReferenceIntervals())
    let plain = HRV.measures(beatTimes: times)
    #expect(plain.rejected.isEmpty)
    let beats = times.enumerated().map { (time: $0.element, precededByGap: $0.offset == 0 || $0.offset == 120) }
    let r = HRV.measures(heartbeats: beats)
    #expect(r.rejected == [RejectedInterval(index: 119, intervalMs: r.intervals[119], reason: .excludedBeat)])
    #expect(r.intervals == plain.intervals)
    // The same as excluding nothing but that interval: RMSSD over the differences that do not touch it.
    let differences = zip(r.intervals[..<118], r.intervals[1..<119]).map { $1 - $0 }
        + zip(r.intervals[120...], r.intervals[121...]).map { $1 - $0 }
    let rmssd = (differences.map { $0 * $0 }.reduce(0, +) / Double(differences.count)).squareRoot()
    #expect(abs(r.measures.rmssd - rmssd) < 1e-9, "\(r.measures.rmssd) vs \(rmssd)")
    #expect(abs(r.measures.sdnn - plain.measures.sdnn) < 0.5 && r.measures.sdnn != plain.measures.sdnn)
    #expect(HRV.measures(heartbeats: [(time: 1, precededByGap: true)]).intervals.isEmpty)
}
