import Foundation
import PulseDetection

/// The HTML page `vitals hrv --report` writes: the intervals over time (kept and left out), the
/// Poincaré plot, HeartPy-named HRV and why intervals were left out. Self-contained, as the
/// heart-rate report.
public enum HRVHTMLReport {
    /// - Parameters:
    ///   - input: the file's name, shown in the heading.
    ///   - series: the beats read from it.
    ///   - hrv: `series.hrv()`.
    public static func html(input: String, series: BeatSeries, hrv: HRVResult) -> String {
        let rows = series.intervalRows(hrv)
        let points = rows.compactMap { row in row.end.map { (time: $0, ms: row.ms, used: row.rejection == nil) } }
        let pairs = zip(rows, rows.dropFirst()).compactMap { a, b -> (x: Double, y: Double)? in
            a.rejection == nil && b.rejection == nil ? (a.ms, b.ms) : nil
        }
        let m = hrv.isMeasured ? hrv.measures : nil
        let duration = points.last?.time ?? 0
        // Intervals summing past the largest Double (1.7e308 ms a few thousand times) end at infinity,
        // which no axis spans: the axis ends at the last interval that ends in finite time.
        let axisEnd = points.last { $0.time.isFinite }?.time ?? 0

        var page = HTMLPage(title: "HRV report: \((input as NSString).lastPathComponent)", command: "vitals hrv --report")
        let what = series.kind == .beatTimes ? "beat times" : "intervals"
        page.heading("HRV report", subtitle: "\(input) · \(rows.count + 1) beats over \(clockText(duration)) · \(what) in column '\(series.column)' (\(series.unit.rawValue))")
        page.cards([
            ("beats", "\(rows.count + 1)", "\(hrv.keptCount) of \(rows.count) intervals used for HRV"),
            ("heart rate", m.map { String(format: "%.1f <small>bpm</small>", $0.bpm) } ?? "–", "60 000 / the mean kept interval"),
            // RMSSD needs two kept intervals in a row, which two kept intervals need not be.
            ("RMSSD", m.flatMap { $0.rmssd.isFinite ? String(format: "%.1f <small>ms</small>", $0.rmssd) : nil } ?? "–", m.map { String(format: "SDNN %.1f ms", $0.sdnn) } ?? "fewer than 2 intervals kept"),
            ("ectopic beats", "\(hrv.ectopicBeats.count)", "short-long pairs around a premature beat"),
        ])
        page.section("Beat-to-beat intervals", note: """
            Each interval at the time its beat came, in seconds from the first beat. Green intervals went \
            into HRV; orange were left out (out of range, off their neighbours' median by more than 20 %, \
            a short-long pair around an ectopic or misplaced beat, or across a gap). The Poincaré plot \
            pairs each kept interval with the next kept one; its ellipse has half-axes SD1 (across the \
            identity line) and SD2 (along it).
            """)
        page.append(HeartRateHTMLReport.tachogram(points, time: ReportTimeAxis(duration: axisEnd)))
        page.append("<div class=\"row\">" + HeartRateHTMLReport.poincare(pairs: pairs, measures: m)
                    + HeartRateHTMLReport.hrvTable(hrv) + "</div>")
        page.section("Left out", note: nil)
        page.table(IntervalRejection.allCases.map { reason in
            (reason.rawValue.replacingOccurrences(of: "_", with: " "), "\(hrv.rejectedCount(reason))")
        })
        return page.finish()
    }

    private static func clockText(_ seconds: Double) -> String {
        seconds >= 60 ? clock(seconds) : String(format: "%.1f s", seconds)
    }
}
