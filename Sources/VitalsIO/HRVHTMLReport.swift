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
        let all = series.intervalsMs
        var reasons = [IntervalRejection?](repeating: nil, count: all.count)
        for r in hrv.rejected where r.index < all.count { reasons[r.index] = r.reason }
        // Each interval at its end, in seconds from the first beat (an interval that is no duration has none).
        var points: [(time: Double, ms: Double, used: Bool)] = []
        var clock = 0.0
        for (i, ms) in all.enumerated() where ms.isFinite && ms > 0 {
            clock = series.kind == .beatTimes ? series.times[i + 1] - series.times[0] : clock + ms / 1000
            points.append((clock, ms, reasons[i] == nil))
        }
        let pairs = all.indices.dropLast().compactMap { i -> (x: Double, y: Double)? in
            reasons[i] == nil && reasons[i + 1] == nil ? (all[i], all[i + 1]) : nil
        }
        let kept = all.count - hrv.rejected.count
        let m = kept >= 2 ? hrv.measures : nil
        let duration = points.last?.time ?? 0

        var page = HTMLPage(title: "HRV report: \((input as NSString).lastPathComponent)", command: "vitals hrv --report")
        let what = series.kind == .beatTimes ? "beat times" : "intervals"
        page.heading("HRV report", subtitle: "\(input) · \(all.count + 1) beats over \(clockText(duration)) · \(what) in column '\(series.column)' (\(series.unit.rawValue))")
        page.cards([
            ("beats", "\(all.count + 1)", "\(kept) of \(all.count) intervals used for HRV"),
            ("heart rate", m.map { String(format: "%.1f <small>bpm</small>", $0.bpm) } ?? "–", "60 000 / the mean kept interval"),
            ("RMSSD", m.map { String(format: "%.1f <small>ms</small>", $0.rmssd) } ?? "–", m.map { String(format: "SDNN %.1f ms", $0.sdnn) } ?? "fewer than 2 intervals kept"),
            ("ectopic beats", "\(hrv.ectopicBeats.count)", "short-long pairs around a premature beat"),
        ])
        page.section("Beat-to-beat intervals", note: """
            Each interval at the time its beat came, in seconds from the first beat. Green intervals went \
            into HRV; orange were left out (out of range, off their neighbours' median by more than 20 %, \
            a short-long pair around an ectopic or misplaced beat, or across a gap). The Poincaré plot \
            pairs each kept interval with the next kept one; its ellipse has half-axes SD1 (across the \
            identity line) and SD2 (along it).
            """)
        page.append(HeartRateHTMLReport.tachogram(points, time: ReportTimeAxis(duration: duration)))
        page.append("<div class=\"row\">" + HeartRateHTMLReport.poincare(pairs: pairs, measures: m)
                    + HeartRateHTMLReport.hrvTable(hrv) + "</div>")
        page.section("Left out", note: nil)
        page.table(IntervalRejection.allCases.map { reason in
            (reason.rawValue.replacingOccurrences(of: "_", with: " "), "\(hrv.rejected.filter { $0.reason == reason }.count)")
        })
        return page.finish()
    }

    private static func clockText(_ seconds: Double) -> String {
        seconds >= 60 ? clock(seconds) : String(format: "%.1f s", seconds)
    }
}
