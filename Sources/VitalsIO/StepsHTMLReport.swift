import Foundation
import MotionAnalysis
import SignalProcessing

/// The `vitals steps FILE --report FILE.html` page: the steps the pedometer counted, drawn over the
/// acceleration they were found in, the cadence over time, the pauses and resumes it reported (and
/// how late), and the altitude when the log has one.
public enum StepsHTMLReport {
    /// The page for one analysed recording; `file` is its name as shown to the reader.
    public static func html(file: String, recording: AccelerationRecording, analysis: StepAnalysis) -> String {
        let duration = recording.duration
        let gaps = recording.gaps.map { (from: recording.time[$0.index - 1], to: recording.time[$0.index]) }
        let time = ReportTimeAxis(duration: duration, gaps: gaps)
        let d = analysis.data
        var page = HTMLPage(title: "Steps report: \((file as NSString).lastPathComponent)", command: "vitals steps --report")
        page.heading("Steps report", subtitle: String(format: "%@ · %@ · %@ · %d samples, %d gaps", file, recording.format,
                                                     clock(duration), recording.time.count, recording.gaps.count))
        page.cards([
            ("steps", "\(d.numberOfSteps)", String(format: "%.0f s active of %.0f s", d.activeTime, duration)),
            ("distance", String(format: "%.0f <small>m</small>", d.distance),
             d.averageActivePace.map { String(format: "active pace %.2f s/m", $0) } ?? "no active pace"),
            ("cadence", String(format: "%.2f <small>steps/s</small>", d.averageCadence), "over the active time"),
            ("floors", d.floorsAscended.map { "+\($0) / -\(d.floorsDescended ?? 0)" } ?? "–",
             recording.altitude == nil ? "no altitude in the log" : "from the relative altitude"),
        ])

        let pauses = pausedSpans(analysis.events, end: duration)
        page.section("Steps", note: """
            The acceleration's magnitude (g, gravity included) with a tick at each step counted. Shaded: \
            from each pause the pedometer reported to the next resume (orange), and gaps in the log (grey).
            """)
        let magnitude = recording.acceleration.map(\.magnitude)
        let sorted = magnitude.sorted()
        let top = sorted.isEmpty ? 2 : max(1.2, sorted[Int(0.999 * Double(sorted.count - 1))] * 1.05)
        var steps = time.chart(height: 220, y: 0...top, yLabel: "|acceleration| (g)")
        steps.spans(time.map(gaps.filter { $0.to - $0.from <= ReportTimeAxis.longGap }), color: "#777")
        steps.spans(time.map(pauses), color: "#f08c00", opacity: 0.15)
        steps.line(zip(recording.time, magnitude).map { (time.x($0), $1) }, color: "#555", width: 1, maxGap: 1)
        steps.marks(analysis.stepTimes.map(time.x), color: "#1a9850", from: 0.9, width: 1.5)
        page.append(steps.render(title: "Acceleration and steps", id: "steps"))

        page.section("Cadence", note: "Steps per second: one over each step's interval from the step before it. Shaded: paused.")
        let intervals = zip(analysis.stepTimes.dropFirst(), analysis.stepTimes).map { (x: $0, y: 1 / ($0 - $1)) }
            .filter { $0.y.isFinite && $0.y < 5 }
        var cadence = time.chart(height: 170, y: 0...max(3, (intervals.map(\.y).max() ?? 2) * 1.05), yLabel: "steps/s")
        cadence.spans(time.map(pauses), color: "#f08c00", opacity: 0.15)
        cadence.dots(time.map(intervals), color: "#2b6cb0", radius: 1.6)
        page.append(cadence.render(title: "Cadence", id: "cadence"))

        if let altitude = recording.altitude, !altitude.isEmpty {
            page.section("Altitude", note: "Relative altitude (m) as the log has it.")
            let metres = altitude.map(\.relativeAltitude)
            let lo = metres.min()!, hi = metres.max()!
            var chart = time.chart(height: 170, y: (lo - 1)...(hi + 1), yLabel: "altitude (m)")
            chart.line(altitude.map { (time.x($0.time), $0.relativeAltitude) }, color: "#6b46c1", width: 1.2, maxGap: 5)
            page.append(chart.render(title: "Altitude", id: "altitude"))
        }

        let reported = analysis.events.filter { $0.kind != .step }
        if !reported.isEmpty {
            page.table(reported.map { e in
                (e.kind.rawValue, String(format: "at %.2f s, reported at %.2f s (%.2f s later)", e.time, e.reportedAt, e.reportedAt - e.time))
            }, heading: "Pauses and resumes")
        }
        if !recording.notes.isEmpty { page.table(recording.notes.map { ("note", $0) }, heading: "Notes") }
        return page.finish()
    }

    /// From each pause to the next resume (or the end), and from the start to a first resume (the
    /// pedometer starts still).
    static func pausedSpans(_ events: [PedometerEvent], end: Double) -> [(from: Double, to: Double)] {
        let changes = events.filter { $0.kind != .step }.map { (time: $0.time, on: $0.kind == .resume) }
        return offSpans(changes, end: end, offAtStart: true)
    }
}
