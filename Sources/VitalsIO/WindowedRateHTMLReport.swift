import Foundation
import PulseDetection
import SignalProcessing

/// The `--report FILE.html` page of the windowed rate trackers: `vitals heart-rate --motion` (a
/// moving wrist's PPG beside its accelerometer) and `--skin` / `--face` (the remote pulse). One
/// self-contained HTML file, as ``HeartRateHTMLReport``: each window's rate over time (declined
/// windows hollow at their best guess, the movement's rate beside the wrist's), each window's
/// confidence, stretches of the signals the windows were read from, and why windows were declined.
public enum WindowedRateHTMLReport {
    /// A signal drawn in the strips: a name, a colour and its samples (times in seconds from the
    /// start, in order).
    public struct Signal: Sendable {
        public var name: String
        public var color: String
        public var times: [Double]
        public var values: [Double]

        public init(name: String, color: String, times: [Double], values: [Double]) {
            self.name = name
            self.color = color
            self.times = times
            self.values = values
        }
    }

    /// What the page says about one analysed recording.
    public struct Content: Sendable {
        /// The page's heading, e.g. "Heart rate from a moving wrist".
        public var heading: String
        /// The command that made it, for the footer.
        public var command: String
        /// The input as shown to the reader.
        public var input: String
        /// What was read, for the line under the heading ("PPG ppg1,ppg2 and motion acc_x,acc_y,acc_z").
        public var description: String
        public var duration: Double
        public var sampleRate: Double
        public var gaps: [(from: Double, to: Double)]
        public var estimates: [WristRateTracker.Estimate]
        /// The recording's rate (nil when none is reported) and how it was found.
        public var heartRate: Double?
        public var heartRateDetail: String
        /// Whether each window's `motionBPM` is the movement's rate (the wrist tracker), so it is drawn.
        public var drawsMovement: Bool
        /// Signals for the strips, drawn one above the other.
        public var signals: [Signal]
        /// Further rows of the table under the charts (method, regions, frames left out, ...).
        public var details: [(String, String)]

        public init(heading: String, command: String, input: String, description: String, duration: Double, sampleRate: Double,
                    gaps: [(from: Double, to: Double)], estimates: [WristRateTracker.Estimate], heartRate: Double?,
                    heartRateDetail: String, drawsMovement: Bool, signals: [Signal], details: [(String, String)]) {
            self.heading = heading
            self.command = command
            self.input = input
            self.description = description
            self.duration = duration
            self.sampleRate = sampleRate
            self.gaps = gaps
            self.estimates = estimates
            self.heartRate = heartRate
            self.heartRateDetail = heartRateDetail
            self.drawsMovement = drawsMovement
            self.signals = signals
            self.details = details
        }
    }

    /// Strips of the signals: this long, at most this many, spread over the recording.
    static let stripSeconds = 10.0, maximumStrips = 4

    public static func html(_ c: Content) -> String {
        // The last window may end a frame interval after the last sample.
        let time = ReportTimeAxis(duration: max(c.duration, c.estimates.last?.end ?? 0), gaps: c.gaps)
        var page = HTMLPage(title: "\(c.heading): \((c.input as NSString).lastPathComponent)", command: c.command)
        page.heading(c.heading, subtitle: String(format: "%@ · %@ at %.1f Hz · %@", c.input, clock(c.duration), c.sampleRate, c.description))
        let answered = c.estimates.filter { $0.bpm != nil }
        let window = c.estimates.first.map { $0.end - $0.start } ?? 0
        var cards: [(label: String, value: String, detail: String)] = [
            ("Heart rate", c.heartRate.map { String(format: "%.1f <small>bpm</small>", $0) } ?? "–", c.heartRateDetail),
            ("Windows answered", "\(answered.count) <small>of \(c.estimates.count)</small>",
             window > 0 ? String(format: "%g-s windows", window) : "no window fits the recording"),
        ]
        if c.drawsMovement {
            let movement = c.estimates.compactMap(\.motionBPM)
            cards.append(("Movement", movement.isEmpty ? "–" : String(format: "%.0f <small>per min</small>", Statistics.median(movement)),
                          movement.isEmpty ? "no movement found" : "median rate of the arm's movement, \(movement.count) windows"))
        }
        page.cards(cards)
        page.section("Heart rate over time", note: """
            Each dot is one window's rate, placed at the window's end: filled where the rate was \
            reported, hollow (at the best guess) where the window was declined.\
            \(c.drawsMovement ? " Orange: the rate of the arm's movement the accelerometer shows, which the tracker keeps apart from the pulse." : "") \
            Shaded: gaps in the recording.
            """)
        page.append(rateChart(c, time: time))
        page.append(confidenceChart(c, time: time))
        if !c.signals.isEmpty {
            page.section("Signals", note: """
                Stretches of up to \(String(format: "%g", stripSeconds)) s of the input, spread over the recording: each signal \
                with its median taken away and scaled by its spread in the stretch, one above the other.
                """)
            page.append("<p class=\"key\">" + c.signals.map { "<span><i style=\"background:\($0.color)\"></i>\(HTML.escape($0.name))</span>" }.joined() + "</p>")
            for (i, strip) in stripSpans(duration: c.duration, gaps: c.gaps, length: stripSeconds, maximum: maximumStrips).enumerated() {
                page.append(signalChart(c, strip: strip, index: i))
            }
        }
        page.section("Windows", note: nil)
        var rows: [(String, String)] = [("windows", "\(c.estimates.count)"), ("answered", "\(answered.count)")]
        var reasons: [String: Int] = [:]
        for e in c.estimates { if let d = e.declined { reasons[d.rawValue, default: 0] += 1 } }
        for (reason, count) in reasons.sorted(by: { $0.key < $1.key }) {
            rows.append(("declined: " + reason.replacingOccurrences(of: "_", with: " "), "\(count)"))
        }
        if !answered.isEmpty {
            let bpm = answered.compactMap(\.bpm)
            rows.append(("answered rates", String(format: "%.1f-%.1f bpm, median %.1f", bpm.min()!, bpm.max()!, Statistics.median(bpm))))
            rows.append(("median confidence of the answered", String(format: "%.2f", Statistics.median(answered.map(\.confidence)))))
        }
        rows.append(("gaps", "\(c.gaps.count)"))
        page.table(rows + c.details)
        return page.finish()
    }

    static func rateChart(_ c: Content, time: ReportTimeAxis) -> String {
        let answered = c.estimates.compactMap { e in e.bpm.map { (x: e.end, y: $0) } }
        let declined = c.estimates.filter { $0.bpm == nil && $0.bestGuessBPM.isFinite }.map { (x: $0.end, y: $0.bestGuessBPM) }
        let movement = c.drawsMovement ? c.estimates.compactMap { e in e.motionBPM.map { (x: e.end, y: $0) } } : []
        let shown = (answered + declined + movement).map(\.y)
        let lo = max(20, (shown.min() ?? 50) - 10), hi = min(260, (shown.max() ?? 110) + 10)
        var chart = time.chart(height: 240, y: lo...hi, yLabel: "rate (per min)")
        chart.spans(time.map(c.gaps), color: "#777")
        let hop = c.estimates.count > 1 ? c.estimates[1].end - c.estimates[0].end : 1
        chart.dots(time.map(movement), color: HeartRateHTMLReport.orange, radius: 1.8)
        chart.dots(time.map(declined), color: HeartRateHTMLReport.grey, radius: 2.2, hollow: true)
        chart.line(time.map(answered), color: HeartRateHTMLReport.blue, width: 1, maxGap: 3 * max(hop, 1e-3))
        chart.dots(time.map(answered), color: HeartRateHTMLReport.blue, radius: 2)
        if let hr = c.heartRate { chart.rule(y: hr, color: "#333", label: String(format: "whole recording %.1f bpm", hr)) }
        return chart.render(title: "Heart rate over time", id: "rate")
    }

    static func confidenceChart(_ c: Content, time: ReportTimeAxis) -> String {
        var chart = time.chart(height: 130, y: 0...1, yLabel: "confidence")
        chart.spans(time.map(c.gaps), color: "#777")
        chart.dots(time.map(c.estimates.filter { $0.bpm != nil }.map { ($0.end, $0.confidence) }), color: "#6b46c1", radius: 1.8)
        chart.dots(time.map(c.estimates.filter { $0.bpm == nil }.map { ($0.end, $0.confidence) }), color: HeartRateHTMLReport.grey,
                   radius: 2, hollow: true)
        return chart.render(title: "Confidence over time", id: "confidence")
    }

    static func signalChart(_ c: Content, strip: (from: Double, to: Double), index: Int) -> String {
        let n = c.signals.count
        var chart = SVGChart(width: 960, height: 60 + 50 * Double(n), x: strip.from...max(strip.to, strip.from + 1e-3),
                             y: -1...(2 * Double(n) - 1),
                             xLabel: c.duration > 60 ? "time (\(strip.to >= 3600 ? "h:mm:ss" : "m:ss"))" : "time (s)", yLabel: "")
        if c.duration > 60 { chart.xTickFormat = { clock($0) } }
        chart.yTicks = false
        chart.spans(c.gaps, color: "#777")
        for (k, signal) in c.signals.enumerated() {
            // The samples inside the strip, found by binary search (times are in order).
            let lo = firstIndex(signal.times) { $0 >= strip.from }, hi = firstIndex(signal.times) { $0 > strip.to }
            guard lo < hi else { continue }
            let values = Array(signal.values[lo..<hi]).filter(\.isFinite)
            guard !values.isEmpty else { continue }
            let median = Statistics.median(values)
            let spread = max(Statistics.percentile(values, 99) - Statistics.percentile(values, 1), 1e-12)
            let offset = 2 * Double(n - 1 - k)
            chart.line((lo..<hi).map { (signal.times[$0], offset + 1.8 * (signal.values[$0] - median) / spread) },
                       color: signal.color, width: 1, maxGap: 0.5)
        }
        return chart.render(title: "Signal strip \(index + 1)", id: "signal\(index)")
    }

    /// The first index of `times` (in order) where `condition` holds (it holds from there on), or the count.
    private static func firstIndex(_ times: [Double], where condition: (Double) -> Bool) -> Int {
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if condition(times[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}

extension WristRecording {
    /// The `vitals heart-rate --motion --report` page: the tracker's windows (`estimates`, from
    /// ``track(with:)``), the movement's rate beside the pulse's, and strips of each PPG channel and
    /// of the acceleration's magnitude.
    public func htmlReport(input: String, estimates: [WristRateTracker.Estimate]) -> String {
        let answered = estimates.compactMap(\.bpm)
        let palette = ["#2b6cb0", "#1a9850", "#6b46c1", "#b83280"]
        var signals = ppg.enumerated().map { k, values in
            WindowedRateHTMLReport.Signal(name: "PPG \(ppgColumns[k])", color: palette[k % palette.count], times: times, values: values)
        }
        signals.append(.init(name: "|acceleration|", color: HeartRateHTMLReport.orange, times: times,
                             values: acceleration.map { ($0 * $0).sum().squareRoot() }))
        return WindowedRateHTMLReport.html(.init(
            heading: "Heart rate from a moving wrist", command: "vitals heart-rate --motion --report", input: input,
            description: "PPG \(ppgColumns.joined(separator: ",")), motion \(motionColumns.joined(separator: ","))",
            duration: duration, sampleRate: sampleRate, gaps: gaps, estimates: estimates,
            heartRate: answered.isEmpty ? nil : Statistics.median(answered),
            heartRateDetail: answered.isEmpty ? "every window declined" : "median of the answered windows",
            drawsMovement: true, signals: signals,
            details: [("method", "PPG spectrum weighted by the accelerometer's, tracked over windows")]))
    }
}

extension SkinRecording {
    /// The `vitals heart-rate --skin|--face --report` page: the windows of `analysis`, and strips of
    /// each region's green (the channel that carries most of the pulse) and, for one region, its red and blue.
    public func htmlReport(input: String, heading: String, command: String, analysis: Analysis,
                           pulse settings: RemotePulse.Settings) -> String {
        let times = colors.first?.map(\.time) ?? []
        let palette = ["#1a9850", "#2b6cb0", "#6b46c1", "#b83280"]
        var signals: [WindowedRateHTMLReport.Signal]
        if colors.count == 1 {
            signals = [("red", "#d7301f", \ColorSample.red), ("green", "#1a9850", \ColorSample.green), ("blue", "#2b6cb0", \ColorSample.blue)]
                .map { name, color, channel in .init(name: "\(regions[0]) \(name)", color: color, times: times, values: colors[0].map { $0[keyPath: channel] }) }
        } else {
            signals = colors.enumerated().map { k, region in
                .init(name: "\(regions[k]) green", color: palette[k % palette.count], times: times, values: region.map(\.green))
            }
        }
        let frames = colors.first?.count ?? 0
        var details: [(String, String)] = [
            ("method", "remote pulse: \(settings.method.rawValue) projection of the skin's colour, spectrum tracked over windows"),
            ("frames", "\(frames)"),
        ]
        for (k, region) in regions.enumerated() {
            details.append(("region \(region)", "\(analysis.rejectedFrames[k]) frames left out; counted in \(analysis.windowsCounted[k]) windows"))
        }
        let consensus = analysis.consensus
        return WindowedRateHTMLReport.html(.init(
            heading: heading, command: command, input: input,
            description: "regions " + regions.joined(separator: ", "),
            duration: duration, sampleRate: sampleRate, gaps: gaps, estimates: analysis.estimates, heartRate: consensus.bpm,
            heartRateDetail: String(format: "%.0f %% of the windows agree within 5 bpm", 100 * consensus.agreement),
            drawsMovement: false, signals: signals, details: details))
    }
}
