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

/// `vitals eval swings DIR`: stroke detector and SwingWatch on tennis-ace recordings.
struct EvalSwings: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swings",
        abstract: "Swing detectors on tennis-ace files (one stroke type per file; Idle has none).")

    @Argument(help: "Directory of tennis-ace CSV files (Forehands*, Backhands*, Serves*, Idle*).")
    var directory: String
    @Option(help: "Wrist the sensor was on: left or right.") var wrist: Wrist = .right
    @Flag(help: "Print one JSON document.") var json = false
    @Flag(help: "Exit non-zero when a gate fails.") var check = false

    /// The issue's gates.
    static let countTolerance = 0.10, groundStrokeCorrect = 0.95, serveCorrect = 0.80, idlePerMinute = 2.0

    struct Report: Encodable {
        var files: [MotionEvaluation.SwingResult]
        var failures: [String]
        var pass: Bool
    }

    static func failures(_ r: MotionEvaluation.SwingResult) -> [String] {
        var out: [String] = []
        let c = r.strokes
        switch r.type {
        case "idle":
            if c.events_per_minute > idlePerMinute { out.append(String(format: "%@: %.2f events/min > %.1f", r.file, c.events_per_minute, idlePerMinute)) }
        case "forehand", "backhand", "serve":
            let need = r.type == "serve" ? serveCorrect : groundStrokeCorrect
            if (c.correct_fraction ?? 0) < need { out.append(String(format: "%@: %.1f%% called %@ < %.0f%%", r.file, 100 * (c.correct_fraction ?? 0), r.type, 100 * need)) }
            if abs((c.count_ratio ?? 0) - 1) > countTolerance { out.append(String(format: "%@: %d events for %d strokes (outside ±%.0f%%)", r.file, c.events, c.reference_strokes, 100 * countTolerance)) }
        default: break
        }
        if !r.parity { out.append("\(r.file): SwingWatch mode differs from its transcription") }
        return out
    }

    func run() throws {
        try reportingInputErrors {
            let rows = try MotionEvaluation.csvFiles(in: directory).map { try MotionEvaluation.swings(file: $0, wrist: wrist) }
            let failures = rows.flatMap(Self.failures)
            if json {
                try printJSON(Report(files: rows, failures: failures, pass: failures.isEmpty))
            } else {
                func line(_ name: String, _ c: MotionEvaluation.SwingCounts) -> String {
                    pad(name, 38) + String(format: "%5d %4d %4d %4d %5d %6.2f %8@ %7@", c.events, c.forehands, c.backhands, c.serves,
                                           c.reference_strokes, c.events_per_minute,
                                           (c.correct_fraction.map { String(format: "%.1f%%", 100 * $0) } ?? "-") as NSString,
                                           (c.count_ratio.map { String(format: "%.2f", $0) } ?? "-") as NSString)
                }
                print(pad("file / detector", 38) + "  evts   FH   BH   SV   ref  ev/min  correct   ratio")
                for r in rows {
                    print(line(r.file + " strokes", r.strokes))
                    for (i, s) in r.sessions.enumerated() { print(line("  session \(i + 1)", s)) }
                    print(line("  swingwatch (published)", r.swingwatch))
                    print("  parity with transcription at 50 Hz: \(r.parity ? "identical" : "DIFFERENT") (\(r.parity_events) swings)")
                }
                print(failures.isEmpty ? "all swing gates PASS" : "FAIL:\n  " + failures.joined(separator: "\n  "))
            }
            if check && !failures.isEmpty { throw ExitCode(1) }
        }
    }
}

extension Wrist: ExpressibleByArgument {}
