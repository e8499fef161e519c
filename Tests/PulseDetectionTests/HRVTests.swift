import Foundation
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
    @Test func alternatingIntervalsGiveAnalyticMeasures() {
        // 800, 900, 800, ...: every successive difference is 100 ms.
        let rr = (0..<120).map { $0 % 2 == 0 ? 800.0 : 900.0 }
        let r = HRV.measures(intervals: rr)
        #expect(r.rejected.isEmpty)
        let m = r.measures
        #expect(abs(m.ibi - 850) < 1e-9)
        #expect(abs(m.bpm - 60_000 / 850) < 1e-9)
        #expect(abs(m.sdnn - 50) < 1e-9)
        #expect(abs(m.rmssd - 100) < 1e-9)
        #expect(abs(m.sdsd) < 1e-9)
        #expect(m.pnn20 == 1 && m.pnn50 == 1)
        #expect(abs(m.hrMAD - 50) < 1e-9)
        // Poincaré: 119 pairs, (a - b)/√2 = ±c with c = 100/√2 (60 of one sign, 59 of the other), so
        // sd1 = c √(1 - 1/119²); (a + b)/√2 = 1700/√2 is constant, so sd2 = 0.
        let c = 100 / 2.0.squareRoot()
        #expect(abs(m.sd1 - c * (1 - 1 / (119.0 * 119)).squareRoot()) < 1e-9)
        #expect(abs(m.sd2) < 1e-9)
    }

    @Test func smallSuccessiveDifferencesCountForPNN20NotPNN50() {
        let rr = (0..<60).map { $0 % 2 == 0 ? 1000.0 : 1030.0 }
        let m = HRV.measures(intervals: rr).measures
        #expect(abs(m.rmssd - 30) < 1e-9)
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
    // Expected values: HeartPy 1.2.6, `hp.process_rr(list(rr), calc_freq=True, square_spectrum=False)`
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
        #expect(r.rejected.allSatisfy { $0.reason == .deviatesFromNeighbours })
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

    @Test func excludedBeatsRemoveBothTheirIntervals() {
        let times = beatTimes(Self.clean(60))
        let r = HRV.measures(beatTimes: times, excludedBeats: [20])
        #expect(r.rejected.map(\.index) == [19, 20])
        #expect(r.rejected.allSatisfy { $0.reason == .excludedBeat })
    }
}

@Suite struct HRVAvailabilityTests {
    @Test func tooFewBeatsGiveNaNNotNumbers() {
        #expect(HRV.measures(beatTimes: []).measures.dictionary.isEmpty)
        #expect(HRV.measures(beatTimes: [1.0]).measures.dictionary.isEmpty)
        let one = HRV.measures(beatTimes: [1.0, 1.8]).measures.dictionary
        #expect(Set(one.keys) == ["bpm", "ibi", "hr_mad"])
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
        let r = HRV.measures(intervals: [800, 900, 800, 900])
        let data = try JSONEncoder().encode(r.measures)
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        #expect(Set(object.keys) == Set(HRVMeasures.names))
        #expect(object["lf/hf"] is NSNull)
        #expect((object["rmssd"] as? Double) == 100)
        let back = try JSONDecoder().decode(HRVMeasures.self, from: data)
        #expect(back.dictionary == r.measures.dictionary)
    }
}
