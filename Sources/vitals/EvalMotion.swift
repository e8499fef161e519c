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
    @Option(help: "Fixed complementary correction gain, 1/s, instead of the adaptive gain (tuning).") var gain: Double?
    @Option(help: "Fixed-gain accelerometer trust tolerance, g, instead of the adaptive gain (tuning).") var tolerance: Double?
    @Flag(help: "Also measure what limits the filter: 10-Hz gyro drift from the log's gravity, accelerometer error by rotation rate.")
    var limits = false
    @OptionGroup var input: MotionLogArguments

    func validate() throws {
        if let gain, !(gain >= 0 && gain.isFinite) { throw ValidationError("--gain must be a finite gain in 1/s, 0 or more (got \(gain))") }
        if let tolerance, !(tolerance > 0 && tolerance.isFinite) {
            throw ValidationError("--tolerance must be a positive number of g (got \(tolerance))")
        }
    }

    /// The issue's gate: median gravity error below 2 degrees.
    static let gateDegrees = 2.0

    struct Report: Encodable {
        var files: [MotionEvaluation.AttitudeResult]
        var median_deg: Double
        var gate_deg: Double
        var pass: Bool
        var limits: MotionEvaluation.AttitudeLimits?
    }

    func run() throws {
        try CLIError.wrap {
            var p = AttitudeFilter.Parameters()
            if gain != nil || tolerance != nil { p.noise = nil }
            if let gain { p.correctionGain = gain }
            if let tolerance { p.accelerationTolerance = tolerance }
            let exermote = try MotionEvaluation.exermoteFiles(in: directory)
            for name in exermote.ignored { warn("not evaluated: \(name) (no exerciseType column: not an Exermote log)") }
            let options = try input.options()
            let logs = try exermote.files.map { (file: $0, log: try MotionLog.read(path: $0, options: options)) }
            let rows = try logs.map { try MotionEvaluation.attitude(log: $0.log, file: $0.file, parameters: p) }
            let median = Statistics.median(rows.map(\.medianDegrees))
            let pass = median < Self.gateDegrees
            let lim = limits ? try MotionEvaluation.attitudeLimits(logs: logs, parameters: p) : nil
            if json {
                try printJSON(Report(files: rows, median_deg: median, gate_deg: Self.gateDegrees, pass: pass, limits: lim))
            } else {
                print("file                                         ind  samples  median°   p90°")
                for r in rows {
                    print(pad(r.file, 44) + pad(r.individual.map(String.init) ?? "-", 4, left: true)
                          + String(format: " %8d %8.2f %6.2f", r.samples, r.medianDegrees, r.p90Degrees))
                }
                print(String(format: "median of file medians %.2f° (gate: < %.1f°) %@", median, Self.gateDegrees, pass ? "PASS" : "FAIL"))
                if let lim {
                    print(String(format: "gyro alone from the log's gravity, median drift: %.2f° after 1 sample, %.2f° after 10, %.2f° after 50",
                                 lim.gyro_drift_deg["steps_1"] ?? .nan, lim.gyro_drift_deg["steps_10"] ?? .nan, lim.gyro_drift_deg["steps_50"] ?? .nan))
                    print("|ω| rad/s    samples  accelerometer°  filter°   (medians vs the log's gravity)")
                    for b in lim.by_rotation_rate {
                        let range = b.rate_to.map { String(format: "%.1f-%.1f", b.rate_from, $0) } ?? String(format: "≥ %.1f", b.rate_from)
                        print(pad(range, 10) + String(format: " %8.1f%% %14.2f %9.2f", 100 * b.fraction, b.accelerometer_median_deg, b.filter_median_deg))
                    }
                }
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
    @OptionGroup var input: MotionLogArguments

    /// The issue's gates.
    static let countTolerance = 0.10, groundStrokeCorrect = 0.95, serveCorrect = 0.80, idlePerMinute = 2.0

    struct Report: Encodable {
        var files: [MotionEvaluation.SwingResult]
        var failures: [String]
        var pass: Bool
        /// CSV files whose names give no stroke type, not evaluated.
        var ignored: [String]
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
        try CLIError.wrap {
            let (files, ignored) = try MotionEvaluation.swingFiles(in: directory)
            if !ignored.isEmpty {
                warn("ignored \(ignored.count) file(s) whose names give no stroke type (forehand, backhand, serve, idle): "
                     + ignored.joined(separator: ", "))
            }
            let options = try input.options()
            let rows = try files.map { try MotionEvaluation.swings(file: $0, wrist: wrist, options: options) }
            // A gate with no file to measure it is not passed.
            let unmeasured = ["forehand", "backhand", "serve", "idle"].filter { kind in !rows.contains { $0.type == kind } }
                .map { "no \($0) file in \(directory): its gate is not measured" }
            let failures = rows.flatMap(Self.failures) + unmeasured
            if json {
                try printJSON(Report(files: rows, failures: failures, pass: failures.isEmpty, ignored: ignored))
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
                    print("  SwingWatch vs direct transcription at 50 Hz (published + relaxed thresholds): \(r.parity ? "identical" : "DIFFERENT") (\(r.parity_events) swings)")
                }
                print(failures.isEmpty ? "all swing gates PASS" : "FAIL:\n  " + failures.joined(separator: "\n  "))
            }
            if check && !failures.isEmpty { throw ExitCode(1) }
        }
    }
}

extension Wrist: ExpressibleByArgument {}

/// `vitals eval reps DIR`: rep counter against Exermote's prompted schedule.
struct EvalReps: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reps",
        abstract: "Rep counter on Exermote logs: reps per set within 1 (>= 95 %), exact (>= 65 %), <= 1 stray set per session.")

    @Argument(help: "Directory of Exermote CSV logs.") var directory: String
    @Flag(help: "Print one JSON document.") var json = false
    @Flag(help: "Exit non-zero when a gate fails.") var check = false
    @Option(help: "Individuals the constants were tuned on (reported apart from the others).")
    var tuned: String = "1,2,3"
    @OptionGroup var input: MotionLogArguments

    static let withinOneGate = 0.95, exactGate = 0.65, strayGate = 1

    func validate() throws {
        for item in tuned.split(separator: ",", omittingEmptySubsequences: false) where Int(item.trimmingCharacters(in: .whitespaces)) == nil {
            throw ValidationError("--tuned wants individual numbers like 1,2,3 (got '\(item)')")
        }
    }

    struct Summary: Encodable {
        var group: String
        var sets: Int
        var within_one: Double
        var exact: Double
        var max_stray_per_session: Int
    }

    struct Report: Encodable {
        var files: [MotionEvaluation.RepFileResult]
        var summaries: [Summary]
        var pass: Bool
    }

    static func summary(_ group: String, _ files: [MotionEvaluation.RepFileResult]) -> Summary {
        let sets = files.flatMap(\.sets)
        let n = max(1, sets.count)
        return Summary(group: group, sets: sets.count,
                       within_one: Double(sets.filter { abs($0.counted_reps - $0.truth_reps) <= 1 }.count) / Double(n),
                       exact: Double(sets.filter { $0.counted_reps == $0.truth_reps }.count) / Double(n),
                       max_stray_per_session: files.map(\.stray_sets).max() ?? 0)
    }

    func run() throws {
        try CLIError.wrap {
            let tunedSet = Set(tuned.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
            let exermote = try MotionEvaluation.exermoteFiles(in: directory)
            for name in exermote.ignored { warn("not evaluated: \(name) (no exerciseType column: not an Exermote log)") }
            let options = try input.options()
            let files = try exermote.files.map { try MotionEvaluation.reps(file: $0, options: options) }
            let tunedFiles = files.filter { $0.individual.map(tunedSet.contains) ?? false }
            let others = files.filter { !($0.individual.map(tunedSet.contains) ?? false) }
            let all = Self.summary("all", files)
            let summaries = [all, Self.summary("tuned (individuals \(tuned))", tunedFiles), Self.summary("held out (others)", others)]
            let pass = all.within_one >= Self.withinOneGate && all.exact >= Self.exactGate && all.max_stray_per_session <= Self.strayGate
            if json {
                try printJSON(Report(files: files, summaries: summaries, pass: pass))
            } else {
                for f in files {
                    let cells = f.sets.map { "\($0.exercise.prefix(2))\($0.truth_reps):\($0.counted_reps)" }.joined(separator: " ")
                    print(pad(f.file, 40) + " stray \(f.stray_sets)  " + cells)
                }
                for s in summaries {
                    func percent(_ x: Double) -> String { s.sets == 0 ? "    -" : String(format: "%5.1f%%", 100 * x) }
                    print(pad(s.group, 30) + String(format: " sets %3d  within 1: %@  exact: %@  max stray/session: %d",
                                                    s.sets, percent(s.within_one), percent(s.exact), s.max_stray_per_session))
                }
                print("gates: within 1 >= 95%, exact >= 65%, stray <= 1 per session: " + (pass ? "PASS" : "FAIL"))
            }
            if check && !pass { throw ExitCode(1) }
        }
    }
}
