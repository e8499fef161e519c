import Foundation

/// A small SVG chart for the HTML reports: linear axes with round-number ticks and a grid, lines,
/// dots, vertical marks and shaded spans, clipped to the plot area.
///
/// Drawing stays bounded whatever the recording's length: a line keeps at most the lowest and
/// highest point of each pixel column (the envelope a screen would show anyway), and dots at most
/// one per pixel and colour. A day of 1-s rate estimates is a few thousand SVG points, not 86,400.
struct SVGChart {
    /// Size of the whole chart, in CSS pixels.
    var width: Double
    var height: Double
    /// Data ranges shown on each axis.
    var x: ClosedRange<Double>
    var y: ClosedRange<Double>
    var xLabel: String
    var yLabel: String
    /// Space around the plot area for ticks and labels.
    var left = 54.0, right = 12.0, top = 10.0, bottom = 34.0
    /// Divides tick labels on the x axis (e.g. 60 to label seconds as minutes); the label says the unit.
    var xTickScale = 1.0
    /// Writes an x tick's label (default: the number, as many decimals as the spacing needs).
    var xTickFormat: ((Double) -> String)?
    /// Whether the y axis has ticks and grid lines (not for signals drawn one above the other in their own units).
    var yTicks = true
    private var layers: [String] = []

    init(width: Double, height: Double, x: ClosedRange<Double>, y: ClosedRange<Double>, xLabel: String, yLabel: String) {
        self.width = width
        self.height = height
        self.x = x.lowerBound < x.upperBound ? x : (x.lowerBound - 1)...(x.upperBound + 1)
        self.y = y.lowerBound < y.upperBound ? y : (y.lowerBound - 1)...(y.upperBound + 1)
        self.xLabel = xLabel
        self.yLabel = yLabel
    }

    var plotWidth: Double { width - left - right }
    var plotHeight: Double { height - top - bottom }

    /// Pixel column of a data x.
    func px(_ v: Double) -> Double { left + (v - x.lowerBound) / (x.upperBound - x.lowerBound) * plotWidth }
    /// Pixel row of a data y (SVG rows grow downward).
    func py(_ v: Double) -> Double { top + (y.upperBound - v) / (y.upperBound - y.lowerBound) * plotHeight }

    /// A line through `points` (x increasing), broken where a y is not finite or consecutive x are
    /// more than `maxGap` apart (a gap in the recording is not drawn across).
    mutating func line(_ points: [(x: Double, y: Double)], color: String, width: Double = 1.2, maxGap: Double = .infinity) {
        var paths: [String] = []
        var segment: [(x: Double, y: Double)] = []
        func flush() {
            if segment.count > 1 { paths.append(pathData(envelope(segment))) }
            segment.removeAll(keepingCapacity: true)
        }
        for p in points {
            guard p.y.isFinite, p.x.isFinite else { flush(); continue }
            if let last = segment.last, p.x - last.x > maxGap { flush() }
            segment.append(p)
        }
        flush()
        guard !paths.isEmpty else { return }
        layers.append("<path d=\"\(paths.joined(separator: " "))\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"\(fmt(width))\" stroke-linejoin=\"round\"/>")
    }

    /// Filled circles at `points` (at most one per pixel: coincident dots add nothing to the picture).
    mutating func dots(_ points: [(x: Double, y: Double)], color: String, radius: Double = 1.6, hollow: Bool = false) {
        var seen = Set<Int64>()
        var d = ""
        for p in points where p.x.isFinite && p.y.isFinite && x.contains(p.x) && y.contains(p.y) {
            let cx = px(p.x), cy = py(p.y)
            guard seen.insert(Int64(cx.rounded()) << 32 | Int64(cy.rounded())).inserted else { continue }
            // A circle as one path: two arcs.
            d += "M\(fmt(cx - radius)) \(fmt(cy))a\(fmt(radius)) \(fmt(radius)) 0 1 0 \(fmt(2 * radius)) 0a\(fmt(radius)) \(fmt(radius)) 0 1 0 \(fmt(-2 * radius)) 0"
        }
        guard !d.isEmpty else { return }
        let paint = hollow ? "fill=\"none\" stroke=\"\(color)\" stroke-width=\"1\"" : "fill=\"\(color)\""
        layers.append("<path d=\"\(d)\" \(paint)/>")
    }

    /// Vertical marks at data x, from `from` to `to` (fractions of the plot height from the bottom).
    mutating func marks(_ xs: [Double], color: String, from: Double = 0, to: Double = 1, width: Double = 1) {
        var seen = Set<Int>()
        var d = ""
        let y0 = top + (1 - from) * plotHeight, y1 = top + (1 - to) * plotHeight
        for v in xs where x.contains(v) {
            let c = px(v)
            guard seen.insert(Int((c * 2).rounded())).inserted else { continue }
            d += "M\(fmt(c)) \(fmt(y0))V\(fmt(y1))"
        }
        guard !d.isEmpty else { return }
        layers.append("<path d=\"\(d)\" stroke=\"\(color)\" stroke-width=\"\(fmt(width))\"/>")
    }

    /// Shaded spans of x (gaps, a lost finger), full height.
    mutating func spans(_ ranges: [(from: Double, to: Double)], color: String, opacity: Double = 0.18) {
        for r in ranges where r.to > x.lowerBound && r.from < x.upperBound {
            let a = px(max(r.from, x.lowerBound)), b = px(min(r.to, x.upperBound))
            layers.append("<rect x=\"\(fmt(a))\" y=\"\(fmt(top))\" width=\"\(fmt(max(b - a, 1)))\" height=\"\(fmt(plotHeight))\" fill=\"\(color)\" fill-opacity=\"\(fmt(opacity))\"/>")
        }
    }

    /// A horizontal reference line at data y, with an optional label at its right end.
    mutating func rule(y v: Double, color: String, label: String? = nil) {
        guard y.contains(v) else { return }
        layers.append("<path d=\"M\(fmt(left)) \(fmt(py(v)))H\(fmt(left + plotWidth))\" stroke=\"\(color)\" stroke-dasharray=\"4 3\"/>")
        if let label {
            layers.append("<text x=\"\(fmt(left + plotWidth - 4))\" y=\"\(fmt(py(v) - 4))\" text-anchor=\"end\" fill=\"\(color)\" font-size=\"11\" paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\">\(HTML.escape(label))</text>")
        }
    }

    /// Any SVG element drawn in the plot area (coordinates from `px`, `py`).
    mutating func raw(_ element: String) { layers.append(element) }

    /// The chart as an `<svg>` element; `title` is its accessible name and `id` names its clip
    /// path, unique within the page.
    func render(title: String, id: String) -> String {
        let clip = "clip-\(id)"
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(fmt(width)) \(fmt(height))\" width=\"\(fmt(width))\" height=\"\(fmt(height))\" role=\"img\" aria-label=\"\(HTML.escape(title))\" font-family=\"inherit\" font-size=\"11\">"
        s += "<defs><clipPath id=\"\(clip)\"><rect x=\"\(fmt(left))\" y=\"\(fmt(top))\" width=\"\(fmt(plotWidth))\" height=\"\(fmt(plotHeight))\"/></clipPath></defs>"
        // Grid and tick labels.
        var grid = ""
        for t in yTicks ? Self.ticks(y, count: max(2, Int(plotHeight / 40))) : [] {
            grid += "M\(fmt(left)) \(fmt(py(t)))H\(fmt(left + plotWidth))"
            s += "<text x=\"\(fmt(left - 6))\" y=\"\(fmt(py(t) + 4))\" text-anchor=\"end\" fill=\"#555\">\(Self.label(t, range: y))</text>"
        }
        let scaledX = (x.lowerBound / xTickScale)...(x.upperBound / xTickScale)
        for t in Self.ticks(scaledX, count: max(2, Int(plotWidth / 90))) {
            let c = px(t * xTickScale)
            grid += "M\(fmt(c)) \(fmt(top))V\(fmt(top + plotHeight))"
            s += "<text x=\"\(fmt(c))\" y=\"\(fmt(top + plotHeight + 15))\" text-anchor=\"middle\" fill=\"#555\">\(xTickFormat?(t) ?? Self.label(t, range: scaledX))</text>"
        }
        s += "<path d=\"\(grid)\" stroke=\"#e4e4e4\" stroke-width=\"1\"/>"
        s += "<g clip-path=\"url(#\(clip))\">" + layers.joined() + "</g>"
        s += "<rect x=\"\(fmt(left))\" y=\"\(fmt(top))\" width=\"\(fmt(plotWidth))\" height=\"\(fmt(plotHeight))\" fill=\"none\" stroke=\"#bbb\"/>"
        s += "<text x=\"\(fmt(left + plotWidth / 2))\" y=\"\(fmt(height - 4))\" text-anchor=\"middle\" fill=\"#333\">\(HTML.escape(xLabel))</text>"
        s += "<text transform=\"translate(12 \(fmt(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\" fill=\"#333\">\(HTML.escape(yLabel))</text>"
        return s + "</svg>"
    }

    /// Round-number ticks (steps of 1, 2 or 5 times a power of ten) inside `range`, about `count` of them.
    static func ticks(_ range: ClosedRange<Double>, count: Int) -> [Double] {
        let span = range.upperBound - range.lowerBound
        guard span > 0, span.isFinite, count > 0 else { return [] }
        let step = niceStep(span / Double(count))
        var out: [Double] = []
        var k = (range.lowerBound / step).rounded(.up)
        while k * step <= range.upperBound + step * 1e-9, out.count <= 4 * count {
            out.append(k * step)
            k += 1
        }
        return out
    }

    /// The smallest of 1, 2, 5 times a power of ten that is at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        let power = pow(10, (log10(raw)).rounded(.down))
        for m in [1.0, 2, 5, 10] where m * power >= raw * (1 - 1e-12) { return m * power }
        return 10 * power
    }

    /// A tick's label with as many decimals as the tick spacing needs.
    static func label(_ v: Double, range: ClosedRange<Double>) -> String {
        let step = niceStep((range.upperBound - range.lowerBound) / 6)
        let decimals = max(0, min(6, Int((-log10(step)).rounded(.up))))
        let s = String(format: "%.\(decimals)f", v)
        return s.hasPrefix("-") && Double(s) == 0 ? String(s.dropFirst()) : s
    }

    /// The lowest and highest point of each pixel column, in order (what the screen shows of a
    /// line denser than its pixels).
    private func envelope(_ points: [(x: Double, y: Double)]) -> [(Double, Double)] {
        guard points.count > Int(2 * plotWidth) else { return points.map { (px($0.x), py($0.y)) } }
        var out: [(Double, Double)] = []
        out.reserveCapacity(Int(4 * plotWidth))
        var column = Int.min
        var lo = (x: 0.0, y: 0.0), hi = (x: 0.0, y: 0.0), first = (x: 0.0, y: 0.0), last = (x: 0.0, y: 0.0)
        func emit() {
            guard column != Int.min else { return }
            // Keep the column's own order of its extremes so the line's shape survives.
            let inner = lo.x <= hi.x ? [lo, hi] : [hi, lo]
            for p in [first] + inner + [last] where out.last.map({ $0 != (px(p.x), py(p.y)) }) ?? true {
                out.append((px(p.x), py(p.y)))
            }
        }
        for p in points {
            let c = Int(px(p.x).rounded(.down))
            if c != column {
                emit()
                column = c
                lo = p; hi = p; first = p
            } else {
                if p.y < lo.y { lo = p }
                if p.y > hi.y { hi = p }
            }
            last = p
        }
        emit()
        return out
    }

    private func pathData(_ pixels: [(Double, Double)]) -> String {
        var d = ""
        d.reserveCapacity(pixels.count * 12)
        for (i, p) in pixels.enumerated() { d += (i == 0 ? "M" : "L") + fmt(p.0) + " " + fmt(p.1) }
        return d
    }
}

/// Numbers in SVG coordinates: one decimal (a tenth of a pixel) is all a screen can show.
func fmt(_ v: Double) -> String {
    let r = (v * 10).rounded() / 10
    return r == r.rounded() ? String(Int(r)) : String(format: "%.1f", r)
}
