import ArgumentParser
import Foundation
import MotionAnalysis
import VitalsIO

extension MotionLogOptions {
    /// Options with only the acceleration unit an `--accel-unit` value names (nil: the layout's).
    init(accelUnitOption text: String?) throws {
        self.init()
        accelerationUnit = try text.map(MotionLogArguments.accelerationUnit)
    }
}

/// `vitals eval steps DIR`: step-count error on the Oxford step-counter recordings.
struct EvalSteps: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps",
        abstract: "Step count vs foot-switch truth (Oxford layout; gates: mean |error| <= 1 %, worst <= 2.5 %, handling resumes <= 1).")

    @Argument(help: "Folder of Oxford recordings (e.g. ../shared/data/steps-oxford/optimisation).")
    var directory: String
    @Option(help: "Only recordings whose name contains this text (e.g. Pixel, Samsung, Pocket) — for cross-checks.")
    var only: String?
    @Flag(help: "Print one JSON document.") var json = false
    @Flag(help: "Exit non-zero when a gate of issue 5 fails.") var check = false
    @Option(name: .customLong("accel-unit"), help: "Unit of the recordings' acceleration: g or m/s2 (default: the layout's m/s²).")
    var accelUnit: String?

    func run() throws {
        var rows = try CLIError.wrap {
            try StepEvaluation.oxford(directory: directory, options: MotionLogOptions(accelUnitOption: accelUnit))
        }
        warnUnscoredOxford(in: directory, only: only)
        if let only { rows = rows.filter { $0.name.contains(only) } }
        guard !rows.isEmpty else { throw CLIError("no recording matches '\(only ?? "")'") }
        let errors = rows.map { abs($0.errorPercent) }
        let mean = errors.reduce(0, +) / Double(errors.count)
        let worst = errors.max() ?? 0
        let handling = rows.filter { $0.resumesBeforeWalking > 0 }.count
        let gates: [(String, Bool)] = [
            ("mean |count error| <= 1.0 %", mean <= 1.0),
            ("worst |count error| <= 2.5 %", worst <= 2.5),
            ("handling before walking raises a resume in <= 1 recording", handling <= 1),
        ]
        if json {
            let doc = JSON.object([
                ("recordings", .array(rows.map { r in
                    .object([("name", .string(r.name)), ("truth_steps", .number(Double(r.truthSteps))),
                             ("steps", .number(Double(r.detectedSteps))), ("error_percent", .num(r.errorPercent, digits: 2)),
                             ("first_truth_step_s", .num(r.firstTruthStep, digits: 2)),
                             ("resumes_before_walking", .number(Double(r.resumesBeforeWalking)))])
                })),
                ("mean_abs_error_percent", .num(mean, digits: 3)), ("worst_abs_error_percent", .num(worst, digits: 3)),
                ("recordings_with_handling_resume", .number(Double(handling))),
                ("gates", .object(gates.map { ($0.0, .bool($0.1)) })),
            ])
            print(doc.serialized())
        } else {
            print("recording                            truth  steps  error%  first_step_s  early_resumes")
            for r in rows {
                print(pad(r.name, 36) + String(format: " %5d  %5d  %+6.2f  %12.1f  %13d", r.truthSteps, r.detectedSteps,
                                               r.errorPercent, r.firstTruthStep, r.resumesBeforeWalking))
            }
            print(String(format: "%d recordings: mean |error| %.2f %%, worst %.2f %%, handling resumes in %d",
                         rows.count, mean, worst, handling))
            for (name, ok) in gates { print("  [\(ok ? "pass" : "FAIL")] \(name)") }
        }
        if check, gates.contains(where: { !$0.1 }) { throw ExitCode(1) }
    }
}

/// `vitals eval gait DIR`: step timing and pause/resume latency on IPOL lower-back trials.
struct EvalGait: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gait",
        abstract: "Step timing (F1 within 150 ms, median error) and pause/resume report latency on IPOL gait trials.")

    @Argument(help: "Folder of IPOL trials: NAME_lb.txt with NAME.json (e.g. ../shared/data/gait-ipol).")
    var directory: String
    @Option(help: "Only subjects in this range, e.g. 1-9 or 10-19 (cross-validation).")
    var subjects: String?
    @Flag(help: "Print one JSON document.") var json = false
    @Flag(help: "Exit non-zero when a gate of issue 5 fails.") var check = false
    @Option(name: .customLong("accel-unit"), help: "Unit of the trials' acceleration: g or m/s2 (default: the layout's m/s²).")
    var accelUnit: String?

    func run() throws {
        var rows = try CLIError.wrap {
            try StepEvaluation.gait(directory: directory, options: MotionLogOptions(accelUnitOption: accelUnit))
        }
        warnUnscored(in: directory, recordingSuffix: "_lb.txt", truthSuffix: ".json")
        if let subjects {
            let parts = subjects.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 2 else { throw CLIError("--subjects wants a range like 1-9, got '\(subjects)'") }
            rows = rows.filter { $0.subject >= parts[0] && $0.subject <= parts[1] }
            guard !rows.isEmpty else { throw CLIError("no trial for subjects \(subjects)") }
        }
        let s = StepEvaluation.summarize(rows)
        let gates = StepEvaluation.gaitGates(s)
        if json {
            let doc = JSON.object([
                ("trials", .array(rows.map { r in
                    .object([("name", .string(r.name)), ("tp", .number(Double(r.truePositives))),
                             ("fp", .number(Double(r.falsePositives))), ("fn", .number(Double(r.falseNegatives))),
                             ("resume_latency_s", .num(r.resumeLatency, digits: 3)),
                             ("pause_scored", .bool(r.pauseScored)), ("pause_latency_s", .num(r.pauseLatency, digits: 3)),
                             ("false_pauses", .number(Double(r.falsePauses))),
                             ("resumes_before_walking", .number(Double(r.resumesBeforeWalking)))])
                })),
                ("f1", .num(s.f1, digits: 4)), ("precision", .num(s.precision, digits: 4)), ("recall", .num(s.recall, digits: 4)),
                ("median_timing_error_s", .num(s.medianTimingError, digits: 4)),
                ("resume_median_s", .num(s.resumeMedian, digits: 3)), ("resume_p95_s", .num(s.resume95, digits: 3)),
                ("resumes_missing", .number(Double(s.resumesMissing))),
                ("pauses_scored", .number(Double(s.pausesScored))), ("pause_median_s", .num(s.pauseMedian, digits: 3)),
                ("pause_p95_s", .num(s.pause95, digits: 3)), ("pauses_missing", .number(Double(s.pausesMissing))),
                ("trials_with_false_pause", .number(Double(s.trialsWithFalsePause))),
                ("trials_with_resume_before_walking", .number(Double(s.trialsWithResumeBeforeWalking))),
                ("latency_note", .string("latency = reportedAt (time of the sample at which the streaming detector emitted the event) minus the true change")),
                ("gates", .object(gates.map { ($0.0, .bool($0.1)) })),
            ])
            print(doc.serialized())
        } else {
            print("trial   tp  fp  fn  resume_s  pause_s  false_pauses")
            for r in rows {
                print(pad(r.name, 6) + String(format: " %3d %3d %3d  %8@  %7@  %12d", r.truePositives, r.falsePositives,
                                              r.falseNegatives, r.resumeLatency.map { String(format: "%.2f", $0) } ?? "-",
                                              r.pauseScored ? (r.pauseLatency.map { String(format: "%.2f", $0) } ?? "none") : "n/a",
                                              r.falsePauses))
            }
            print(String(format: """
                %d trials: F1 %.3f (P %.3f R %.3f), median timing error %.0f ms; resume median %.2f s p95 %.2f s \
                (missing %d); pause (%d scored) median %.2f s p95 %.2f s (missing %d); false pause in %d trials; \
                resume while standing before the walk in %d trials. Latencies are report times (sample at which the \
                streaming detector emitted the event) minus the true change.
                """, s.trials, s.f1, s.precision, s.recall, 1000 * s.medianTimingError, s.resumeMedian, s.resume95,
                s.resumesMissing, s.pausesScored, s.pauseMedian, s.pause95, s.pausesMissing, s.trialsWithFalsePause,
                s.trialsWithResumeBeforeWalking))
            for (name, ok) in gates { print("  [\(ok ? "pass" : "FAIL")] \(name)") }
        }
        if check, gates.contains(where: { !$0.1 }) { throw ExitCode(1) }
    }
}

/// Warns of each recording folder of `directory` (whose name contains `only`) that `eval steps`
/// passes over for want of its accelerometer.csv or its steps_truth.json; a folder with neither is
/// no recording.
private func warnUnscoredOxford(in directory: String, only: String?) {
    let fm = FileManager.default
    for name in ((try? fm.contentsOfDirectory(atPath: directory)) ?? []).sorted() where only.map(name.contains) ?? true {
        let has = ["accelerometer.csv", "steps_truth.json"].map { fm.fileExists(atPath: directory + "/" + name + "/" + $0) }
        if has[0] != has[1] { warn("not scored: \(name) (no \(has[0] ? "steps_truth.json" : "accelerometer.csv"))") }
    }
}
