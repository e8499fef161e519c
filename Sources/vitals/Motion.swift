import ArgumentParser
import Foundation
import MotionAnalysis
import SignalProcessing
import VitalsIO

/// `vitals motion FILE`: a human summary of everything the motion detectors find.
struct Motion: ParsableCommand {
    struct Document: Encodable {
        var samples: Int
        var minutes: Double
        var rate_hz: Double
        var gaps: Int
        var channels: [String]
        var notes: [String]
        var sets: [RepSet]
        var reps_total: Int
        var swings: [SwingEvent]
        var holds: [Hold]
        var impacts: [ImpactEvent]
        /// Null when the log is too slow for tremor (under 25 Hz).
        @NullEncoded var tremor: Tremor.Document?
    }

    static let configuration = CommandConfiguration(
        abstract: "Summarise a motion log: channels, rate, gaps, sets and reps, swings, holds, impacts.")

    @Argument(help: "Motion log (CSV with a header; Core Motion, Exermote, InfluxDB or --columns).")
    var file: String
    @Option(help: "Wrist the device is on: left or right (for swings).") var wrist: Wrist = .right
    @Flag(help: "Print one JSON document instead of the summary.") var json = false
    @Option(help: "Also write an HTML report to this file: sets, swings, impacts and holds drawn over the signals they were found in.")
    var report: String?
    @OptionGroup var input: MotionLogArguments

    func validate() throws {
        if let report, report.isEmpty { throw ValidationError("--report needs a file name") }
    }

    func run() throws {
        try CLIError.wrap {
            if let report { try checkReportTarget(report, input: file) }
            var log = try input.read(file)
            // The slowest detector here is the rep counter.
            try log.requireSampleRate(atLeast: RepCounter.minimumSampleRate, for: "the motion detectors")
            let swingsAnalysed = log.sampleRate >= SwingAnalysis.minimumSampleRate
            if !swingsAnalysed {
                let note = String(format: "swings not looked for: %.1f Hz is too slow for them (need %.0f Hz or more)",
                                  log.sampleRate, SwingAnalysis.minimumSampleRate)
                log.notes.append(note)
                warn(note)
            }
            // As `vitals reps` and `vitals swings` do: the default attitude filter for reps, holds
            // and impacts, the responsive one for swings (the same log gave different rep counts).
            let motion = try log.deviceMotion()
            let swingMotion = log.hasDeviceMotion ? motion : try log.deviceMotion(filter: .responsive)
            var channels: [String] = []
            if log.gravity != nil { channels.append("gravity") }
            if log.userAcceleration != nil { channels.append("user acceleration") }
            if log.acceleration != nil { channels.append("acceleration") }
            if log.rotationRate != nil { channels.append("rotation rate") }
            if log.attitude != nil { channels.append("attitude") }
            if log.magneticField != nil { channels.append("magnetic field") }
            if log.relativeAltitude != nil { channels.append("altitude") }
            var counter = RepCounter(sampleRate: log.sampleRate)
            let sets = counter.process(motion)
            let swings = swingsAnalysed ? SwingAnalysis.run(swingMotion, mode: .strokes, wrist: wrist, sampleRate: log.sampleRate) : []
            var stability = PoseStability()
            let holds = stability.process(motion)
            var impactDetector = ImpactDetector()
            let impacts = impactDetector.process(motion)
            let tremorSeconds = log.sampleRate >= TremorDetector.minimumSampleRate ? try Tremor.judge(log, motion: motion) : nil
            if json {
                try printJSON(Document(samples: log.count, minutes: MotionEvaluation.minutes(log.time), rate_hz: log.sampleRate,
                                       gaps: log.gaps.count, channels: channels, notes: log.notes, sets: sets,
                                       reps_total: sets.reduce(0) { $0 + $1.reps }, swings: swings, holds: holds, impacts: impacts,
                                       tremor: tremorSeconds.map(Tremor.document)))
            } else {
                printSummary(log: log, channels: channels, sets: sets, swings: swingsAnalysed ? swings : nil, holds: holds, impacts: impacts)
                print("  " + (tremorSeconds.map { Tremor.summary(seconds: $0, episodes: TremorDetector.episodes($0)) }
                              ?? String(format: "tremor: not judged (%.1f Hz is below the %.0f Hz it needs)", log.sampleRate, TremorDetector.minimumSampleRate)))
            }
            if let report {
                let findings = MotionHTMLReport.Findings(sets: sets, swings: swingsAnalysed ? swings : nil, holds: holds, impacts: impacts,
                                                         impactThreshold: impactDetector.parameters.threshold, tremor: tremorSeconds)
                let html = MotionHTMLReport.html(file: file, log: log, motion: motion, derived: !log.hasDeviceMotion, findings: findings)
                try writeReport(html, to: report)
            }
        }
    }

    private func printSummary(log: MotionLog, channels: [String], sets: [RepSet], swings: [SwingEvent]?, holds: [Hold], impacts: [ImpactEvent]) {
        print((file as NSString).lastPathComponent)
        print(String(format: "  %d samples, %.1f min of data, %.1f Hz, %d gaps", log.count, MotionEvaluation.minutes(log.time),
                     log.sampleRate, log.gaps.count))
        print("  channels: " + channels.joined(separator: ", ") + (log.hasDeviceMotion ? "" : " (gravity from the attitude filter)"))

        print("  reps: \(sets.reduce(0) { $0 + $1.reps }) in \(sets.count) sets"
              + (sets.isEmpty ? "" : ": " + sets.map { String(format: "%d (%.0f-%.0f s)", $0.reps, $0.start, $0.end) }.joined(separator: ", ")))

        if let swings {
            let f = swings.filter { $0.kind == .forehand }.count, b = swings.filter { $0.kind == .backhand }.count
            print("  swings (\(wrist.rawValue) wrist): \(swings.count): \(f) forehands, \(b) backhands, \(swings.count - f - b) serves"
                  + (swings.isEmpty ? "" : String(format: "; peak rate median %.1f rad/s", Statistics.median(swings.map(\.peakRate)))))
        } else {
            print(String(format: "  swings: not looked for (%.1f Hz is below the %.0f Hz they need)", log.sampleRate, SwingAnalysis.minimumSampleRate))
        }

        let falls = holds.filter(\.endedInFall).count
        print(String(format: "  holds: %d (%.0f s in total), %d ended in a fall", holds.count, holds.reduce(0) { $0 + $1.duration }, falls)
              + (holds.isEmpty ? "" : String(format: "; median sway %.1f°", Statistics.median(holds.map(\.swayDegrees)))))

        print("  impacts (user acceleration >= \(ImpactDetector.Parameters().threshold) g): \(impacts.count)"
              + (impacts.isEmpty ? "" : String(format: ", largest %.2f g", impacts.map(\.peak).max()!)))
    }
}
