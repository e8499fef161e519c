import Foundation
import MotionAnalysis
import SignalProcessing

/// The `vitals motion FILE --report FILE.html` page: what the detectors found, drawn over the
/// signals they found it in: sets of reps over the gravity vector, swings over the rotation rate,
/// impacts over the user acceleration, and holds over the tilt, with tables of each.
public enum MotionHTMLReport {
    /// What `vitals motion` found in one log.
    public struct Findings: Sendable {
        public var sets: [RepSet]
        /// Nil when swings were not looked for (the log is too slow for them).
        public var swings: [SwingEvent]?
        public var holds: [Hold]
        public var impacts: [ImpactEvent]
        public var impactThreshold: Double
        /// Each second's tremor judgement; nil when the log is too slow for tremor.
        public var tremor: [TremorDetector.Second]?

        public init(sets: [RepSet], swings: [SwingEvent]?, holds: [Hold], impacts: [ImpactEvent], impactThreshold: Double,
                    tremor: [TremorDetector.Second]? = nil) {
            self.sets = sets
            self.swings = swings
            self.holds = holds
            self.impacts = impacts
            self.impactThreshold = impactThreshold
            self.tremor = tremor
        }
    }

    /// The page for one log.
    /// - Parameters:
    ///   - file: the log's name as shown to the reader.
    ///   - log: the log read: its times, gaps, sample rate and notes are shown.
    ///   - motion: the device motion the detectors read (from the log, or the attitude filter's).
    ///   - derived: whether gravity came from the attitude filter (said on the page).
    ///   - f: what the detectors found in `motion` (sets of reps, swings, holds, impacts, tremor).
    public static func html(file: String, log: MotionLog, motion: [DeviceMotion], derived: Bool, findings f: Findings) -> String {
        let duration = log.time.last ?? 0
        let gaps = log.gaps.map { (from: log.time[$0.index - 1], to: log.time[$0.index]) }
        let time = ReportTimeAxis(duration: duration, gaps: gaps)
        var page = HTMLPage(title: "Motion report: \((file as NSString).lastPathComponent)", command: "vitals motion --report")
        page.heading("Motion report", subtitle: String(format: "%@ · %@ at %.1f Hz · %d samples, %d gaps", file, clock(duration),
                                                      log.sampleRate, log.count, log.gaps.count))
        page.cards(cards(log: log, findings: f))

        let t = motion.map { time.x($0.time) }
        // Gaps over a second are shaded (the line breaks at every gap; wrist logs that come in
        // batches have a short one every few seconds).
        let shortGaps = time.map(gaps.filter { $0.to - $0.from >= 1 && $0.to - $0.from <= ReportTimeAxis.longGap })
        let maxGap = 2.5 / max(log.sampleRate, 1e-9)

        setsSection(&page, motion: motion, t: t, time: time, shortGaps: shortGaps, maxGap: maxGap, findings: f, derived: derived)
        swingsSection(&page, motion: motion, t: t, time: time, shortGaps: shortGaps, maxGap: maxGap, findings: f, sampleRate: log.sampleRate)
        impactsSection(&page, motion: motion, t: t, time: time, shortGaps: shortGaps, maxGap: maxGap, findings: f)
        holdsSection(&page, motion: motion, t: t, time: time, shortGaps: shortGaps, maxGap: maxGap, findings: f)
        if let tremor = f.tremor { tremorSection(&page, tremor: tremor, time: time) }
        tables(&page, log: log, derived: derived, findings: f)
        return page.finish()
    }

    /// The summary cards: reps, swings, holds, impacts and tremor.
    private static func cards(log: MotionLog, findings f: Findings) -> [(label: String, value: String, detail: String)] {
        let reps = f.sets.reduce(0) { $0 + $1.reps }
        var cards: [(label: String, value: String, detail: String)] = [
            ("reps", "\(reps)", "in \(f.sets.count) set\(f.sets.count == 1 ? "" : "s")"),
        ]
        if let swings = f.swings {
            let n = kinds(swings)
            cards.append(("swings", "\(swings.count)", "\(n.forehand) forehands, \(n.backhand) backhands, \(n.serve) serves"))
        } else {
            cards.append(("swings", "–", String(format: "not looked for at %.0f Hz", log.sampleRate)))
        }
        let falls = f.holds.filter(\.endedInFall).count
        cards.append(("holds", "\(f.holds.count)", String(format: "%.0f s still; %d ended in a fall", f.holds.reduce(0) { $0 + $1.duration }, falls)))
        cards.append(("impacts", "\(f.impacts.count)", f.impacts.isEmpty ? "none over \(String(format: "%g", f.impactThreshold)) g"
                        : String(format: "largest %.2f g", f.impacts.map(\.peak).max()!)))
        if let tremor = f.tremor {
            let known = tremor.filter { $0.severity != .unknown }
            let likely = known.filter { $0.frequency != nil }.count
            cards.append(("tremor", known.isEmpty ? "–" : String(format: "%.0f <small>%%</small>", 100 * Double(likely) / Double(known.count)),
                          "of \(known.count) s at rest (\(tremor.count - known.count) s unknown)"))
        } else {
            cards.append(("tremor", "–", String(format: "not judged at %.0f Hz", log.sampleRate)))
        }
        return cards
    }

    /// "Sets and reps": the gravity vector with each set shaded and labelled with its reps.
    private static func setsSection(_ page: inout HTMLPage, motion: [DeviceMotion], t: [Double], time: ReportTimeAxis,
                                    shortGaps: [(from: Double, to: Double)], maxGap: Double, findings f: Findings, derived: Bool) {
        page.section("Sets and reps", note: """
            Gravity in the device frame (x red, y green, z blue), as the rep counter reads it\(derived ? " (derived from the accelerometer and gyroscope by the attitude filter)" : ""). \
            Shaded: each set the counter found, labelled with its reps. Grey: gaps in the log over a second.
            """)
        var gravity = time.chart(height: 220, y: -1.1...1.1, yLabel: "gravity (g)")
        gravity.spans(shortGaps, color: "#777")
        gravity.spans(time.map(f.sets.map { ($0.start, $0.end) }), color: "#2b6cb0", opacity: 0.12)
        for (axis, color) in [(\Vector3.x, "#d7301f"), (\Vector3.y, "#1a9850"), (\Vector3.z, "#2b6cb0")] {
            gravity.line(zip(t, motion).map { ($0, $1.gravity[keyPath: axis]) }, color: color, width: 1, maxGap: maxGap)
        }
        for s in f.sets {
            gravity.raw("<text x=\"\(fmt(gravity.px(time.x((s.start + s.end) / 2))))\" y=\"\(fmt(gravity.top + 14))\" text-anchor=\"middle\" fill=\"#1d1d1f\" font-weight=\"600\" paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\">\(s.reps)</text>")
        }
        page.append(gravity.render(title: "Gravity and sets", id: "gravity"))
    }

    /// "Swings": the rotation rate's magnitude with a dot per swing, coloured by kind.
    private static func swingsSection(_ page: inout HTMLPage, motion: [DeviceMotion], t: [Double], time: ReportTimeAxis,
                                      shortGaps: [(from: Double, to: Double)], maxGap: Double, findings f: Findings, sampleRate: Double) {
        page.section("Swings", note: f.swings == nil
                     ? String(format: "Not looked for: %.1f Hz is below the %.0f Hz swings need.", sampleRate, SwingAnalysis.minimumSampleRate)
                     : "The rotation rate's magnitude; each swing is a dot at its peak rate: forehand (blue), backhand (orange), serve (purple).")
        let rates = motion.map { $0.rotationRate.magnitude }
        let top = max(1, (rates.max() ?? 1) * 1.05)
        var rotation = time.chart(height: 200, y: 0...top, yLabel: "rotation rate (rad/s)")
        rotation.spans(shortGaps, color: "#777")
        rotation.line(Array(zip(t, rates)).map { ($0.0, $0.1) }, color: "#555", width: 1, maxGap: maxGap)
        for (kind, color) in [(SwingKind.forehand, "#2b6cb0"), (.backhand, "#f08c00"), (.serve, "#6b46c1")] {
            rotation.dots((f.swings ?? []).filter { $0.kind == kind }.map { (time.x($0.time), min($0.peakRate, top)) }, color: color, radius: 3)
        }
        page.append(rotation.render(title: "Rotation rate and swings", id: "rotation"))
    }

    /// "Impacts": the user acceleration's magnitude with a dot per impact over the threshold.
    private static func impactsSection(_ page: inout HTMLPage, motion: [DeviceMotion], t: [Double], time: ReportTimeAxis,
                                       shortGaps: [(from: Double, to: Double)], maxGap: Double, findings f: Findings) {
        page.section("Impacts", note: "The user acceleration's magnitude (gravity removed); each impact is a red dot at its peak, above the dashed threshold.")
        let user = motion.map { $0.userAcceleration.magnitude }
        var acceleration = time.chart(height: 200, y: 0...max(f.impactThreshold * 1.2, (user.max() ?? 1) * 1.05), yLabel: "user acceleration (g)")
        acceleration.spans(shortGaps, color: "#777")
        acceleration.line(Array(zip(t, user)).map { ($0.0, $0.1) }, color: "#555", width: 1, maxGap: maxGap)
        acceleration.rule(y: f.impactThreshold, color: "#d7301f", label: "impact threshold")
        acceleration.dots(f.impacts.map { (time.x($0.time), $0.peak) }, color: "#d7301f", radius: 3)
        page.append(acceleration.render(title: "User acceleration and impacts", id: "acceleration"))
    }

    /// "Holds": the tilt from gravity's usual direction with each hold shaded by how it ended.
    private static func holdsSection(_ page: inout HTMLPage, motion: [DeviceMotion], t: [Double], time: ReportTimeAxis,
                                     shortGaps: [(from: Double, to: Double)], maxGap: Double, findings f: Findings) {
        page.section("Holds", note: """
            Tilt: the angle between gravity now and its median over the log. Shaded: each hold (gravity within \
            \(String(format: "%g", PoseStability.Parameters().holdAngle))° for \(String(format: "%g", PoseStability.Parameters().minimumHold)) s or more), \
            green when it ended calmly, orange when it ended in a fall.
            """)
        let reference = medianDirection(motion.map(\.gravity))
        let tilt = motion.map { $0.gravity.angle(to: reference) * 180 / .pi }
        var pose = time.chart(height: 180, y: 0...180, yLabel: "tilt (degrees)")
        pose.spans(shortGaps, color: "#777")
        pose.spans(time.map(f.holds.filter { !$0.endedInFall }.map { ($0.start, $0.end) }), color: "#1a9850", opacity: 0.2)
        pose.spans(time.map(f.holds.filter(\.endedInFall).map { ($0.start, $0.end) }), color: "#f08c00", opacity: 0.25)
        pose.line(Array(zip(t, tilt)).map { ($0.0, $0.1) }, color: "#555", width: 1, maxGap: maxGap)
        page.append(pose.render(title: "Tilt and holds", id: "pose"))
    }

    /// "Tremor": each second's judgement as coloured runs, with the tremor's frequency as dots.
    private static func tremorSection(_ page: inout HTMLPage, tremor: [TremorDetector.Second], time: ReportTimeAxis) {
        page.section("Tremor", note: """
            Each second as the tremor detector judged it from the last 4 s: unknown (grey: moving, or too little \
            data), none (white), or a likely tremor by its peak-to-peak amplitude at the wrist: slight (yellow, \
            under 1 cm), mild (orange, 1-3 cm), moderate (red, 3-10 cm), strong (dark red). Dots: the tremor's \
            frequency.
            """)
        var chart = time.chart(height: 150, y: 0...13, yLabel: "tremor (Hz)")
        // In a fixed order (a dictionary's order changes from run to run, and with it the page).
        let colours: [(TremorDetector.Severity, String)] = [(.unknown, "#bbb"), (.slight, "#fec44f"), (.mild, "#fe9929"),
                                                             (.moderate, "#d7301f"), (.strong, "#7f0000")]
        for (severity, colour) in colours {
            // Runs of seconds as one span each (a rectangle per second shows seams).
            var runs: [(from: Double, to: Double)] = []
            for s in tremor where s.severity == severity {
                if let last = runs.last, abs(last.to - s.start) < 1e-9 { runs[runs.count - 1].to = s.end } else { runs.append((s.start, s.end)) }
            }
            chart.spans(time.map(runs), color: colour, opacity: severity == .unknown ? 0.25 : 0.6)
        }
        chart.dots(tremor.compactMap { s in s.frequency.map { (time.x((s.start + s.end) / 2), $0) } }, color: "#1d1d1f", radius: 1.6)
        page.append(chart.render(title: "Tremor", id: "tremor"))
    }

    /// The tables at the foot of the page: the sets, the holds and the log's notes (each when there are any).
    private static func tables(_ page: inout HTMLPage, log: MotionLog, derived: Bool, findings f: Findings) {
        if !f.sets.isEmpty {
            page.table(f.sets.enumerated().map { i, s in
                ("set \(i + 1)", String(format: "%d reps, %.1f-%.1f s, one every %.2f s", s.reps, s.start, s.end, s.period))
            }, heading: "Sets")
        }
        if !f.holds.isEmpty {
            page.table(f.holds.enumerated().map { i, h in
                ("hold \(i + 1)", String(format: "%.1f-%.1f s, sway %.1f°, at most %.1f° off%@", h.start, h.end, h.swayDegrees,
                                         h.maxDeviationDegrees, h.endedInFall ? ", ended in a fall" : ""))
            }, heading: "Holds")
        }
        var notes = log.notes.map { ("note", $0) }
        if derived { notes.append(("gravity", "derived by the attitude filter (the log has no device motion)")) }
        if !notes.isEmpty { page.table(notes, heading: "Notes") }
    }

    static func kinds(_ swings: [SwingEvent]) -> (forehand: Int, backhand: Int, serve: Int) {
        (swings.filter { $0.kind == .forehand }.count, swings.filter { $0.kind == .backhand }.count, swings.filter { $0.kind == .serve }.count)
    }

    /// The unit vector along the component-wise median of `vectors` (a robust "usual" direction).
    static func medianDirection(_ vectors: [Vector3]) -> Vector3 {
        guard !vectors.isEmpty else { return Vector3(x: 0, y: 0, z: -1) }
        let m = Vector3(x: Statistics.median(vectors.map(\.x)), y: Statistics.median(vectors.map(\.y)), z: Statistics.median(vectors.map(\.z)))
        return m.magnitude > 0 ? m.normalized : Vector3(x: 0, y: 0, z: -1)
    }
}
