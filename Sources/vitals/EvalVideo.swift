import ArgumentParser
import Foundation
import VitalsIO

/// `vitals eval video DIR`: whole-video heart rate of fingertip videos against the oximeter value.
struct EvalVideo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video",
        abstract: "Score whole-video heart rate of fingertip videos against a pulse-oximeter value (NAME.json hr_bpm).")

    @Argument(help: "Folder of fingertip videos, each with NAME.json holding hr_bpm.")
    var directory: String

    @Flag(help: "Print one JSON document on stdout.")
    var json = false

    @Flag(help: "Exit non-zero unless at least 6 of 7 videos are within 5 bpm (issue 3).")
    var check = false

    func run() throws {
        let eval = try CLIError.wrap { try VideoEvaluation.run(directory: directory) }
        for name in eval.unscored { warn("not scored: \(name) (no truth file \((name as NSString).deletingPathExtension).json)") }
        for name in eval.truthsWithoutVideo { warn("no video for the truth file \(name)") }
        let pass = eval.fractionWithinTolerance >= VideoEvaluation.requiredFraction - 1e-9
        let agreement = Agreement(eval.results.compactMap { r in r.estimatedBPM.map { ($0, r.truthBPM) } })
        if json {
            let doc = JSON.object([
                ("videos", .array(eval.results.map { r in
                    .object([
                        ("name", .string(r.name)), ("truth_bpm", .num(r.truthBPM, digits: 1)),
                        ("bpm", .num(r.estimatedBPM, digits: 2)), ("confidence", .num(r.confidence, digits: 3)),
                        ("error_bpm", .num(r.error, digits: 2)), ("within_5", .bool(r.isWithinTolerance)),
                        ("seconds", .num(r.seconds, digits: 2)),
                        ("x_real_time", .num(r.realTimeFactor, digits: 1)),
                        ("red_clipped_tiles", .num(r.evidence?.clippedTileFraction, digits: 3)),
                        ("frame_step", r.evidence?.frameStep.map { s in
                            .object([
                                ("period_frames", .number(Double(s.period))),
                                ("hz", .num(s.frequency, digits: 3)),
                                ("strength", .num(s.strength, digits: 1)),
                            ])
                        } ?? .null),
                        ("channel", r.evidence?.channel.map { .string($0) } ?? .null),
                        ("spectral_peaks", .array((r.evidence?.peaks ?? []).map { p in
                            .object([("bpm", .num(p.bpm, digits: 1)), ("relative_power", .num(p.relativePower, digits: 3))])
                        })),
                        ("note", r.evidence.map { .string($0.note) } ?? .null),
                        ("failure", r.failure.map { .string($0) } ?? .null),
                    ])
                })),
                ("overall", .object([
                    ("videos", .number(Double(eval.results.count))),
                    ("within_5", .number(Double(eval.withinTolerance))),
                    ("within_5_fraction", .num(eval.fractionWithinTolerance, digits: 4)),
                    ("gate_met", .bool(pass)),
                ] + agreementJSON(agreement))),
            ])
            print(doc.serialized())
        } else {
            print("video".padding(toLength: 16, withPad: " ", startingAt: 0) + "  truth   vitals   error  conf  x real time")
            for r in eval.results {
                let est = r.estimatedBPM.map { String(format: "%6.1f", $0) } ?? (r.failure == nil ? "  none" : " error")
                let err = r.error.map { String(format: "%6.1f", $0) } ?? "     -"
                let conf = r.confidence.map { String(format: "%5.2f", $0) } ?? "    -"
                print(r.name.padding(toLength: 16, withPad: " ", startingAt: 0)
                      + String(format: " %6.1f", r.truthBPM) + "   \(est)  \(err)  \(conf)"
                      + (r.realTimeFactor.map { String(format: "  %6.1f", $0) } ?? "       -")
                      + (r.isWithinTolerance ? "" : "  (off)") + (r.failure.map { "  \($0)" } ?? ""))
            }
            for r in eval.results where !r.isWithinTolerance {
                if let e = r.evidence { print("  \(r.name): \(e.note)") }
            }
            print(agreementLine(agreement, of: "the answered videos"))
            print("within 5 bpm: \(eval.withinTolerance) of \(eval.results.count) (issue 3 asks for 6 of 7) \(pass ? "met" : "NOT met")")
        }
        if check && !pass { throw ExitCode(1) }
    }
}
