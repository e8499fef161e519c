import ArgumentParser
import Foundation
import MotionAnalysis
import SignalProcessing
import VitalsIO

/// `vitals eval attitude DIR`: attitude filter gravity vs Core Motion's on Exermote logs.
struct EvalAttitude: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attitude",
        abstract: "Attitude filter fed raw acceleration + rotation rate vs the log's own gravity (gate: median < 2°).")

    @Argument(help: "Directory of logs with gravity, user acceleration and rotation rate (e.g. reps-exermote).")
    var directory: String
    @Flag(help: "Print one JSON document.") var json = false
    @Flag(help: "Exit non-zero when the gate fails.") var check = false
    @Option(help: "Filter correction gain, 1/s (tuning).") var gain: Double?
    @Option(help: "Accelerometer trust tolerance, g (tuning).") var tolerance: Double?

    /// The issue's gate: median gravity error below 2 degrees.
    static let gateDegrees = 2.0

    struct Report: Encodable {
        var files: [MotionEvaluation.AttitudeResult]
        var median_deg: Double
        var gate_deg: Double
        var pass: Bool
    }

    func run() throws {
        try reportingInputErrors {
            var p = AttitudeFilter.Parameters()
            if let gain { p.correctionGain = gain }
            if let tolerance { p.accelerationTolerance = tolerance }
            let rows = try MotionEvaluation.csvFiles(in: directory).map { try MotionEvaluation.attitude(file: $0, parameters: p) }
            let median = Statistics.median(rows.map(\.medianDegrees))
            let pass = median < Self.gateDegrees
            if json {
                try printJSON(Report(files: rows, median_deg: median, gate_deg: Self.gateDegrees, pass: pass))
            } else {
                print("file                                         ind  samples  median°   p90°")
                for r in rows {
                    print(pad(r.file, 44) + pad(r.individual.map(String.init) ?? "-", 4, left: true)
                          + String(format: " %8d %8.2f %6.2f", r.samples, r.medianDegrees, r.p90Degrees))
                }
                print(String(format: "median of file medians %.2f° (gate: < %.1f°) %@", median, Self.gateDegrees, pass ? "PASS" : "FAIL"))
            }
            if check && !pass { throw ExitCode(1) }
        }
    }
}

/// `s` padded with spaces to `width` characters.
func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - s.count))
    return left ? fill + s : s + fill
}
