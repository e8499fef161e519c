import PulseDetection
import SignalProcessing

/// A PPG with its accelerometer, read from one CSV file, for `WristRateTracker` (PulseDetection): one or more PPG
/// columns and three acceleration columns (any unit: only the spectrum's shape is used).
public struct WristRecording: Sendable {
    public var source: String
    /// Seconds from the first sample (the file's time of that sample is `startTime`).
    public var times: [Double]
    public var startTime: Double
    /// One array per PPG column.
    public var ppg: [[Double]]
    public var acceleration: [SIMD3<Double>]
    public var sampleRate: Double
    /// Names of the PPG and acceleration columns read.
    public var ppgColumns: [String]
    public var motionColumns: [String]
    /// Silences over 1 s, where the tracker starts afresh.
    public var gaps: [(from: Double, to: Double)]
    public var notes: [String]

    /// Seconds from the first sample to the last.
    public var duration: Double { times.last ?? 0 }

    /// Reads `ppgColumns` and the three `motionColumns` (x, y, z) of `csv`; times as
    /// ``PulseRecording/load(_:column:rate:maximumGap:polarity:)`` reads them (a `time_s` or `time_ms`
    /// column, or `rate`; the wrist tracker needs 10 Hz or more).
    /// - Throws: `InputError` naming the problem: a missing column (and those that exist), not three
    ///   motion columns, a value that is not a finite number, times that repeat or go backwards, a
    ///   rate outside 5 Hz...10 kHz, a flat PPG.
    public static func load(_ csv: CSVFile, ppgColumns: [String], motionColumns: [String], rate: Double?) throws -> WristRecording {
        let src = csv.source
        guard !ppgColumns.isEmpty else { throw InputError(.badOption, "\(src): name at least one PPG column") }
        guard motionColumns.count == 3 else {
            throw InputError(.badOption, "\(src): --motion takes the three accelerometer columns x,y,z (got \(motionColumns.count))")
        }
        let all = ppgColumns + motionColumns
        if let repeated = all.first(where: { name in all.filter { $0 == name }.count > 1 }) {
            throw InputError(.badOption, "\(src): the column '\(repeated)' is named more than once among the PPG and motion columns")
        }
        // Each PPG column goes through the recording checks (times, values, flatness, gaps); the file
        // is read once for all the columns.
        let (first, times, ppg, axes) = try PulseRecording.load(csv, columns: ppgColumns, alongside: motionColumns, rate: rate)
        for (k, values) in axes.enumerated() {
            if let i = values.firstIndex(where: { !PulseAnalyzer.isUsable($0) }) {
                let what = values[i].isFinite
                    ? String(format: "the value %g, beyond ±%g (no sensor reads that)", values[i], PulseAnalyzer.maximumMagnitude)
                    : "an empty, missing or non-finite value"
                throw InputError(.nonFinite, "\(src): line \(csv.lineNumber(ofRow: i)), column '\(motionColumns[k])' has \(what)")
            }
        }
        guard axes[0].count == times.count else {
            throw InputError(.badOption, "\(src): the PPG and the motion columns have different numbers of rows")
        }
        let acceleration = (0..<times.count).map { SIMD3(axes[0][$0], axes[1][$0], axes[2][$0]) }
        return WristRecording(source: src, times: times, startTime: first.startTime, ppg: ppg, acceleration: acceleration, sampleRate: first.sampleRate,
                              ppgColumns: ppgColumns, motionColumns: motionColumns, gaps: first.gaps, notes: first.notes)
    }

    /// The estimates of a tracker configured as `tracker` over the whole recording.
    public func track(with tracker: WristRateTracker) -> [WristRateTracker.Estimate] {
        // The arrays' lengths match by construction, and the settings were accepted by `tracker`.
        try! WristRateTracker.run(times: times, ppg: ppg, acceleration: acceleration, sampleRate: tracker.sampleRate,
                                  settings: tracker.settings)
    }

    /// The `vitals heart-rate --motion --json` document: the top-level fields of ``HeartRateReport``
    /// (the windows are the tracker's; `heart_rate` is the median of the answered windows; no beats
    /// or HRV, which a running wrist does not give reliably; `quality` describes the method) plus each
    /// window's `motion_bpm`, why it was `declined` (null when answered) and its `best_guess_bpm`.
    public func report(input: String, estimates: [WristRateTracker.Estimate], tracker: WristRateTracker) -> JSON {
        let answered = estimates.filter { $0.bpm != nil }
        let whole = answered.isEmpty ? nil : Statistics.median(answered.compactMap(\.bpm))
        return .object([
            ("input", .string(input)),
            ("duration_s", .num(duration, digits: 3)),
            ("start_time_s", .num(startTime, digits: 6)),
            ("sample_rate_hz", .num(sampleRate, digits: 3)),
            ("heart_rate", .object([
                ("bpm", .num(whole, digits: 2)),
                ("confidence", .num(answered.isEmpty ? nil : Statistics.median(answered.map(\.confidence)), digits: 3)),
            ])),
            ("windows", Self.windowsJSON(estimates)),
            ("beats", .array([])),
            ("hrv", .null),
            ("quality", .object([
                ("method", .string("wrist: PPG spectrum weighted by the accelerometer's, tracked over windows")),
                ("ppg_columns", .array(ppgColumns.map { .string($0) })),
                ("motion_columns", .array(motionColumns.map { .string($0) })),
                ("window_s", .num(tracker.windowDuration, digits: 4)),
                ("hop_s", .num(tracker.hopDuration, digits: 4)),
                ("gaps", .num(Double(gaps.count))),
                ("answered_windows", .num(Double(answered.count))),
            ])),
        ])
    }

    /// The tracker's windows as `heart-rate --motion --json` lists them.
    static func windowsJSON(_ estimates: [WristRateTracker.Estimate]) -> JSON {
        .array(estimates.map { e in
            .object([
                ("start_s", .num(e.start, digits: 3)), ("end_s", .num(e.end, digits: 3)),
                ("bpm", .num(e.bpm, digits: 2)), ("confidence", .num(e.confidence, digits: 3)),
                ("motion_bpm", .num(e.motionBPM, digits: 2)),
                ("declined", e.declined.map { .string($0.rawValue) } ?? .null),
                ("best_guess_bpm", .num(e.bestGuessBPM, digits: 2)),
            ])
        })
    }
}
