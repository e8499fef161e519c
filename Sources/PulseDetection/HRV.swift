import SignalProcessing

/// Heart-rate variability measures under HeartPy's names, so results compare directly with HeartPy.
///
/// Units: `bpm` beats per minute; `ibi`, `sdnn`, `sdsd`, `rmssd`, `hr_mad`, `sd1`, `sd2` milliseconds;
/// `pnn20`, `pnn50` fractions in [0, 1] (HeartPy's convention, not percent); `s` ms² (Poincaré ellipse
/// area); `lf`, `hf`, `vlf`, `p_total` ms² (band power); `sd1/sd2`, `lf/hf` ratios; `vlf_perc`,
/// `lf_perc`, `hf_perc` percent of `p_total`; `lf_nu`, `hf_nu` normalised units (percent of LF + HF);
/// `breathingrate` Hz (HeartPy's unit).
/// A measure that cannot be computed from the accepted intervals is NaN here, absent from
/// ``dictionary`` and `null` in JSON. Definitions: see ``HRV``.
public struct HRVMeasures: Sendable {
    /// Mean heart rate, 60000 / mean NN (bpm).
    public var bpm: Double = .nan
    /// Mean NN interval (ms).
    public var ibi: Double = .nan
    /// Standard deviation of NN intervals, population (ms).
    public var sdnn: Double = .nan
    /// Standard deviation of the absolute successive differences, population (ms), as HeartPy.
    public var sdsd: Double = .nan
    /// Root mean square of successive differences (ms).
    public var rmssd: Double = .nan
    /// Fraction of successive differences > 20 ms.
    public var pnn20: Double = .nan
    /// Fraction of successive differences > 50 ms.
    public var pnn50: Double = .nan
    /// Median absolute deviation of NN intervals from their median (ms).
    public var hrMAD: Double = .nan
    /// Poincaré SD1: spread across the identity line (ms).
    public var sd1: Double = .nan
    /// Poincaré SD2: spread along the identity line (ms).
    public var sd2: Double = .nan
    /// Poincaré ellipse area π SD1 SD2 (ms²).
    public var s: Double = .nan
    /// SD1 / SD2.
    public var sd1sd2: Double = .nan
    /// Dominant frequency of the NN series in the 0.1–0.4 Hz band (Hz).
    public var breathingRate: Double = .nan
    /// Low-frequency power, 0.04–0.15 Hz (ms²).
    public var lf: Double = .nan
    /// High-frequency power, 0.15–0.4 Hz (ms²).
    public var hf: Double = .nan
    /// LF / HF.
    public var lfhf: Double = .nan
    /// Very-low-frequency power, 0.0033–0.04 Hz (ms²); from ``HRV/minimumVLFSeconds`` of intervals on.
    public var vlf: Double = .nan
    /// VLF + LF + HF (ms²).
    public var pTotal: Double = .nan
    /// VLF as a percentage of ``pTotal``.
    public var vlfPercent: Double = .nan
    /// LF as a percentage of ``pTotal``.
    public var lfPercent: Double = .nan
    /// HF as a percentage of ``pTotal``.
    public var hfPercent: Double = .nan
    /// LF in normalised units: a percentage of LF + HF.
    public var lfNU: Double = .nan
    /// HF in normalised units: a percentage of LF + HF.
    public var hfNU: Double = .nan

    /// Every measure NaN (not computed).
    public init() {}

    /// HeartPy's names: the sixteen issue 2 names, in its order, then the rest of what HeartPy 1.2's
    /// `process_rr` reports with `calc_freq=True` (VLF, total power, relative and normalised powers).
    public static let names = ["bpm", "ibi", "sdnn", "sdsd", "rmssd", "pnn20", "pnn50", "hr_mad",
                               "sd1", "sd2", "s", "sd1/sd2", "breathingrate", "lf", "hf", "lf/hf",
                               "vlf", "p_total", "vlf_perc", "lf_perc", "hf_perc", "lf_nu", "hf_nu"]

    /// The value under a HeartPy name (NaN when not computed), or nil for an unknown name.
    public subscript(name: String) -> Double? {
        switch name {
        case "bpm": bpm
        case "ibi": ibi
        case "sdnn": sdnn
        case "sdsd": sdsd
        case "rmssd": rmssd
        case "pnn20": pnn20
        case "pnn50": pnn50
        case "hr_mad": hrMAD
        case "sd1": sd1
        case "sd2": sd2
        case "s": s
        case "sd1/sd2": sd1sd2
        case "breathingrate": breathingRate
        case "lf": lf
        case "hf": hf
        case "lf/hf": lfhf
        case "vlf": vlf
        case "p_total": pTotal
        case "vlf_perc": vlfPercent
        case "lf_perc": lfPercent
        case "hf_perc": hfPercent
        case "lf_nu": lfNU
        case "hf_nu": hfNU
        default: nil
        }
    }

    /// The computed measures keyed by HeartPy's names; measures that could not be computed are absent.
    public var dictionary: [String: Double] {
        var d: [String: Double] = [:]
        for name in Self.names {
            if let v = self[name], v.isFinite { d[name] = v }
        }
        return d
    }
}

extension HRVMeasures: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Encodes every measure under its HeartPy name; a measure that was not computed is `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for name in Self.names {
            let v = self[name] ?? .nan
            if v.isFinite { try c.encode(v, forKey: Key(stringValue: name)) } else { try c.encodeNil(forKey: Key(stringValue: name)) }
        }
    }

    /// Decodes HeartPy-named fields; missing or `null` fields become NaN.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        func value(_ name: String) throws -> Double {
            try c.decodeIfPresent(Double.self, forKey: Key(stringValue: name)) ?? .nan
        }
        self.init()
        bpm = try value("bpm")
        ibi = try value("ibi")
        sdnn = try value("sdnn")
        sdsd = try value("sdsd")
        rmssd = try value("rmssd")
        pnn20 = try value("pnn20")
        pnn50 = try value("pnn50")
        hrMAD = try value("hr_mad")
        sd1 = try value("sd1")
        sd2 = try value("sd2")
        s = try value("s")
        sd1sd2 = try value("sd1/sd2")
        breathingRate = try value("breathingrate")
        lf = try value("lf")
        hf = try value("hf")
        lfhf = try value("lf/hf")
        vlf = try value("vlf")
        pTotal = try value("p_total")
        vlfPercent = try value("vlf_perc")
        lfPercent = try value("lf_perc")
        hfPercent = try value("hf_perc")
        lfNU = try value("lf_nu")
        hfNU = try value("hf_nu")
    }
}

/// Why an interval was kept out of HRV.
public enum IntervalRejection: String, Sendable, Codable, Hashable, CaseIterable {
    /// Shorter than ``HRV/minimumIntervalMs`` or longer than ``HRV/maximumIntervalMs``.
    case outOfRange = "out_of_range"
    /// More than ``HRV/maximumRelativeDeviation`` away from the median of its neighbours
    /// (ectopic beat, missed beat, extra beat).
    case deviatesFromNeighbours = "deviates_from_neighbours"
    /// One of a short-long or long-short pair around a premature (ectopic) beat with its compensatory
    /// pause, or around a beat detected too early or too late: each deviates from its local median by
    /// more than ``HRV/pairDeviation`` in opposite directions and together they sum to two local medians
    /// within ``HRV/pairSumTolerance``.
    case ectopicOrMisplacedBeat = "ectopic_or_misplaced_beat"
    /// Starts or ends at a beat the caller excluded (e.g. judged ectopic by the beat tracker), or
    /// ends at a beat that a gap in the data came before (``HRV/measures(heartbeats:)``).
    case excludedBeat = "excluded_beat"
    /// In range, but fewer than ``HRV/minimumNeighbours`` other usable intervals exist to judge it
    /// against (a series of three or fewer): too little to tell a normal interval from an artefact.
    case tooFewToJudge = "too_few_to_judge"
}

/// One interval kept out of HRV.
public struct RejectedInterval: Sendable, Hashable {
    /// Index into ``HRVResult/intervals`` (interval i runs from beat i to beat i + 1).
    public var index: Int
    /// The interval (ms).
    public var intervalMs: Double
    /// Why it was rejected.
    public var reason: IntervalRejection

    /// A rejection of interval `index` (`intervalMs` long) for `reason`.
    public init(index: Int, intervalMs: Double, reason: IntervalRejection) {
        self.index = index
        self.intervalMs = intervalMs
        self.reason = reason
    }
}

/// HRV measures together with the intervals they came from and those rejected.
public struct HRVResult: Sendable {
    /// The measures (NaN where not computable).
    public var measures: HRVMeasures
    /// Every interval between consecutive beats (ms), accepted or not.
    public var intervals: [Double]
    /// The rejected intervals, in index order.
    public var rejected: [RejectedInterval]

    /// A result from its parts.
    public init(measures: HRVMeasures, intervals: [Double], rejected: [RejectedInterval]) {
        self.measures = measures
        self.intervals = intervals
        self.rejected = rejected
    }

    /// Beats judged ectopic or misplaced (indices into the beat times): the beat between the two
    /// intervals of each ``IntervalRejection/ectopicOrMisplacedBeat`` pair. Other rejections concern
    /// an interval, not a particular beat (a missed beat has no index).
    public var ectopicBeats: [Int] {
        var beats: [Int] = []
        var k = 0
        while k + 1 < rejected.count {
            let a = rejected[k], b = rejected[k + 1]
            if a.reason == .ectopicOrMisplacedBeat && b.reason == .ectopicOrMisplacedBeat && b.index == a.index + 1 {
                beats.append(b.index)
                k += 2
            } else {
                k += 1
            }
        }
        return beats
    }

    /// How many intervals went into the measures.
    public var keptCount: Int { intervals.count - rejected.count }

    /// Whether enough intervals went into the measures to report them (two; with fewer, reports
    /// give no HRV).
    public var isMeasured: Bool { keptCount >= 2 }

    /// How many intervals were kept out for `reason`.
    public func rejectedCount(_ reason: IntervalRejection) -> Int {
        rejected.reduce(0) { $0 + ($1.reason == reason ? 1 : 0) }
    }

    /// `accepted[i]` is true when interval i went into the measures.
    public var accepted: [Bool] {
        var a = [Bool](repeating: true, count: intervals.count)
        for r in rejected { a[r.index] = false }
        return a
    }
}

// Intervals that are not durations (NaN, infinite: accepted as input and rejected as out of range)
// are `null` in JSON, which has no NaN, as the measures are.
extension RejectedInterval: Codable {
    private enum CodingKeys: String, CodingKey { case index, intervalMs, reason }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(intervalMs.isFinite ? intervalMs : nil, forKey: .intervalMs)
        try c.encode(reason, forKey: .reason)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(index: try c.decode(Int.self, forKey: .index),
                  intervalMs: try c.decodeIfPresent(Double.self, forKey: .intervalMs) ?? .nan,
                  reason: try c.decode(IntervalRejection.self, forKey: .reason))
    }
}

extension HRVResult: Codable {
    private enum CodingKeys: String, CodingKey { case measures, intervals, rejected }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(measures, forKey: .measures)
        try c.encode(intervals.map { $0.isFinite ? $0 : nil }, forKey: .intervals)
        try c.encode(rejected, forKey: .rejected)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(measures: try c.decode(HRVMeasures.self, forKey: .measures),
                  intervals: try c.decode([Double?].self, forKey: .intervals).map { $0 ?? .nan },
                  rejected: try c.decode([RejectedInterval].self, forKey: .rejected))
    }
}

/// Heart-rate variability from accepted beats, with artefact correction first.
///
/// ## Artefact and ectopic correction
/// Interval i (beat i to beat i + 1) is rejected when (rules checked in the order 1, 3, 2, 4; the
/// first that applies is the reported reason)
/// 1. it lies outside [``minimumIntervalMs``, ``maximumIntervalMs``] (30–240 bpm), or
/// 2. it differs by more than ``maximumRelativeDeviation`` (20 %) from the median of its
///    ``neighbourCount`` (10) nearest reference neighbours (5 each side, the window shifted inward at
///    the ends; references are the in-range intervals that do not touch an excluded beat, so a run
///    of distrusted beats cannot vouch for the interval next to it). This is Malik's 20 % rule made
///    robust: comparing with a local median instead of the previous interval means one bad interval
///    cannot condemn the next, and up to 4 consecutive bad intervals in a window still leave the
///    median on normal beats. A premature (ectopic) beat gives
///    a short interval followed by a compensatory long one, a missed beat a double interval, a false
///    extra beat two short ones: each is caught. A slow drift is physiology, not artefact, and stays.
///    The threshold stays at 20 % even in calm rhythms: a local median of an oscillating series is
///    biased at its peaks (±9 % sinus arrhythmia over 8 beats puts a peak 16 % above the median of its
///    neighbours), so a lower fixed threshold would reject normal sinus arrhythmia.
/// 3. with the next interval it forms a short-long or long-short pair: each more than
///    ``pairDeviation`` (10 %) from its local median, in opposite directions, the two summing to
///    two local medians within ``pairSumTolerance`` (10 %), and the jump between them more than
///    ``pairStepFactor`` (3) times the neighbours' typical beat-to-beat change (the median
///    |ΔRR| among them), while the intervals on either side of the pair differ by less than half
///    that jump (a transient, not a step in rate). This is the signature of a premature beat
///    followed by its compensatory pause, and of a beat whose time was detected early or late (the
///    beat's neighbours are fine, only its position moved); it catches ectopic beats 10–20 %
///    premature, which rule 2 misses. Measuring normal variability by beat-to-beat change (the dRR of Lipponen & Tarvainen 2019)
///    instead of by the spread of the intervals is what keeps it working under sinus arrhythmia:
///    a breathing rhythm moves the intervals far from their median but each only a little from
///    the one before, while a premature beat jumps by twice its prematurity. A sinusoidal
///    arrhythmia of amplitude A over P beats has a median |ΔRR| near 2A·sin(π/P)·0.71 and jumps
///    of at most 2A·sin(π/P), so normal pairs stay below 1.4 of the typical change, under half
///    the factor. On generated series (`HRVEctopicPairTests`: 70 bpm, one beat in 12-27 premature
///    with a full compensatory pause, ±3 ms beat-time noise, 91 premature beats) it caught, at
///    ±0/2/4/6/8/10 % arrhythmia, 91/91/89/80/56/8 of the beats 15 % premature and
///    91/91/91/91/91/78 of those 20 % premature, where the interval spread as the threshold
///    (5.2 times the neighbours' MAD, the rule before) caught 91/91/19/0/0/0 and 91/91/79/21/20/10;
///    RMSSD read 9 % and 5 % high at ±4 and ±6 % with 15 % premature beats, against 124 % and 59 %
///    before. Without premature beats it rejected no interval up to ±10 %. (Lipponen & Tarvainen's
///    own rule, thresholds from quartiles of |dRR| over 91 beats, flagged runs of normal beats in
///    a103l's steady, 4-ms-quantised ECG rhythm and let v102s's frequent extra beats raise its
///    thresholds; this keeps their measure of change, not their thresholds.)
/// 4. Intervals touching a beat the caller excludes are rejected as well.
/// 5. Rules 2 and 3 need at least ``minimumNeighbours`` (3) reference neighbours (the median of three
///    outvotes one bad interval); an in-range interval with fewer cannot be judged and is rejected
///    (``IntervalRejection/tooFewToJudge``) rather than trusted: only a series with three or fewer
///    trusted intervals in all has such, and an HRV from it would be noise (`[800, 810, 1600, 805, 795]` ms,
///    a missed beat, read SDNN 319 ms when short series were kept unjudged).
///
/// ## Definitions (HeartPy 1.2.7 from PyPI, whose `__version__` string reads 1.2.6: `analysis.py`, re-implemented)
/// On the accepted intervals (NN, ms): `bpm` = 60000 / mean, `ibi` = mean, `sdnn` = population
/// standard deviation, `hr_mad` = median |NN - median NN|. Successive differences |NN[i+1] - NN[i]| are
/// taken only where both intervals are accepted: `rmssd` = √mean(d²), `sdsd` = population standard
/// deviation of the |d| (HeartPy's choice; the textbook SDSD uses signed d), `pnn20`/`pnn50` =
/// fraction of d > 20 / 50 ms. Poincaré pairs (NN[i], NN[i+1]) with both accepted: `sd1`, `sd2` =
/// population standard deviations of (NN[i] - NN[i+1]) / √2 and (NN[i] + NN[i+1]) / √2, `s` = π sd1 sd2.
///
/// ## Frequency domain
/// Accepted NN values are placed at the time of the beat ending each interval and interpolated with a
/// natural cubic spline (HeartPy: a cubic smoothing spline) onto a uniform ``resamplingRate`` (4 Hz)
/// grid, across rejected intervals. Welch (Hann, 50 % overlap, mean removed, density) with segments of
/// ``welchSegmentSeconds`` (240 s, HeartPy's `welch_wsize`) or the whole series if shorter. `lf` / `hf`
/// = trapezoidal integral of the density over the bins in [0.04, 0.15) / [0.15, 0.4) Hz with HeartPy's
/// `dx = Δf`. Needs the resampled series to span ``minimumSpectralSeconds`` (50 s: two periods of
/// 0.04 Hz); otherwise NaN. HeartPy resamples at 4 samples per mean beat instead of 4 Hz (identical at
/// 60 bpm) and computes LF/HF on any length with a warning. `lf_nu` / `hf_nu` = 100 LF / (LF + HF) and
/// 100 HF / (LF + HF). `vlf` is the same integral over [0.0033, 0.04) Hz, from ``minimumVLFSeconds``
/// (300 s, the Task Force's short-term recording: its slowest waves once) on; below that HeartPy still
/// reports it, from the one or two bins a short series has there (0 from one), which says nothing of
/// VLF. With it, `p_total` = VLF + LF + HF and `vlf_perc`, `lf_perc`, `hf_perc` = 100 × band / `p_total`.
///
/// `breathingrate`: the 4 Hz NN series band-passed 0.1–0.4 Hz (Butterworth order 2, forward-backward,
/// as HeartPy), Welch with the whole series as one segment if shorter than 30 s, otherwise segments of
/// max(30 s, duration / 10) (HeartPy's choice), and the frequency of the largest density within
/// 0.1–0.4 Hz (HeartPy takes the global maximum of the filtered spectrum). Needs
/// ``minimumBreathingSeconds`` (20 s: two periods of 0.1 Hz) and ``minimumBreathingPower`` in the
/// band (HeartPy reports a rate for intervals that hardly vary too).
///
/// - Complexity: O(n) for the time domain plus O(m log m) for the spectra (m = 4 Hz samples).
public enum HRV {
    /// Shortest plausible interval, ms (240 bpm).
    public static let minimumIntervalMs = 250.0
    /// Longest plausible interval, ms (30 bpm).
    public static let maximumIntervalMs = 2000.0
    /// Largest accepted relative deviation from the local median (Malik et al. 1989's 20 % rule).
    public static let maximumRelativeDeviation = 0.20
    /// Smallest deviation from the local median, each way, for a short-long / long-short pair to be
    /// judged an ectopic or misplaced beat (10 %: beat-to-beat sinus changes of opposite sign that large
    /// on consecutive beats are rare, while premature beats 10–20 % early, which the 20 % rule misses,
    /// are common; e.g. PhysioNet v102s).
    public static let pairDeviation = 0.10
    /// The jump between the two intervals of a pair must exceed this many times the neighbours'
    /// median beat-to-beat change (``localReferences(_:inRange:references:)``'s `step`), so that a rhythm that
    /// changes fast from beat to beat (strong sinus arrhythmia, an alternating rhythm) is not read as
    /// ectopy. Normal sinus rhythm jumps by at most about 1.4 times its median change (see ``HRV``).
    public static let pairStepFactor = 3.0
    /// Fewest reference neighbours needed to judge an interval by rules 2 and 3 (fewer: rejected as
    /// ``IntervalRejection/tooFewToJudge``).
    public static let minimumNeighbours = 3
    /// How close the pair's sum must be to two local medians (a full compensatory pause, or a beat time
    /// shifted within its interval, keeps the sum), as a fraction.
    public static let pairSumTolerance = 0.10
    /// Neighbours (in-range intervals, excluding the interval itself) whose median is the reference.
    public static let neighbourCount = 10
    /// Uniform resampling rate of the NN series for spectra, Hz (Task Force 1996 convention).
    public static let resamplingRate = 4.0
    /// Longest stretch without an accepted interval that the NN spline bridges, seconds: half the
    /// period of the lowest frequency analysed (LF's 0.04 Hz, 25 s), the most a hole may last for that
    /// oscillation to still be sampled twice per period. Longer holes split the series.
    public static let maximumInterpolatedHole = 0.5 / lfBand.low
    /// Welch segment length for LF/HF, seconds (HeartPy's `welch_wsize` default).
    public static let welchSegmentSeconds = 240.0
    /// LF band [low, high) Hz (Task Force 1996).
    public static let lfBand = (low: 0.04, high: 0.15)
    /// HF band [low, high) Hz (Task Force 1996).
    public static let hfBand = (low: 0.15, high: 0.4)
    /// VLF band [low, high) Hz (HeartPy's; the Task Force's VLF is ≤ 0.04 Hz).
    public static let vlfBand = (low: 0.0033, high: 0.04)
    /// Minimum span of the resampled NN series for VLF (and so total power and the percentages),
    /// seconds: a period of VLF's lowest frequency, the Task Force's 5-min short-term recording.
    public static let minimumVLFSeconds = 300.0
    /// Band searched for the breathing rate, Hz (HeartPy's `bw_cutoff`).
    public static let breathingBand = (low: 0.1, high: 0.4)
    /// Minimum span of the resampled NN series for LF/HF, seconds.
    public static let minimumSpectralSeconds = 50.0
    /// Minimum span of the resampled NN series for the breathing rate, seconds.
    public static let minimumBreathingSeconds = 20.0
    /// Least power of the band-passed NN series in the breathing band, ms², for a breathing rate:
    /// respiratory sinus arrhythmia of even ±2 ms gives more; intervals that hardly vary give less.
    public static let minimumBreathingPower = 1.0
    /// Spectral power (ms², or ms²/Hz for a density) below which a value is rounding error, not
    /// variability: far below the 1 ms² of the smallest real LF or HF.
    public static let negligiblePower = 1e-6

    /// HRV from beat times.
    /// - Parameters:
    ///   - beatTimes: times of the accepted beats in seconds, increasing (e.g. the beat tracker's output).
    ///   - excludedBeats: indices into `beatTimes` of beats to keep out (both intervals touching each
    ///     are rejected with reason ``IntervalRejection/excludedBeat``).
    /// - Returns: the measures, all intervals (ms, `intervals[i]` from beat i to i + 1) and the rejected ones.
    public static func measures(beatTimes: [Double], excludedBeats: [Int] = []) -> HRVResult {
        guard beatTimes.count >= 2 else {
            return HRVResult(measures: HRVMeasures(), intervals: [], rejected: [])
        }
        var intervals = [Double](repeating: 0, count: beatTimes.count - 1)
        for i in intervals.indices { intervals[i] = (beatTimes[i + 1] - beatTimes[i]) * 1000 }
        var excluded = Set<Int>()
        for b in excludedBeats {
            if b >= 1 && b <= intervals.count { excluded.insert(b - 1) }  // (b - 1 overflows at Int.min)
            if b >= 0 && b < intervals.count { excluded.insert(b) }
        }
        // Interval i is placed at the time of beat i + 1, relative to the first beat.
        let times = (1..<beatTimes.count).map { beatTimes[$0] - beatTimes[0] }
        return analyse(intervals: intervals, times: times, excluded: excluded)
    }

    /// HRV from a heartbeat series as HealthKit keeps Apple Watch's (`HKHeartbeatSeriesSample`): each
    /// beat's time in seconds from the series' start, and whether a gap in the data came before it
    /// (one or more beats may be missing there). The interval that ends at a beat after a gap spans
    /// the missing beats: it is kept out with reason ``IntervalRejection/excludedBeat``, and its
    /// neighbours are judged without it.
    public static func measures(heartbeats: [(time: Double, precededByGap: Bool)]) -> HRVResult {
        guard heartbeats.count >= 2 else {
            return HRVResult(measures: HRVMeasures(), intervals: [], rejected: [])
        }
        let intervals = (1..<heartbeats.count).map { (heartbeats[$0].time - heartbeats[$0 - 1].time) * 1000 }
        let times = (1..<heartbeats.count).map { heartbeats[$0].time - heartbeats[0].time }
        let gaps = Set((1..<heartbeats.count).filter { heartbeats[$0].precededByGap }.map { $0 - 1 })
        return analyse(intervals: intervals, times: times, excluded: gaps)
    }

    /// HRV from consecutive intervals between beats (ms), as HeartPy's `process_rr`; interval i is
    /// placed at time Σ intervals[0...i]. An entry that is not a duration (NaN, infinite, zero or
    /// negative, or a day or longer) is rejected as out of range, and since it leaves the beats after
    /// it unplaced in time, the spectral series breaks there (as at a gap longer than
    /// ``maximumInterpolatedHole``) instead of every later time becoming NaN, or (after 10³⁰⁰ ms) the
    /// same time.
    public static func measures(intervals: [Double]) -> HRVResult {
        var t = 0.0
        let times = intervals.map { v -> Double in
            t += v > 0 && v < 86_400_000 ? v / 1000 : 2 * maximumInterpolatedHole
            return t
        }
        return analyse(intervals: intervals, times: times, excluded: [])
    }

    /// The intervals (ms) to reject, in index order, by the rules in ``HRV``.
    public static func rejections(intervals: [Double], excluded: Set<Int> = []) -> [RejectedInterval] {
        let n = intervals.count
        var inRange = [Bool](repeating: false, count: n)
        for i in 0..<n {
            let v = intervals[i]
            inRange[i] = v.isFinite && v >= minimumIntervalMs && v <= maximumIntervalMs
        }
        let local = localReferences(intervals, inRange: inRange, references: intervals.indices.map { !excluded.contains($0) })
        var reason = [IntervalRejection?](repeating: nil, count: n)
        for i in 0..<n where !inRange[i] { reason[i] = .outOfRange }
        // Short-long or long-short pairs summing to about two normal intervals.
        var i = 0
        while i + 1 < n {
            if let a = local[i], let b = local[i + 1] {
                let d0 = (intervals[i] - a.median) / a.median, d1 = (intervals[i + 1] - b.median) / b.median
                let sum = (intervals[i] + intervals[i + 1]) / (a.median + b.median)
                let jump = abs(intervals[i + 1] - intervals[i])
                // A transient: the rhythm around the pair returns to where it was (a step in rate
                // does not). Judged only where both outer intervals are plausible.
                let transient = i == 0 || i + 2 >= n || !inRange[i - 1] || !inRange[i + 2]
                    || abs(intervals[i + 2] - intervals[i - 1]) < 0.5 * jump
                if abs(d0) > pairDeviation && abs(d1) > pairDeviation && (d0 > 0) != (d1 > 0)
                    && abs(sum - 1) <= pairSumTolerance && jump > pairStepFactor * max(a.step, b.step) && transient {
                    reason[i] = .ectopicOrMisplacedBeat
                    reason[i + 1] = .ectopicOrMisplacedBeat
                    i += 2
                    continue
                }
            }
            i += 1
        }
        for i in 0..<n where reason[i] == nil {
            if let r = local[i]?.median, abs(intervals[i] - r) > maximumRelativeDeviation * r {
                reason[i] = .deviatesFromNeighbours
            } else if excluded.contains(i) {
                reason[i] = .excludedBeat
            } else if local[i] == nil {
                reason[i] = .tooFewToJudge
            }
        }
        return (0..<n).compactMap { i in
            reason[i].map { RejectedInterval(index: i, intervalMs: intervals[i], reason: $0) }
        }
    }

    /// For each in-range interval, of its ``neighbourCount`` nearest reference neighbours (half each
    /// side, the window shifted inward at the ends): the median and the step (median absolute change
    /// between consecutive neighbours, the interval itself left out); nil when fewer than
    /// ``minimumNeighbours`` exist (too little context to judge). Sinus arrhythmia makes the step
    /// moderate; occasional ectopic beats, being a minority, barely move it or the median. Any unit:
    /// the results come in the intervals' own.
    /// - Parameters:
    ///   - intervals: the intervals between consecutive beats, any unit.
    ///   - inRange: which intervals are judged (plausible durations).
    ///   - references: which intervals may serve as neighbours (default: those in range). Intervals
    ///     the caller already distrusts are left out here, so that a run of them (say, upstrokes found
    ///     at half the rate while the rate was declined) cannot vouch for an interval next to it.
    public static func localReferences(_ intervals: [Double], inRange: [Bool], references: [Bool]? = nil)
        -> [(median: Double, step: Double)?] {
        let pool = intervals.indices.filter { inRange[$0] && (references?[$0] ?? true) }
        var result = [(median: Double, step: Double)?](repeating: nil, count: intervals.count)
        // Scratch for one interval's neighbours and their steps, filled and sorted in place.
        var window = [Double](repeating: 0, count: neighbourCount)
        var steps = [Double](repeating: 0, count: neighbourCount)
        let half = neighbourCount / 2
        intervals.withUnsafeBufferPointer { intervals in
        pool.withUnsafeBufferPointer { pool in
        window.withUnsafeMutableBufferPointer { window in
        steps.withUnsafeMutableBufferPointer { steps in
            var p = 0  // pool position of the first reference at or after the judged interval
            for i in intervals.indices where inRange[i] {
                while p < pool.count && pool[p] < i { p += 1 }
                // Neighbours: pool positions left of p, and right of it (past i itself when i is a reference).
                let rightStart = p < pool.count && pool[p] == i ? p + 1 : p
                let leftCount = p, rightCount = pool.count - rightStart
                let nl = min(leftCount, max(half, neighbourCount - rightCount))
                let nr = min(rightCount, neighbourCount - nl)
                var w = 0, st = 0
                for k in (p - nl)..<p {
                    window[w] = intervals[pool[k]]
                    w += 1
                    if k + 1 < p {
                        steps[st] = abs(intervals[pool[k + 1]] - intervals[pool[k]])
                        st += 1
                    }
                }
                for k in rightStart..<(rightStart + nr) {
                    window[w] = intervals[pool[k]]
                    w += 1
                    if k + 1 < rightStart + nr {
                        steps[st] = abs(intervals[pool[k + 1]] - intervals[pool[k]])
                        st += 1
                    }
                }
                if w >= minimumNeighbours {
                    // The median of each, sorted in place. In-range intervals are finite and positive,
                    // their steps finite and never -0: sorted by a network (`sortDistinctlyOrdered`).
                    let sortedWindow = UnsafeMutableBufferPointer(rebasing: window[0..<w])
                    let sortedSteps = UnsafeMutableBufferPointer(rebasing: steps[0..<st])
                    sortedWindow.sortDistinctlyOrdered()
                    sortedSteps.sortDistinctlyOrdered()
                    result[i] = (Statistics.percentile(sorted: UnsafeBufferPointer(sortedWindow), 50),
                                 st == 0 ? 0 : Statistics.percentile(sorted: UnsafeBufferPointer(sortedSteps), 50))
                }
            }
        }
        }
        }
        }
        return result
    }

    static func analyse(intervals: [Double], times: [Double], excluded: Set<Int>) -> HRVResult {
        let rejected = rejections(intervals: intervals, excluded: excluded)
        var accepted = [Bool](repeating: true, count: intervals.count)
        for r in rejected { accepted[r.index] = false }
        var m = HRVMeasures()
        let nn = intervals.indices.filter { accepted[$0] }.map { intervals[$0] }
        if !nn.isEmpty {
            let mean = Statistics.mean(nn)
            m.ibi = mean
            m.bpm = 60_000 / mean
            m.hrMAD = Statistics.medianAbsoluteDeviation(nn)
            if nn.count >= 2 { m.sdnn = populationStandardDeviation(nn) }
        }
        // Successive differences and Poincaré pairs: both intervals accepted.
        var diffs: [Double] = []
        var across: [Double] = [], along: [Double] = []
        for i in 0..<max(0, intervals.count - 1) where accepted[i] && accepted[i + 1] {
            let a = intervals[i], b = intervals[i + 1]
            diffs.append(abs(b - a))
            across.append((a - b) / 2.0.squareRoot())
            along.append((a + b) / 2.0.squareRoot())
        }
        if !diffs.isEmpty {
            m.rmssd = (diffs.reduce(0) { $0 + $1 * $1 } / Double(diffs.count)).squareRoot()
            m.pnn20 = Double(diffs.filter { $0 > 20 }.count) / Double(diffs.count)
            m.pnn50 = Double(diffs.filter { $0 > 50 }.count) / Double(diffs.count)
        }
        if diffs.count >= 2 {
            m.sdsd = populationStandardDeviation(diffs)
            m.sd1 = populationStandardDeviation(across)
            m.sd2 = populationStandardDeviation(along)
            m.s = Double.pi * m.sd1 * m.sd2
            // A spread below the floating-point noise of the pairs themselves (constant or exactly
            // alternating intervals) is zero: the ratio is then undefined, not 0, 4 or 1e14.
            let noise = 1e-9 * Statistics.mean(along)
            if m.sd2 > noise { m.sd1sd2 = m.sd1 > noise ? m.sd1 / m.sd2 : 0 }
        }
        frequencyDomain(intervals: intervals, times: times, accepted: accepted, into: &m)
        return HRVResult(measures: m, intervals: intervals, rejected: rejected)
    }

    /// The accepted NN series (ms) on a uniform ``resamplingRate`` grid from the first to the last
    /// accepted interval's time (s), by natural cubic spline; nil with fewer than 2 accepted intervals.
    /// `times[i]` is the time of the beat that ends interval i. Where consecutive accepted intervals
    /// lie more than ``maximumInterpolatedHole`` apart (a gap in the recording, a long artefact), the
    /// series is the longest stretch without such a hole: a spline across it would invent the NN
    /// values, and across a very long one would need a grid too large to hold.
    public static func resampledNN(intervals: [Double], times: [Double], accepted: [Bool]) -> UniformSignal? {
        // Accepted intervals in strictly increasing time (beat times that went backwards are skipped).
        var x: [Double] = [], y: [Double] = []
        for i in intervals.indices where accepted[i] && times[i].isFinite && (x.last.map { times[i] > $0 } ?? true) {
            x.append(times[i])
            y.append(intervals[i])
        }
        // The longest stretch (in seconds; the first of equals) without a hole.
        var best = 0..<x.count
        if x.count >= 2 {
            var bestSpan = -1.0
            var start = 0
            for k in 1...x.count where k == x.count || x[k] - x[k - 1] > maximumInterpolatedHole {
                if x[k - 1] - x[start] > bestSpan {
                    bestSpan = x[k - 1] - x[start]
                    best = start..<k
                }
                start = k
            }
        }
        if best.count < x.count {
            x = Array(x[best])
            y = Array(y[best])
        }
        guard x.count >= 2 else { return nil }
        let spline = CubicSpline(x: x, y: y)
        let count = Int(((x[x.count - 1] - x[0]) * resamplingRate).rounded(.down)) + 1
        let grid = (0..<count).map { x[0] + Double($0) / resamplingRate }
        return UniformSignal(start: x[0], rate: resamplingRate, values: spline.evaluate(at: grid))
    }

    private static func frequencyDomain(intervals: [Double], times: [Double], accepted: [Bool],
                                        into m: inout HRVMeasures) {
        guard let series = resampledNN(intervals: intervals, times: times, accepted: accepted) else { return }
        let fs = resamplingRate
        let span = series.duration
        if span >= minimumSpectralSeconds {
            let segment = min(series.values.count, Int(welchSegmentSeconds * fs))
            let psd = Spectrum.welch(series.values, sampleRate: fs, segmentLength: segment)
            m.lf = heartPyBandPower(psd, lfBand.low, lfBand.high)
            m.hf = heartPyBandPower(psd, hfBand.low, hfBand.high)
            // A ratio of two numerically zero powers (intervals that do not vary) is no ratio.
            m.lfhf = m.hf > negligiblePower ? m.lf / m.hf : .nan
            if m.lf + m.hf > negligiblePower {
                m.lfNU = 100 * m.lf / (m.lf + m.hf)
                m.hfNU = 100 * m.hf / (m.lf + m.hf)
            }
            if span >= minimumVLFSeconds {
                m.vlf = heartPyBandPower(psd, vlfBand.low, vlfBand.high)
                m.pTotal = m.vlf + m.lf + m.hf
                if m.pTotal > negligiblePower {
                    m.vlfPercent = 100 * m.vlf / m.pTotal
                    m.lfPercent = 100 * m.lf / m.pTotal
                    m.hfPercent = 100 * m.hf / m.pTotal
                }
            }
        }
        if span >= minimumBreathingSeconds {
            let filter = Butterworth.bandPass(order: 2, low: breathingBand.low, high: breathingBand.high, sampleRate: fs)
            let breathing = filter.filtfilt(series.values)
            // HeartPy: one segment below 30 s, else max(30 s, duration / 10).
            let thirty = Int(30 * fs)
            let segment = breathing.count < thirty ? breathing.count : max(breathing.count / 10, thirty)
            let psd = Spectrum.welch(breathing, sampleRate: fs, segmentLength: segment)
            // HeartPy's rule (the band's largest value), when the band holds any breathing at all: a
            // series whose breathing-band power is under `minimumBreathingPower` (intervals that
            // hardly vary) has its largest value wherever rounding or one odd interval puts it,
            // typically at the band's edge.
            if let k = psd.peakIndex(low: breathingBand.low, high: breathingBand.high),
               heartPyBandPower(psd, breathingBand.low, breathingBand.high) >= minimumBreathingPower {
                m.breathingRate = psd.frequencies[k]
            }
        }
    }

    /// numpy `trapz(psd[(f >= low) & (f < high)], dx: Δf)`, HeartPy's band power (ms²).
    private static func heartPyBandPower(_ psd: PowerSpectrum, _ low: Double, _ high: Double) -> Double {
        let df = psd.resolution
        var total = 0.0
        var previous: Double?
        for k in psd.frequencies.indices where psd.frequencies[k] >= low && psd.frequencies[k] < high {
            if let p = previous { total += (p + psd.power[k]) / 2 * df }
            previous = psd.power[k]
        }
        return total
    }

    private static func populationStandardDeviation(_ x: [Double]) -> Double {
        let m = Statistics.mean(x)
        var s = 0.0
        for v in x { s += (v - m) * (v - m) }
        return (s / Double(x.count)).squareRoot()
    }
}
