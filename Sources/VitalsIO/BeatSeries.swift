import PulseDetection
import SignalProcessing

/// Beats from a file of beat times or of the intervals between them, for HRV on its own: an ECG's
/// R-peaks, a chest strap's or a watch's R-R export.
///
/// The file is CSV with a header, or a single column of numbers without one (the plain R-R lists
/// of Polar, Kubios or HRV-logging apps: intervals, one a line). Without a column named, the first
/// column whose name says what it holds is read: beat times in seconds (``timeColumns``) or
/// intervals (``intervalColumns``, in ms unless the name ends in `_s`).
public struct BeatSeries: Sendable {
    public enum Kind: String, Sendable {
        /// Times of beats, seconds.
        case beatTimes = "beat_times"
        /// Intervals between consecutive beats.
        case intervals
    }

    public enum IntervalUnit: String, Sendable, CaseIterable {
        case milliseconds = "ms"
        case seconds = "s"
    }

    public var kind: Kind
    /// The column read, as the header names it (`1` for a file without a header).
    public var column: String
    /// The unit of the column read (beat times: seconds).
    public var unit: IntervalUnit
    /// Beat times in seconds, increasing (``Kind/beatTimes``; empty otherwise).
    public var times: [Double] = []
    /// Intervals in milliseconds, as read (``Kind/intervals``; empty otherwise). Entries that are no
    /// duration (empty fields, zero, negative) are kept for HRV to reject by index.
    public var intervals: [Double] = []
    /// How the file was read where it did not say (an inferred unit), for stderr.
    public var notes: [String] = []

    /// Column names read as beat times in seconds, in order of preference (case-insensitive).
    public static let timeColumns = ["beat_time_s", "beat_s", "peak_time_s", "r_peak_s", "rpeak_s", "time_s", "time"]
    /// Column names read as intervals, in order of preference (case-insensitive); in seconds when the
    /// name ends in `_s`, otherwise in milliseconds.
    public static let intervalColumns = ["rr_ms", "rri_ms", "nn_ms", "ibi_ms", "rr_interval_ms", "rr", "rri", "nn", "ibi",
                                         "rr_interval", "rr_s", "rri_s", "nn_s", "ibi_s"]

    /// Beats closer than this (s) are a signal's samples, not beats: 600 bpm.
    static let shortestBeatSpacing = 0.1

    /// HRV of the beats, with the artefact and ectopic-beat correction of `HRV` (PulseDetection).
    public func hrv() -> HRVResult {
        kind == .beatTimes ? HRV.measures(beatTimes: times) : HRV.measures(intervals: intervals)
    }

    /// The intervals in milliseconds (from the beat times, or as read).
    public var intervalsMs: [Double] {
        kind == .intervals ? intervals : zip(times, times.dropFirst()).map { ($1 - $0) * 1000 }
    }

    /// Reads `path` (see ``parse(bytes:source:times:intervals:unit:)``).
    public static func read(path: String, times: String? = nil, intervals: String? = nil,
                            unit: IntervalUnit? = nil) throws -> BeatSeries {
        try parse(bytes: readInputFile(path, text: true), source: path, times: times, intervals: intervals, unit: unit)
    }

    /// Reads beats from CSV text.
    /// - Parameters:
    ///   - bytes: the file's text.
    ///   - source: the file's name, for messages.
    ///   - times: the column of beat times (seconds) to read; nil: found by name.
    ///   - intervals: the column of intervals to read; nil: found by name.
    ///   - unit: the intervals' unit; nil: from the column's name (`_s` or `_ms`), else from their size.
    /// - Throws: `InputError`: no such column (naming those there), a beat time that is not a number
    ///   or does not come after the one before, one too far from zero (2^43 s) to keep its
    ///   milliseconds, sample times instead of beats, fewer than 3 beats,
    ///   intervals whose unit cannot be told.
    public static func parse(bytes: [UInt8], source: String, times: String? = nil, intervals: String? = nil,
                             unit: IntervalUnit? = nil) throws -> BeatSeries {
        if times != nil && intervals != nil {
            throw InputError(.badOption, "give beat times or intervals, not both")
        }
        var csv = try CSVFile(bytes: bytes, source: source)
        // A first line that is a number: a plain list without a header.
        if times == nil, intervals == nil, csv.header.count == 1, CSVFile.number(csv.header[0]) != nil {
            csv = try CSVFile(bytes: bytes, source: source, hasHeader: false)
            return try readIntervals(csv, column: 0, unit: unit)
        }
        if let times { return try readTimes(csv, column: try csv.requireColumn(times), unit: unit) }
        if let intervals { return try readIntervals(csv, column: try csv.requireColumn(intervals), unit: unit) }
        if let c = csv.columnIndex(anyOf: intervalColumns) { return try readIntervals(csv, column: c, unit: unit) }
        if let c = csv.columnIndex(anyOf: timeColumns) { return try readTimes(csv, column: c, unit: unit) }
        throw InputError(.missingColumn, "\(source): no column of beat times (\(timeColumns.joined(separator: ", "))) or intervals (\(intervalColumns.joined(separator: ", "))) in header: \(csv.headerDescription); name one with --times or --intervals")
    }

    private static func readTimes(_ csv: CSVFile, column: Int, unit: IntervalUnit?) throws -> BeatSeries {
        try csv.refuseDuplicateNames(of: [column])
        let name = csv.header[column]
        // Beat times are seconds: a unit given for them was meant for intervals the file does not hold.
        if let unit, unit != .seconds {
            throw InputError(.badOption, "\(csv.source): '\(name)' holds beat times, which are seconds; --unit \(unit.rawValue) applies to intervals (name their column with --intervals)")
        }
        var times: [Double] = []
        try csv.forEachNumericRow([column]) { line, values in
            let t = values[0]
            guard t.isFinite else {
                throw InputError(.nonFinite, "\(csv.source): line \(line): beat time '\(name)' is \(t.isNaN ? "empty or not a number" : "infinite")")
            }
            // Beyond 2^43 s (280 000 years) Doubles lie more than 1 ms apart, and the intervals between
            // such times come out in steps of that spacing (at 1e15 s, 800 ms read as 750 or 875).
            guard t.ulp <= 0.001 else {
                throw InputError(.badTimestamps, String(format: "%@: line %d: beat time %g s is too far from zero to keep its milliseconds (times there are %g s apart); beat times must lie within ±8.8e12 s (2^43)", csv.source, line, t, t.ulp))
            }
            if let last = times.last, t <= last {
                throw InputError(.badTimestamps, "\(csv.source): line \(line): beat time \(t) s does not come after the one before (\(last) s); beat times must increase")
            }
            times.append(t)
        }
        try requireBeats(times.count, csv.source)
        let spacing = Statistics.median(zip(times, times.dropFirst()).map { $1 - $0 })
        if spacing < shortestBeatSpacing {
            throw InputError(.badTimestamps, "\(csv.source): the times in '\(name)' are a median \(formatted(spacing * 1000)) ms apart: a signal's sample times, not beats (`vitals heart-rate` finds the beats in a signal)")
        }
        return BeatSeries(kind: .beatTimes, column: name, unit: .seconds, times: times)
    }

    private static func readIntervals(_ csv: CSVFile, column: Int, unit: IntervalUnit?) throws -> BeatSeries {
        try csv.refuseDuplicateNames(of: [column])
        let name = csv.header[column]
        var values = try csv.numericColumns([column])[0]
        try requireBeats(values.count + 1, csv.source)
        var notes: [String] = []
        let lower = name.lowercased()
        let resolved: IntervalUnit
        if let unit {
            resolved = unit
        } else if lower.hasSuffix("_ms") {
            resolved = .milliseconds
        } else if lower.hasSuffix("_s") {
            resolved = .seconds
        } else {
            // Human R-R intervals are 0.25-2 s: a median of 100 or more is milliseconds, 5 or less seconds.
            let median = Statistics.median(values.filter { $0.isFinite && $0 > 0 })
            if median >= 100 {
                resolved = .milliseconds
            } else if median > 0 && median <= 5 {
                resolved = .seconds
                notes.append("intervals in '\(name)' read as seconds (median \(formatted(median))); pass --unit to override")
            } else {
                throw InputError(.badOption, "\(csv.source): cannot tell the unit of the intervals in '\(name)' (median \(formatted(median))): pass --unit ms or --unit s")
            }
        }
        if resolved == .seconds { values = values.map { $0 * 1000 } }
        return BeatSeries(kind: .intervals, column: name, unit: resolved, intervals: values, notes: notes)
    }

    private static func requireBeats(_ beats: Int, _ source: String) throws {
        guard beats >= 3 else {
            throw InputError(.tooShort, "\(source): \(max(0, beats - 1)) interval\(beats == 2 ? "" : "s"): HRV needs at least 2 (3 beats)")
        }
    }

    private static func formatted(_ v: Double) -> String {
        v.isFinite ? String(Double((v * 1000).rounded()) / 1000) : "none"
    }

    /// Every interval with where it ends (seconds from the first beat; nil for an entry that is no
    /// duration) and why HRV left it out (nil: kept), as `vitals hrv` prints and draws them.
    public func intervalRows(_ result: HRVResult) -> [(ms: Double, end: Double?, rejection: IntervalRejection?)] {
        let all = intervalsMs
        var reasons = [IntervalRejection?](repeating: nil, count: all.count)
        for r in result.rejected where r.index < all.count { reasons[r.index] = r.reason }
        var clock = 0.0
        return all.enumerated().map { i, ms in
            var end: Double?
            if kind == .beatTimes {
                end = times[i + 1] - times[0]
            } else if ms.isFinite && ms > 0 {
                clock += ms / 1000
                end = clock
            }
            return (ms, end, reasons[i])
        }
    }

    /// What `vitals hrv --json` prints: how the file was read, the HRV (null with fewer than 2
    /// accepted intervals) and every interval with whether HRV kept it and why not.
    public func report(source: String, hrv result: HRVResult) -> JSON {
        let rows = intervalRows(result)
        let read: JSON = .object([("kind", .string(kind.rawValue)), ("column", .string(column)), ("unit", .string(unit.rawValue))])
        return .object([
            ("input", .string(source)),
            ("read", read),
            ("beats", .number(Double(rows.count + 1))),
            ("duration_s", .num(rows.last { $0.end != nil }?.end ?? 0, digits: 3)),
            ("hrv", HRVReport.json(result)),
            ("ectopic_beat_indices", .array(result.ectopicBeats.map { .number(Double($0)) })),
            // Made as they are written, as heart-rate's beats: a tree of a week's intervals is 500 MB.
            ("intervals", .lazyArray(count: rows.count) { i in
                .object([
                    ("index", .number(Double(i))),
                    ("end_s", .num(rows[i].end, digits: 4)),
                    ("interval_ms", .num(rows[i].ms, digits: 3)),
                    ("accepted", .bool(rows[i].rejection == nil)),
                    ("reason", rows[i].rejection.map { .string($0.rawValue) } ?? .null),
                ])
            }),
        ])
    }
}
