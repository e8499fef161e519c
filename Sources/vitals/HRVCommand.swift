import ArgumentParser
import Foundation
import PulseDetection
import VitalsIO

/// `vitals hrv FILE`: HRV from beat times or R-R intervals (an ECG's R-peaks, a chest strap's export).
struct HRVCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hrv",
        abstract: "HRV from beat times or R-R intervals (an ECG's R-peaks, a chest strap's or a watch's R-R export).",
        discussion: """
        FILE is CSV with a header, or one interval a line without one. Beat times in seconds come from a column \
        named time_s, beat_time_s, peak_time_s or r_peak_s (--times names another); intervals from rr_ms, ibi_ms, \
        nn_ms, rr, ibi or nn (--intervals names another), in ms, in s when the name ends in _s, or by their size. \
        Intervals out of range (0.25-2 s), off the local median by more than 20 %, and short-long pairs around an \
        ectopic or misplaced beat are left out, then HRV is measured with HeartPy's names as `heart-rate` does. \
        --report writes a page: the intervals over time, the Poincaré plot, HRV and what was left out. \
        JSON: {"input", "read": {"kind", "column", "unit"}, "beats", "duration_s", "hrv": {...} | null, \
        "ectopic_beat_indices": [beat index], "intervals": [{"index", "end_s" (seconds from the first beat), "interval_ms", "accepted", "reason"}]}.
        """)

    @Argument(help: "Beat times or intervals (CSV).")
    var file: String

    @Option(help: "Column of beat times in seconds.")
    var times: String?

    @Option(help: "Column of intervals between beats.")
    var intervals: String?

    @Option(help: "Unit of the intervals: ms or s (default: from the column's name, else from their size).")
    var unit: BeatSeries.IntervalUnit?

    @Flag(help: "Print one JSON document.")
    var json = false

    @Option(help: "Also write an HTML report to this file: the intervals over time, the Poincaré plot and HRV.")
    var report: String?

    func validate() throws {
        if let report, report.isEmpty { throw ValidationError("--report needs a file name") }
    }

    func run() throws {
        try CLIError.wrap {
            if let report { try checkReportTarget(report, input: file) }
            let series = try BeatSeries.read(path: file, times: times, intervals: intervals, unit: unit)
            for note in series.notes { warn(note) }
            let result = series.hrv()
            if let report { try writeReport(HRVHTMLReport.html(input: file, series: series, hrv: result), to: report) }
            if json { return series.report(source: file, hrv: result).writeLine() }
            printSummary(series, result)
        }
    }

    private func printSummary(_ series: BeatSeries, _ result: HRVResult) {
        let what = series.kind == .beatTimes ? "beat times" : "intervals"
        print("\(file): \(result.intervals.count + 1) beats (\(what) in column '\(series.column)', \(series.unit.rawValue))")
        let reasons = IntervalRejection.allCases.compactMap { r in
            result.rejectedCount(r) > 0 ? "\(result.rejectedCount(r)) \(r.rawValue)" : nil
        }
        print("intervals   \(result.keptCount) of \(result.intervals.count) kept"
              + (reasons.isEmpty ? "" : " (left out: \(reasons.joined(separator: ", ")))")
              + (result.ectopicBeats.isEmpty ? "" : "; \(result.ectopicBeats.count) ectopic beat\(result.ectopicBeats.count == 1 ? "" : "s")"))
        // As in --json (HRVReport): no measures from fewer than 2 kept intervals.
        guard result.isMeasured else { return print("hrv         not measured: fewer than 2 intervals kept") }
        let parts = HRVMeasures.names.map { name in
            result.measures[name].flatMap { $0.isFinite ? name + " " + String(format: "%.4g", $0) : nil } ?? name + " -"
        }
        for start in stride(from: 0, to: parts.count, by: 8) {
            print((start == 0 ? "hrv         " : "            ") + parts[start..<min(start + 8, parts.count)].joined(separator: "  "))
        }
    }
}

extension BeatSeries.IntervalUnit: ExpressibleByArgument {}
