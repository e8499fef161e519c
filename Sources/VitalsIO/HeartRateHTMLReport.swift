import Foundation
import PulseDetection
import SignalProcessing

/// The `vitals heart-rate --report FILE.html` page: one self-contained HTML file (inline SVG and
/// CSS, nothing fetched) that shows a person what the pipeline found and how far to trust it: the
/// rate over time beside its quality index, stretches of the waveform with every beat marked, the
/// beat-to-beat intervals and their Poincaré plot, and the HRV measures under HeartPy's names.
public enum HeartRateHTMLReport {
    /// Stretches of the pulse waveform drawn in the report, and the waveform collected for them
    /// while the pipeline runs (`observe` every event). Up to `maximumStrips` strips of
    /// `stripSeconds`: the whole of a short recording, evenly spread over a long one, so memory stays
    /// small whatever the length.
    public final class Waveform {
        public static let stripSeconds = 10.0
        public static let maximumStrips = 6
        /// Start and end of each strip, seconds from the start of the recording.
        public let strips: [(from: Double, to: Double)]
        /// The waveform samples inside each strip.
        public private(set) var samples: [[(x: Double, y: Double)]]

        /// Strips for a recording `duration` seconds long.
        public init(duration: Double) {
            strips = stripSpans(duration: duration, gaps: [], length: Self.stripSeconds, maximum: Self.maximumStrips)
            samples = Array(repeating: [], count: strips.count)
        }

        /// Keeps the `.waveform` samples that fall in a strip.
        public func observe(_ event: PulseEvent) {
            guard case .waveform(let w) = event else { return }
            for (i, s) in strips.enumerated() where w.time >= s.from && w.time <= s.to {
                samples[i].append((w.time, w.value))
            }
        }
    }

    /// The page for one analysed recording.
    /// - Parameters:
    ///   - input: the input's name as shown to the reader.
    ///   - recording: the recording analysed: its sample rate, columns, gaps and covered span are
    ///     drawn and tabulated.
    ///   - analysis: the pipeline's result over `recording` (rates, beats, HRV, quality).
    ///   - waveform: the strips collected while `analysis` ran.
    public static func html(input: String, recording: PulseRecording, analysis: PulseAnalysis, waveform: Waveform) -> String {
        let duration = recording.coveredDuration
        let time = ReportTimeAxis(duration: duration, gaps: recording.gaps)
        var page = HTMLPage(title: "Heart rate report: \((input as NSString).lastPathComponent)", command: "vitals heart-rate --report")
        page.heading("Heart rate report", subtitle: String(format: "%@ · %@ at %.1f Hz · %@", input, clock(duration), recording.sampleRate,
                                                          recording.columns))
        page.cards(cards(analysis: analysis, duration: duration))
        page.section("Heart rate over time", note: """
            Each dot is one analysis window's rate (a \(fmtNumber(analysis.analysisWindow)) s window every hop): \
            filled where the rate was reported, hollow where the pipeline declined to answer. \
            Small grey dots are beat-to-beat rates (60 / interval). Shaded: gaps in the recording \
            (grey) and times without a finger on the lens (red).
            """)
        page.append(rateChart(analysis: analysis, recording: recording, time: time))
        page.append(qualityChart(analysis: analysis, recording: recording, time: time))
        page.section("Waveform", note: """
            The band-passed pulse of the channel beats are timed on, in units of its recent spread, as \
            the live monitor draws it. Marks: beats used for HRV (green), beats kept out of HRV \
            (orange: an artefact, a doubtful shape, or found while the rate was declined) and beats \
            judged ectopic (red).
            """)
        for (i, strip) in waveform.strips.enumerated() {
            page.append(waveformChart(strip: strip, samples: waveform.samples[i], analysis: analysis, recording: recording, index: i))
        }
        page.section("Beat-to-beat intervals", note: """
            Intervals between consecutive beats. Green intervals went into HRV; orange were kept out \
            (the reason is in the JSON's beats). The Poincaré plot pairs each accepted interval with the \
            next; its ellipse has half-axes SD1 (across the identity line) and SD2 (along it).
            """)
        let intervals = analysis.beats.compactMap { b in b.interval.map { (time: b.time, ms: $0 * 1000, used: used(b, analysis)) } }
        page.append(tachogram(intervals, time: time))
        page.append("<div class=\"row\">" + poincare(pairs: poincarePairs(analysis), measures: analysis.hrv?.measures) + hrvTable(analysis.hrv) + "</div>")
        page.section("Quality", note: nil)
        page.table(qualityRows(recording: recording, analysis: analysis))
        return page.finish()
    }

    // MARK: Charts

    static let green = "#1a9850", orange = "#f08c00", red = "#d7301f", blue = "#2b6cb0", grey = "#9a9a9a"

    static func rateChart(analysis: PulseAnalysis, recording: PulseRecording, time: ReportTimeAxis) -> String {
        let reported = analysis.estimates.filter { $0.confidence >= analysis.minimumConfidence && $0.bpm.isFinite }
        let declined = analysis.estimates.filter { !($0.confidence >= analysis.minimumConfidence) && $0.bpm.isFinite }
        let beatRates = analysis.beats.compactMap { b in b.interval.map { (x: b.time, y: 60 / $0) } }
        let shown = reported.map(\.bpm) + declined.map(\.bpm)
        let lo = max(30, (shown.min() ?? 50) - 10), hi = min(240, (shown.max() ?? 110) + 10)
        var chart = time.chart(height: 240, y: lo...hi, yLabel: "heart rate (bpm)")
        chart.spans(time.map(recording.gaps), color: "#777")
        chart.spans(time.map(noContactSpans(analysis, duration: recording.coveredDuration)), color: red, opacity: 0.1)
        chart.dots(time.map(beatRates), color: "#c8c8c8", radius: 1.2)
        chart.dots(time.map(declined.map { ($0.time, $0.bpm) }), color: grey, radius: 2.2, hollow: true)
        chart.line(time.map(reported.map { ($0.time, $0.bpm) }), color: blue, width: 1, maxGap: 3 * max(hop(analysis), 1))
        chart.dots(time.map(reported.map { ($0.time, $0.bpm) }), color: blue, radius: 2)
        if let hr = analysis.heartRate { chart.rule(y: hr.bpm, color: "#333", label: String(format: "whole recording %.1f bpm", hr.bpm)) }
        return chart.render(title: "Heart rate over time", id: "rate")
    }

    static func qualityChart(analysis: PulseAnalysis, recording: PulseRecording, time: ReportTimeAxis) -> String {
        var chart = time.chart(height: 130, y: 0...1, yLabel: "quality index")
        chart.spans(time.map(recording.gaps), color: "#777")
        chart.line(time.map(analysis.updates.map { ($0.time, $0.index) }), color: "#6b46c1", width: 1.2, maxGap: 3 * max(hop(analysis), 1))
        chart.rule(y: analysis.minimumConfidence, color: red, label: "reported above this")
        return chart.render(title: "Quality index over time", id: "quality")
    }

    static func waveformChart(strip: (from: Double, to: Double), samples: [(x: Double, y: Double)], analysis: PulseAnalysis,
                              recording: PulseRecording, index: Int) -> String {
        let values = samples.map(\.y).filter(\.isFinite).sorted()
        let bound = values.isEmpty ? 3 : max(1, min(6, 1.15 * max(abs(values[Int(0.005 * Double(values.count - 1))]),
                                                                abs(values[Int(0.995 * Double(values.count - 1))]))))
        var chart = SVGChart(width: 960, height: 150, x: strip.from...max(strip.to, strip.from + 1e-3), y: -bound...bound,
                             xLabel: recording.coveredDuration > 60 ? "time (\(strip.to >= 3600 ? "h:mm:ss" : "m:ss"))" : "time (s)",
                             yLabel: "pulse")
        if recording.coveredDuration > 60 { chart.xTickFormat = { clock($0) } }
        chart.spans(recording.gaps, color: "#777")
        chart.spans(noContactSpans(analysis, duration: recording.coveredDuration), color: red, opacity: 0.1)
        if samples.isEmpty {
            chart.raw("<text x=\"\(fmt(chart.left + chart.plotWidth / 2))\" y=\"\(fmt(chart.top + chart.plotHeight / 2))\" text-anchor=\"middle\" fill=\"#777\">no waveform here: no finger on the lens, a gap, or before the first analysis</text>")
        }
        let beats = analysis.beats.filter { $0.time >= strip.from && $0.time <= strip.to }
        let ectopic = Set(analysis.beats.filter(\.isEctopic).map(\.time))
        // A faint line through the waveform and a tick along the top for each beat.
        for (beats, color) in [(beats.filter { !ectopic.contains($0.time) && used($0, analysis) }, green),
                               (beats.filter { !ectopic.contains($0.time) && !used($0, analysis) }, orange),
                               (beats.filter { ectopic.contains($0.time) }, red)] {
            chart.marks(beats.map(\.time), color: color + "55", width: 1)
            chart.marks(beats.map(\.time), color: color, from: 0.88, width: 2.5)
        }
        chart.line(samples, color: "#222", width: 1.2, maxGap: 0.5)
        return chart.render(title: "Waveform strip \(index + 1)", id: "wave\(index)")
    }

    /// Intervals over time: `used` ones (in HRV) green, the others orange.
    /// The axis spans the intervals' 1st to 99th percentile within 200-2500 ms, at least 100 ms of it
    /// (intervals all outside that, as `vitals hrv` reads and rejects, are off the chart).
    static func tachogram(_ points: [(time: Double, ms: Double, used: Bool)], time: ReportTimeAxis) -> String {
        let ms = points.map(\.ms).sorted()
        let lo = ms.isEmpty ? 300 : min(2400, max(200, ms[Int(0.01 * Double(ms.count - 1))] - 100))
        let hi = ms.isEmpty ? 1500 : max(lo + 100, min(2500, ms[Int(0.99 * Double(ms.count - 1))] + 100))
        var chart = time.chart(height: 200, y: lo...hi, yLabel: "interval (ms)")
        chart.dots(time.map(points.filter { !$0.used }.map { ($0.time, $0.ms) }), color: orange, radius: 2)
        chart.dots(time.map(points.filter(\.used).map { ($0.time, $0.ms) }), color: green, radius: 1.6)
        return chart.render(title: "Beat-to-beat intervals", id: "tachogram")
    }

    /// Each accepted interval (ms) beside the next, where both went into HRV.
    static func poincarePairs(_ analysis: PulseAnalysis) -> [(x: Double, y: Double)] {
        var pairs: [(x: Double, y: Double)] = []
        let beats = analysis.beats
        for k in beats.indices.dropFirst(2) {
            guard let a = beats[k - 1].interval, let b = beats[k].interval, used(beats[k - 1], analysis), used(beats[k], analysis) else { continue }
            pairs.append((a * 1000, b * 1000))
        }
        return pairs
    }

    /// The Poincaré plot of `pairs` (ms) with the SD1/SD2 ellipse of `measures`.
    static func poincare(pairs: [(x: Double, y: Double)], measures: HRVMeasures?) -> String {
        let all = pairs.flatMap { [$0.x, $0.y] }.sorted()
        let lo = all.isEmpty ? 400 : all[Int(0.005 * Double(all.count - 1))] - 60
        let hi = all.isEmpty ? 1200 : all[Int(0.995 * Double(all.count - 1))] + 60
        var chart = SVGChart(width: 380, height: 380, x: lo...hi, y: lo...hi, xLabel: "interval n (ms)", yLabel: "interval n + 1 (ms)")
        // Equal scales on both axes, so the identity line is at 45° and the ellipse is true.
        chart.right = chart.width - chart.left - (chart.height - chart.top - chart.bottom)
        chart.raw("<path d=\"M\(fmt(chart.px(lo))) \(fmt(chart.py(lo)))L\(fmt(chart.px(hi))) \(fmt(chart.py(hi)))\" stroke=\"#bbb\" stroke-dasharray=\"4 3\"/>")
        chart.dots(pairs, color: green, radius: 1.6)
        if let m = measures, m.sd1.isFinite, m.sd2.isFinite, !pairs.isEmpty {
            let mean = Statistics.mean(pairs.map(\.x))
            let scale = chart.plotWidth / (hi - lo)
            chart.raw("<ellipse cx=\"\(fmt(chart.px(mean)))\" cy=\"\(fmt(chart.py(mean)))\" rx=\"\(fmt(m.sd2 * scale))\" ry=\"\(fmt(m.sd1 * scale))\" transform=\"rotate(-45 \(fmt(chart.px(mean))) \(fmt(chart.py(mean))))\" fill=\"\(blue)\" fill-opacity=\"0.12\" stroke=\"\(blue)\"/>")
        }
        return "<figure>" + chart.render(title: "Poincaré plot", id: "poincare") + "</figure>"
    }

    // MARK: Tables

    static func hrvTable(_ hrv: HRVResult?) -> String {
        guard let hrv, hrv.isMeasured else {
            return "<div class=\"table\"><h3>HRV</h3><p>Not computed: fewer than two accepted intervals.</p></div>"
        }
        let units = ["bpm": "bpm", "ibi": "ms", "sdnn": "ms", "sdsd": "ms", "rmssd": "ms", "pnn20": "", "pnn50": "", "hr_mad": "ms",
                     "sd1": "ms", "sd2": "ms", "s": "ms²", "sd1/sd2": "", "breathingrate": "Hz", "lf": "ms²", "hf": "ms²", "lf/hf": "",
                     "vlf": "ms²", "p_total": "ms²", "vlf_perc": "%", "lf_perc": "%", "hf_perc": "%", "lf_nu": "n.u.", "hf_nu": "n.u."]
        var rows = ""
        for name in HRVMeasures.names {
            let v = hrv.measures[name] ?? .nan
            rows += "<tr><td><code>\(HTML.escape(name))</code></td><td class=\"num\">\(v.isFinite ? fmtNumber(v) : "–")</td><td>\(units[name] ?? "")</td></tr>"
        }
        return """
            <div class="table"><h3>HRV (HeartPy's names)</h3><table>\(rows)</table>
            <p>\(hrv.keptCount) of \(hrv.intervals.count) intervals used; \
            \(hrv.ectopicBeats.count) ectopic beat\(hrv.ectopicBeats.count == 1 ? "" : "s").</p></div>
            """
    }

    static func qualityRows(recording: PulseRecording, analysis: PulseAnalysis) -> [(String, String)] {
        let q = analysis.updates
        let duration = recording.coveredDuration
        let answered = analysis.analysedSeconds(end: duration, answeredOnly: true)
        var rows: [(String, String)] = [
            ("analysis windows", "\(q.count), \(analysis.rates.count) reported (\(percent(Double(analysis.rates.count), of: Double(q.count))))"),
            ("answered", String(format: "%.1f of %.1f s", answered, duration)),
            ("median quality index", fmtNumber(Statistics.median(q.map(\.index)))),
            ("rate channel / beat channel", "\(HeartRateReport.mostCommon(q.map(\.channel)) ?? recording.columns) / \(HeartRateReport.mostCommon(q.map(\.beatChannel)) ?? recording.columns)"),
            ("perfusion", q.compactMap(\.perfusionPercent).isEmpty ? "–" : fmtNumber(Statistics.median(q.compactMap(\.perfusionPercent))) + " %"),
            ("gaps", recording.gaps.isEmpty ? "none" : recording.gaps.map { String(format: "%.1f-%.1f s", $0.from, $0.to) }.joined(separator: ", ")),
            ("samples skipped", "\(analysis.rejections.nonFinite + analysis.rejections.nonIncreasingTime) (not finite, or time not increasing)"),
            ("flat runs", "\(analysis.rejections.flatRuns) (runs of identical samples: a clipped sensor)"),
        ]
        rows += recording.notes.map { ("note", $0) }
        return rows
    }

    // MARK: Helpers

    /// Whether a beat's interval went into HRV (not an artefact, a doubtful shape, or found while declined).
    static func used(_ b: Beat, _ analysis: PulseAnalysis) -> Bool {
        !b.isArtifact && !b.hasDoubtfulShape && !analysis.foundWhileDeclined(b)
    }

    /// Seconds between tracker updates.
    static func hop(_ analysis: PulseAnalysis) -> Double {
        analysis.updates.count > 1 ? Statistics.median(zip(analysis.updates.dropFirst(), analysis.updates).map { $0.time - $1.time }) : 1
    }

    /// Stretches without a finger on the lens: from each contact lost to the next contact found (or
    /// the end), and from the start to the first contact found when contact was found only later.
    static func noContactSpans(_ analysis: PulseAnalysis, duration: Double) -> [(from: Double, to: Double)] {
        let changes = analysis.contactEvents.compactMap { e -> (time: Double, on: Bool)? in
            switch e {
            case .contactLost(let t): (t, false)
            case .contactFound(let t): (t, true)
            default: nil
            }
        }
        return offSpans(changes, end: duration, offAtStart: (changes.first?.time ?? 0) > 0.5)
    }

    static func percent(_ a: Double, of b: Double) -> String { b > 0 ? String(format: "%.0f %%", 100 * a / b) : "–" }

    /// The summary cards: rate, beats, RMSSD, the answered fraction.
    static func cards(analysis: PulseAnalysis, duration: Double) -> [(label: String, value: String, detail: String)] {
        var cards: [(label: String, value: String, detail: String)] = []
        if let hr = analysis.heartRate {
            cards.append(("heart rate", String(format: "%.1f <small>bpm</small>", hr.bpm), String(format: "confidence %.2f", hr.confidence)))
        } else {
            cards.append(("heart rate", "– <small>bpm</small>", "declined: the signal was too poor to trust"))
        }
        let kept = analysis.beats.filter { used($0, analysis) }.count
        cards.append(("beats", "\(analysis.beats.count)", "\(kept) intervals used for HRV"))
        let m = analysis.heartRate == nil ? nil : analysis.hrv?.measures
        cards.append(("RMSSD", m.map { $0.rmssd.isFinite ? String(format: "%.1f <small>ms</small>", $0.rmssd) : "–" } ?? "–",
                      m.map { $0.sdnn.isFinite ? String(format: "SDNN %.1f ms", $0.sdnn) : "" } ?? "no HRV without a rate"))
        let answered = analysis.analysedSeconds(end: duration, answeredOnly: true)
        cards.append(("answered", percent(answered, of: duration), String(format: "%.0f of %.0f s", answered, duration)))
        return cards
    }
}
