import Foundation

/// One self-contained HTML report page (inline CSS; the charts are inline SVG): headings, summary
/// cards, sections with a short note on how to read them, tables. Nothing is fetched, so a report
/// opens offline and can be mailed.
struct HTMLPage {
    private var body = ""
    let title: String
    /// The command that made the page, named in its footer.
    let command: String

    init(title: String, command: String) {
        self.title = title
        self.command = command
    }

    mutating func append(_ html: String) { body += html + "\n" }

    /// The page's heading and a line under it (plain text, escaped here).
    mutating func heading(_ heading: String, subtitle: String) {
        append("<h1>\(HTML.escape(heading))</h1><p class=\"sub\">\(HTML.escape(subtitle))</p>")
    }

    /// A section heading and a note on how to read what follows.
    mutating func section(_ heading: String, note: String?) {
        append("<h2>\(HTML.escape(heading))</h2>" + (note.map { "<p class=\"note\">\(HTML.escape($0))</p>" } ?? ""))
    }

    /// A row of cards: a label, a big value (HTML, for a `<small>` unit) and a detail line.
    mutating func cards(_ cards: [(label: String, value: String, detail: String)]) {
        append("<div class=\"cards\">" + cards.map {
            "<div class=\"card\"><div class=\"label\">\(HTML.escape($0.label))</div><div class=\"value\">\($0.value)</div><div class=\"detail\">\(HTML.escape($0.detail))</div></div>"
        }.joined() + "</div>")
    }

    /// A two-column table of names and values (plain text, escaped here).
    mutating func table(_ rows: [(String, String)], heading: String? = nil) {
        append((heading.map { "<h3>\(HTML.escape($0))</h3>" } ?? "") + "<table class=\"quality\">"
               + rows.map { "<tr><th>\(HTML.escape($0.0))</th><td>\(HTML.escape($0.1))</td></tr>" }.joined() + "</table>")
    }

    func finish() -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title))</title>
        <style>
        body{font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"DejaVu Sans",Helvetica,Arial,sans-serif;color:#1d1d1f;margin:24px auto;max-width:980px;padding:0 12px}
        h1{font-size:24px;margin:0 0 2px}h2{font-size:17px;margin:28px 0 4px;border-bottom:1px solid #ddd;padding-bottom:3px}h3{font-size:14px;margin:10px 0 6px}
        .sub{color:#666;margin:0 0 16px;word-break:break-all}.note{color:#555;margin:2px 0 8px;max-width:900px}
        .cards{display:flex;gap:12px;flex-wrap:wrap}.card{flex:1 1 200px;border:1px solid #ddd;border-radius:8px;padding:10px 14px}
        .card .label{color:#666;font-size:12px;text-transform:uppercase;letter-spacing:.04em}.card .value{font-size:30px;font-weight:600}
        .card small{font-size:14px;font-weight:400;color:#666}.card .detail{color:#666;font-size:12px}
        svg{display:block;margin:4px 0;max-width:100%;height:auto}.row{display:flex;gap:24px;align-items:flex-start;flex-wrap:wrap}
        figure{margin:0}table{border-collapse:collapse}td,th{padding:2px 10px 2px 0;text-align:left;vertical-align:top}
        th{font-weight:500;color:#555}.num{text-align:right;font-variant-numeric:tabular-nums}.table{min-width:260px}
        .key span{display:inline-block;margin-right:14px}.key i{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;vertical-align:-1px}
        footer{color:#888;font-size:12px;margin-top:28px}
        </style></head><body>
        \(body)<footer>Made by <code>\(HTML.escape(command))</code>. Times are seconds from the start of the recording.</footer>
        </body></html>

        """
    }
}

/// The time axis of a whole-recording chart: seconds, minutes or hours by length, with gaps longer
/// than ``longGap`` cut down to a narrow break marked with its length (two sessions a day apart
/// would otherwise leave each a sliver at the chart's ends). Map every time through `x`.
struct ReportTimeAxis {
    /// Gaps longer than this (s) are cut.
    static let longGap = 60.0
    /// The long gaps, in recording time.
    let cuts: [(from: Double, to: Double)]
    /// Drawn width of a cut gap, in axis seconds.
    let cutWidth: Double
    /// Length of the axis, seconds (the recording's, less what the cuts removed).
    let duration: Double

    init(duration: Double, gaps: [(from: Double, to: Double)] = []) {
        let cuts = gaps.filter { $0.to - $0.from > Self.longGap }
        let removed = cuts.reduce(0) { $0 + ($1.to - $1.from) }
        cutWidth = 0.015 * max(duration - removed, 1)
        self.cuts = cuts
        self.duration = max(duration - removed + Double(cuts.count) * cutWidth, 1e-3)
    }

    /// Where recording time `t` falls on the axis.
    func x(_ t: Double) -> Double {
        var shift = 0.0
        for c in cuts where t > c.from {
            let inside = min(t, c.to) - c.from
            shift += inside * (1 - cutWidth / (c.to - c.from))
        }
        return t - shift
    }

    /// Seconds per tick unit.
    var scale: Double { duration > 3 * 3600 ? 3600 : duration > 300 ? 60 : 1 }
    var label: String {
        let unit = scale == 3600 ? "time (h)" : scale == 60 ? "time (min)" : "time (s)"
        return cuts.isEmpty ? unit : unit + ", long gaps cut out"
    }

    /// A chart over the whole recording with this axis, each cut marked with the gap's length.
    func chart(height: Double, y: ClosedRange<Double>, yLabel: String) -> SVGChart {
        var chart = SVGChart(width: 960, height: height, x: 0...duration, y: y, xLabel: label, yLabel: yLabel)
        chart.xTickScale = scale
        for c in cuts {
            let a = x(c.from), b = x(c.to)
            chart.spans([(a, b)], color: "#777", opacity: 0.35)
            let length = c.to - c.from
            let text = length >= 3600 ? String(format: "gap %.1f h", length / 3600) : String(format: "gap %.0f min", length / 60)
            chart.raw("<text x=\"\(fmt(chart.px((a + b) / 2)))\" y=\"\(fmt(chart.top + chart.plotHeight - 6))\" text-anchor=\"middle\" fill=\"#333\" paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\">\(text)</text>")
        }
        return chart
    }

    /// `points` with their x mapped onto the axis.
    func map(_ points: [(x: Double, y: Double)]) -> [(x: Double, y: Double)] { points.map { (x($0.x), $0.y) } }

    /// `spans` mapped onto the axis.
    func map(_ spans: [(from: Double, to: Double)]) -> [(from: Double, to: Double)] { spans.map { (x($0.from), x($0.to)) } }
}

/// Up to `maximum` strips of `length` seconds over the recorded time of [0, `duration`] (`gaps` left
/// out), for a report's close-ups: back to back while they fit, otherwise the first at the start, the
/// last at the end and the others evenly between; a strip that would run into a gap is moved back
/// from it, or ends at it in a stretch shorter than a strip.
func stripSpans(duration: Double, gaps: [(from: Double, to: Double)], length: Double, maximum: Int) -> [(from: Double, to: Double)] {
    // The stretches with samples, and their total length.
    var segments: [(from: Double, to: Double)] = []
    var start = 0.0
    for g in gaps.sorted(by: { $0.from < $1.from }) where g.from < duration {
        if g.from > start { segments.append((start, g.from)) }
        start = max(start, g.to)
    }
    if duration > start { segments.append((start, duration)) }
    let covered = segments.reduce(0) { $0 + $1.to - $1.from }
    let length = min(length, covered)
    guard length > 0 else { return [] }
    let count = min(maximum, Int((covered / length - 1e-9).rounded(.up)))
    let backToBack = Double(count) * length >= covered - 1e-9 || count == 1
    return (0..<count).map { i in
        var p = backToBack ? Double(i) * length : Double(i) * (covered - length) / Double(count - 1)
        // Covered time `p` on the recording's clock.
        for s in segments {
            if p < s.to - s.from || s.to == segments.last!.to {
                // Moved back to show a whole strip where the stretch is long enough.
                let from = backToBack ? min(s.from + p, s.to) : max(s.from, min(s.from + p, s.to - length))
                return (from, min(from + length, s.to))
            }
            p -= s.to - s.from
        }
        return (0, length)
    }
}

/// The stretches a state was off, from its changes in time order: from each change to off until the
/// next change to on (or `end`), and from 0 to the first change when that is a change to on and
/// `offAtStart`. A second change to off before an on keeps the first.
func offSpans(_ changes: [(time: Double, on: Bool)], end: Double, offAtStart: Bool) -> [(from: Double, to: Double)] {
    var spans: [(from: Double, to: Double)] = []
    var offSince: Double? = offAtStart && changes.first?.on == true ? 0 : nil
    for change in changes {
        if change.on {
            if let since = offSince { spans.append((since, change.time)) }
            offSince = nil
        } else {
            offSince = offSince ?? change.time
        }
    }
    if let since = offSince { spans.append((since, end)) }
    return spans
}

/// h:mm:ss or m:ss; 10¹⁵ s or more (no recording's, but `vitals hrv` sums the intervals it reads,
/// and whole seconds past 9.2e18 do not fit an Int) as seconds, a duration that is not finite as "–".
func clock(_ seconds: Double) -> String {
    guard seconds.magnitude < 1e15 else { return seconds.isFinite ? String(format: "%.3g s", seconds) : "–" }
    let s = Int(seconds.rounded())
    return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
}

/// A number with up to four significant digits, for tables.
func fmtNumber(_ v: Double) -> String {
    guard v.isFinite else { return "–" }
    let a = abs(v)
    return a >= 1000 || a == 0 ? String(format: "%.0f", v) : a >= 100 ? String(format: "%.1f", v)
        : a >= 10 ? String(format: "%.2f", v) : a >= 1 ? String(format: "%.3f", v) : String(format: "%.4f", v)
}

/// HTML text helpers.
enum HTML {
    /// `s` with the characters HTML gives meaning to (& < > " ') written as entities.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.count)
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
