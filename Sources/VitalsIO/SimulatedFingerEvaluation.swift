import PulseDetection
import SignalProcessing

/// Issue 2's simulated-finger figures: the pipeline on `SimulatedFinger` (PulseDetection) recordings at
/// 40-200 bpm with the simulator's default impairments (±3 ms timestamp jitter, 2 % dropped frames,
/// baseline drift, 2 motion spikes a minute) at 30 fps, against the simulator's true beats.
///
/// Three recordings per rate, each seeded (with `seed` 0, the same as `Tests/PulseDetectionTests`;
/// another `seed` gives other recordings of the same kind, as a held-out check would):
/// - 60 s, 1 % beat-to-beat variation (seed = bpm + 1000 `seed`): whole-recording rate, half/double-rate
///   reports, live beat latency (beats between 10 and 55 s);
/// - 45 s, the finger lifted off from 20 to 25 s (seed = bpm + 100 + 1000 `seed`): contact latency,
///   first rate after each contact;
/// - 320 s, 4 % variation (seed = bpm + 1000 `seed`): RMSSD over the 5 minutes from 15 to 315 s (the standard
///   short-term HRV recording, Task Force 1996) against the true intervals, and
///   confirmed beats that repeat an upstroke (closer than 50 ms) or go back in time.
///
/// Latency is measured in stream time: the time of the input whose processing emitted the event,
/// minus the time of what it reports (the contact change, the true systolic peak).
public enum SimulatedFingerEvaluation {
    /// The figures for one heart rate.
    public struct Case: Sendable {
        /// The simulator's nominal rate, bpm.
        public var bpm: Double
        /// The recording set (``evaluate(bpm:seed:analyzer:)``'s `seed`).
        public var seed: UInt64 = 0
        /// The true mean rate of the 60-s recording, bpm.
        public var truthBPM: Double
        /// The whole-recording answer, bpm (nil = declined).
        public var answeredBPM: Double?
        /// Reported rates within 10 % of half or of double the truth (``FingertipEvaluation/isHalfOrDouble(_:truth:)``).
        public var halfOrDoubleReports: Int
        /// Seconds from each contact found to the first rate after it (at the start, after the lift-off).
        public var firstRateDelays: [Double]
        /// First rates (as above) more than 5 bpm from the truth.
        public var firstRatesWrong: Int
        /// Seconds from each contact change (found, lost, found) to its event; NaN when one is missing.
        public var contactLatencies: [Double]
        /// True beats between 10 and 55 s, live beat events matched to them, and events matching none.
        public var trueBeats: Int
        public var beatsSeen: Int
        public var unmatchedBeats: Int
        /// Live beat event latency after the true systolic peak, seconds (median, largest).
        public var beatLatencyMedian: Double
        public var beatLatencyMax: Double
        /// RMSSD of the true intervals and of the confirmed beats, ms.
        public var rmssdTrue: Double
        public var rmssdMeasured: Double
        /// RMSSD of the true intervals at the places of the intervals HRV kept (both beats matched to
        /// consecutive true beats), ms: set beside ``rmssdMeasured`` it gives the error of the beat
        /// timing alone, apart from which intervals the artefact rules left out (NaN when none matched).
        public var rmssdTrueKept: Double = .nan
        /// Consecutive confirmed beats less than 50 ms apart (or going back in time).
        public var repeatedConfirmedBeats: Int

        /// Answer minus truth, bpm.
        public var rateError: Double? { answeredBPM.map { $0 - truthBPM } }
        /// measured / true - 1.
        public var rmssdError: Double { rmssdMeasured / rmssdTrue - 1 }
        /// measured / (true over the kept intervals) - 1: the timing's share of ``rmssdError``.
        public var rmssdTimingError: Double { rmssdMeasured / rmssdTrueKept - 1 }
    }

    /// 40, 50, ..., 200 bpm.
    public static let rates: [Double] = Array(stride(from: 40.0, through: 200.0, by: 10.0))

    /// The simulator settings of the recordings (see the type's notes).
    public static func settings(bpm: Double, seed: UInt64, variability: Double) -> SimulatedFinger.Settings {
        var s = SimulatedFinger.Settings()
        s.bpm = bpm
        s.frameRate = 30
        s.seed = seed
        s.intervalVariability = variability * 60 / bpm
        return s
    }

    /// Runs the three recordings at `bpm`; `seed` chooses the set of recordings (0: the gated one).
    /// - Complexity: about 425 s of simulated input through the live pipeline.
    public static func evaluate(bpm: Double, seed: UInt64 = 0, analyzer settings: PulseAnalyzer.Settings = .init()) -> Case {
        let base = UInt64(bpm) &+ 1000 &* seed
        var c = Case(bpm: bpm, truthBPM: 0, answeredBPM: nil, halfOrDoubleReports: 0, firstRateDelays: [], firstRatesWrong: 0,
                     contactLatencies: [], trueBeats: 0, beatsSeen: 0, unmatchedBeats: 0, beatLatencyMedian: .nan,
                     beatLatencyMax: .nan, rmssdTrue: .nan, rmssdMeasured: .nan, repeatedConfirmedBeats: 0)
        c.seed = seed

        // Recording 1: rate, half/double, live beats.
        scoreRateAndBeats(&c, bpm: bpm, seed: base, settings: settings)

        // Recording 2: lift-off, contact latency, first rates.
        scoreContact(&c, bpm: bpm, seed: base &+ 100, settings: settings)

        // Recording 3: RMSSD and confirmed-beat order.
        scoreHRV(&c, bpm: bpm, seed: base, settings: settings)
        return c
    }

    /// Recording 1 (60 s): sets `c`'s truth and answered rate, half/double-rate reports and live beat figures.
    private static func scoreRateAndBeats(_ c: inout Case, bpm: Double, seed: UInt64, settings: PulseAnalyzer.Settings) {
        let s1 = Self.settings(bpm: bpm, seed: seed, variability: 0.01)
        var finger = SimulatedFinger(settings: s1)
        let (a1, timed1) = run(finger.inputs(duration: 60), settings: settings)
        c.truthBPM = SimulatedFinger.meanRate(settings: s1, until: 60)
        c.answeredBPM = a1.heartRate?.bpm
        c.halfOrDoubleReports = a1.rates.filter { FingertipEvaluation.isHalfOrDouble($0.bpm, truth: c.truthBPM) }.count
        // Beats with onsets in 10-55 s are scored. Every event is matched against every true beat,
        // so an event timing a beat that starts just before 10 s (or whose upstroke comes just
        // after 55 s) is judged by its beat; an event that matches none, in 10-55 s, is spurious.
        let allTruth1 = SimulatedFinger.beats(settings: s1, until: 60)
        let scored = { (b: SimulatedBeat) in b.onset > 10 && b.onset < 55 }
        var latencies: [Double] = []
        var seen = Set<Int>()
        for (event, at) in timed1 {
            guard case .beat(let b) = event else { continue }
            // One event per true beat: a second one within the same beat counts as spurious.
            if let k = allTruth1.firstIndex(where: { b.time > $0.onset - 0.05 && b.time < $0.peak + 0.05 }), !seen.contains(k) {
                seen.insert(k)
                if scored(allTruth1[k]) { latencies.append(at - allTruth1[k].peak) }
            } else if b.time > 10, b.time < 55 {
                c.unmatchedBeats += 1
            }
        }
        c.trueBeats = allTruth1.filter(scored).count
        c.beatsSeen = latencies.count
        if !latencies.isEmpty {
            c.beatLatencyMedian = Statistics.median(latencies)
            c.beatLatencyMax = latencies.max()!
        }
    }

    /// Recording 2 (45 s, lifted off from 20 to 25 s): sets `c`'s first-rate delays and contact latencies.
    private static func scoreContact(_ c: inout Case, bpm: Double, seed: UInt64, settings: PulseAnalyzer.Settings) {
        var s2 = Self.settings(bpm: bpm, seed: seed, variability: 0.01)
        s2.liftOffs = [20..<25]
        var finger = SimulatedFinger(settings: s2)
        let inputs2 = finger.inputs(duration: 45)
        let (_, timed2) = run(inputs2, settings: settings)
        let truth2 = SimulatedFinger.meanRate(settings: s2, until: 45)
        let changes: [Double] = [inputs2.first?.time ?? 0, 20, 25]
        var contactEvents: [Double] = []
        var contactAt: Double?
        for (event, at) in timed2 {
            switch event {
            case .contactFound(let t):
                contactEvents.append(at)
                contactAt = t
            case .contactLost:
                contactEvents.append(at)
                contactAt = nil
            case .rate(let r):
                if let since = contactAt {
                    c.firstRateDelays.append(at - since)
                    if abs(r.bpm - truth2) > 5 { c.firstRatesWrong += 1 }
                    contactAt = nil
                }
            default: break
            }
        }
        c.contactLatencies = contactEvents.count == changes.count ? zip(contactEvents, changes).map { $0 - $1 }
            : [Double](repeating: .nan, count: changes.count)
    }

    /// Recording 3 (320 s, 4 % variation): sets `c`'s RMSSD figures and repeated confirmed beats.
    private static func scoreHRV(_ c: inout Case, bpm: Double, seed: UInt64, settings: PulseAnalyzer.Settings) {
        let s3 = Self.settings(bpm: bpm, seed: seed, variability: 0.04)
        var finger = SimulatedFinger(settings: s3)
        let (a3, _) = run(finger.inputs(duration: 320), settings: settings)
        let truth3 = SimulatedFinger.beats(settings: s3, until: 320).filter { $0.onset > 15 && $0.onset < 315 }
        // The truth is the RMSSD of every true interval: the simulator has no ectopic beats, so none
        // is an artefact, and passing them through HRV's rejection rules would let a rule's false
        // alarm on normal variability move the truth along with the measurement.
        let trueIntervals = zip(truth3, truth3.dropFirst()).map { ($1.onset - $0.onset) * 1000 }
        let trueDiffs = zip(trueIntervals, trueIntervals.dropFirst()).map { $1 - $0 }
        c.rmssdTrue = (trueDiffs.reduce(0) { $0 + $1 * $1 } / Double(max(1, trueDiffs.count))).squareRoot()
        let hrv3 = a3.hrv(from: 15, to: 315)
        c.rmssdMeasured = hrv3?.measures.rmssd ?? .nan
        if let hrv3 {
            c.rmssdTrueKept = Self.rmssdOfTrueIntervals(
                keptBy: hrv3, beats: a3.beats.map(\.time).filter { $0 >= 15 && $0 <= 315 },
                truth: SimulatedFinger.beats(settings: s3, until: 320))
        }
        c.repeatedConfirmedBeats = zip(a3.beats, a3.beats.dropFirst()).filter { $1.time - $0.time < 0.05 }.count
    }

    /// The RMSSD (ms) of the true intervals standing where `hrv` kept an interval between `beats`
    /// (the times it was computed from), with its rule: successive differences of two kept intervals
    /// in a row. A beat is matched to the true beat whose upstroke it times (from 50 ms before the
    /// onset to 50 ms after the peak); an interval counts only where its two beats match consecutive
    /// true beats. NaN when no difference is left.
    static func rmssdOfTrueIntervals(keptBy hrv: HRVResult, beats: [Double], truth: [SimulatedBeat]) -> Double {
        var k = 0
        let matched: [Int?] = beats.map { t in
            while k < truth.count, truth[k].peak + 0.05 <= t { k += 1 }
            return k < truth.count && t > truth[k].onset - 0.05 ? k : nil
        }
        let kept = hrv.accepted
        let trueInterval: [Double?] = (0..<min(kept.count, beats.count - 1)).map { i in
            guard kept[i], let a = matched[i], let b = matched[i + 1], b == a + 1 else { return nil }
            return (truth[b].onset - truth[a].onset) * 1000
        }
        let diffs = zip(trueInterval, trueInterval.dropFirst()).compactMap { a, b -> Double? in
            guard let a, let b else { return nil }
            return b - a
        }
        guard !diffs.isEmpty else { return .nan }
        return (diffs.reduce(0) { $0 + $1 * $1 } / Double(diffs.count)).squareRoot()
    }

    /// The batch analysis plus every event with the time of the input that emitted it.
    private static func run(_ inputs: [PulseInput], settings: PulseAnalyzer.Settings)
        -> (PulseAnalysis, [(PulseEvent, Double)]) {
        var now = 0.0
        var timed: [(PulseEvent, Double)] = []
        let analysis = PulseAnalysis.run(inputs.lazy.map { input -> PulseInput in
            now = input.time
            return input
        }, sampleRate: 30, settings: settings) { timed.append(($0, now)) }
        return (analysis, timed)
    }

    /// Issue 2's gates over all cases: (name, holds).
    public static func gates(_ cases: [Case]) -> [(String, Bool)] {
        [
            ("whole-recording rate within 1 bpm at every rate", cases.allSatisfy { ($0.rateError.map(abs) ?? .infinity) <= 1 }),
            ("no half/double-rate reports", cases.allSatisfy { $0.halfOrDoubleReports == 0 }),
            ("first rate <= 6 s after contact, and right", cases.allSatisfy {
                $0.firstRateDelays.count == 2 && $0.firstRateDelays.allSatisfy { $0 <= 6 } && $0.firstRatesWrong == 0
            }),
            ("contact lost/found reported <= 0.5 s after it happens", cases.allSatisfy {
                $0.contactLatencies.allSatisfy { $0 >= 0 && $0 <= 0.5 }
            }),
            ("each beat event <= 250 ms after its peak (>= 95 % seen, <= 5 % spurious)", cases.allSatisfy {
                $0.beatLatencyMax <= 0.25 && Double($0.beatsSeen) >= 0.95 * Double($0.trueBeats)
                    && Double($0.unmatchedBeats) <= 0.05 * Double($0.trueBeats)
            }),
            ("RMSSD within 5 % of the known intervals", cases.allSatisfy { abs($0.rmssdError) <= 0.05 }),
            ("confirmed beats never repeat an upstroke", cases.allSatisfy { $0.repeatedConfirmedBeats == 0 }),
        ]
    }
}
