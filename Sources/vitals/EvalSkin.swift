import ArgumentParser
import Foundation
import PulseDetection
import SignalProcessing
import VitalsIO

/// `vitals eval skin DIR`: the remote pulse of skin videos against a heart rate per video.
struct EvalSkin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skin",
        abstract: "Score the remote pulse (skin seen by a camera) against a heart rate per video.",
        discussion: """
        DIR (or each of its subfolders) holds truth.csv (columns video,hr_bpm) and the videos, one per skin \
        region: VIDEO_REGION.EXT (or VIDEO.EXT), as ../shared/data/rppg-skin. Each region's frames are \
        averaged whole; a video's rate is the one its windows agree on over its regions together (vitals heart-rate --skin). \
        The scores count answered videos; for scale, the error of one constant rate (the truths' median) \
        is printed beside them.
        """,
        aliases: ["rppg"]
    )

    @Argument(help: "Folder with truth.csv and the videos (or subfolders of them).")
    var directory: String

    @Option(help: "How the colour channels are combined (pos, chrom or green).")
    var method: RemotePulse.Method = .pos

    @Flag(help: "Print one JSON document on stdout.")
    var json = false

    func run() throws {
        let results = try CLIError.wrap {
            // Progress for a person watching; a script reading stderr gets only warnings and errors.
            try SkinEvaluation.run(directory: directory, method: method,
                                   progress: { if isatty(2) != 0 { status("decoding \($0)") } },
                                   unscored: { warn("not scored: \($0) (no row in truth.csv names it)") })
        }
        let answered = results.filter { $0.heartRate != nil }
        let errors = answered.map { abs($0.heartRate! - $0.truth) }
        let constant = Statistics.median(results.map(\.truth))
        let constantErrors = results.map { abs(constant - $0.truth) }
        let within5 = errors.filter { $0 <= 5 }.count
        let agreement = Agreement(answered.map { ($0.heartRate!, $0.truth) })
        let mae = agreement.meanAbsoluteError
        if json {
            print(JSON.object([
                ("method", .string(method.rawValue)),
                ("videos", .array(results.map { r in
                    .object([
                        ("group", .string(r.group)), ("video", .string(r.video)), ("truth_bpm", .num(r.truth, digits: 3)),
                        ("bpm", .num(r.heartRate, digits: 2)),
                        ("error_bpm", .num(r.heartRate.map { $0 - r.truth }, digits: 2)),
                        ("regions", .array(zip(r.regions, r.regionRates).map { name, bpm in
                            .object([("name", .string(name)), ("bpm", .num(bpm, digits: 2))])
                        })),
                        ("windows", .number(Double(r.windows))), ("answered_windows", .number(Double(r.answeredWindows))),
                        ("rejected_frames", .number(Double(r.rejectedFrames))), ("frames", .number(Double(r.frames))),
                        ("duration_s", .num(r.duration, digits: 2)),
                    ])
                })),
                ("overall", .object([
                    ("videos", .number(Double(results.count))), ("answered", .number(Double(answered.count))),
                    ("mae_bpm", .num(mae, digits: 3)), ("within_5_bpm", .number(Double(within5))),
                    ("constant_bpm", .num(constant, digits: 3)),
                    ("constant_mae_bpm", .num(Statistics.mean(constantErrors), digits: 3)),
                ] + agreementJSON(agreement))),
            ]).serialized())
            return
        }
        print("video                      truth   vitals   error  answered windows  frames left out  regions alone")
        for r in results {
            let name = r.group.isEmpty ? r.video : "\(r.group)/\(r.video)"
            let rate = r.heartRate.map { String(format: "%6.1f  %+6.1f", $0, $0 - r.truth) } ?? "     -       -"
            let alone = zip(r.regions, r.regionRates).map { name, bpm in
                "\(name) " + (bpm.map { String(format: "%.1f", $0) } ?? "-")
            }.joined(separator: ", ")
            print(String(format: "%@ %6.1f  %@  %7d of %-4d  %6.0f %%  %@", name.padding(toLength: 24, withPad: " ", startingAt: 0),
                         r.truth, rate, r.answeredWindows, r.windows,
                         100 * Double(r.rejectedFrames) / Double(max(1, r.frames * r.regions.count)), alone))
        }
        print(String(format: "%@: %d of %d videos answered; MAE %@ bpm, %d within 5 bpm", method.rawValue, answered.count,
                     results.count, mae.isFinite ? String(format: "%.1f", mae) : "-", within5))
        print(agreementLine(agreement, of: "the answered videos"))
        print(String(format: "for scale: a constant %.1f bpm (the truths' median) has MAE %.1f bpm, %d within 5 bpm",
                     constant, Statistics.mean(constantErrors), constantErrors.filter { $0 <= 5 }.count))
    }
}
