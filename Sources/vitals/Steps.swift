import ArgumentParser
import Foundation
import MotionAnalysis
import VitalsIO

/// `vitals steps FILE`: steps, distance, cadence, floors, pace and pause/resume events of a recording.
struct Steps: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps",
        abstract: "Pedometer: steps, distance, cadence, floors, active pace and pause/resume events.",
        discussion: """
            FILE is a motion CSV log (Core Motion fields or generic acc_x/y/z, see `vitals` motion logs; \
            --columns, --accel-unit and --gyro-unit as for `vitals motion`), an Oxford step-counter \
            accelerometer.csv (timestamp_ns,sensor_type,x,y,z in m/s², with or without that header line) or an \
            IPOL gait file (*_lb.txt). The layout is recognised from the content.
            """)

    @Argument(help: "Recording to analyse.")
    var file: String
    @Option(help: "Body height in metres for the stride model.")
    var height: Double = StrideModel.defaultHeight
    @Flag(help: "Print one JSON document on stdout.")
    var json = false
    @Option(help: "Also write an HTML report to this file: steps over the acceleration, cadence, pauses and resumes, altitude.")
    var report: String?
    @OptionGroup var input: MotionLogArguments

    func validate() throws {
        guard height > 0.5 && height < 2.8 else { throw ValidationError("--height must be in metres, 0.5...2.8") }
        if let report, report.isEmpty { throw ValidationError("--report needs a file name") }
    }

    func run() throws {
        if let report { try checkReportTarget(report, input: file) }
        let recording = try CLIError.wrap { try StepLogs.read(path: file, options: input.options()) }
        for note in recording.notes { warn(note) }
        let analysis = StepAnalysis(recording: recording, strideModel: StrideModel(height: height))
        if json {
            print(analysis.json.serialized())
        } else {
            printSummary(recording: recording, analysis: analysis)
        }
        if let report {
            try writeReport(StepsHTMLReport.html(file: file, recording: recording, analysis: analysis), to: report)
        }
    }

    private func printSummary(recording: AccelerationRecording, analysis: StepAnalysis) {
        let d = analysis.data
        print(String(format: "%@ (%@, %.1f s): %d steps, %.1f m, cadence %.2f steps/s, active %.1f s%@%@",
                     file, recording.format, recording.duration, d.numberOfSteps, d.distance, d.averageCadence, d.activeTime,
                     d.averageActivePace.map { String(format: ", average active pace %.2f s/m", $0) } ?? "",
                     d.floorsAscended.map { ", floors +\($0)/-\(d.floorsDescended ?? 0)" } ?? ""))
        for e in analysis.events {
            print(String(format: "  %@ at %.2f s (reported at %.2f s)", e.kind.rawValue, e.time, e.reportedAt))
        }
    }
}
