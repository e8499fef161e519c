import ArgumentParser
import Foundation
import PulseDetection
import SignalProcessing
import VitalsIO

/// `vitals eval wrist DIR`: heart rate from a moving wrist's PPG against the ECG's.
struct EvalWrist: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wrist",
        abstract: "Score the wrist tracker (PPG with the accelerometer as motion reference) against ECG heart rates.",
        discussion: """
        DIR holds NAME.csv (columns ppg1, ppg2, acc_x, acc_y, acc_z at 125 Hz, as the IEEE Signal Processing \
        Cup 2015 set) and NAME_bpm.csv (window_start_s,window_end_s,bpm). Each window is scored with the \
        accelerometer, without it, and with the fingertip pipeline (answered windows only), for comparison.
        """
    )

    @Argument(help: "Folder of NAME.csv and NAME_bpm.csv pairs.")
    var directory: String

    @Option(help: "Sample rate in Hz of files without a time_s or time_ms column.")
    var rate: Double = 125

    @Flag(help: "Print one JSON document on stdout.")
    var json = false

    func run() throws {
        var options = WristEvaluation.Options()
        options.rate = rate
        let results = try CLIError.wrap { try WristEvaluation.run(directory: directory, options: options) }
        warnUnscored(in: directory, truthSuffix: "_bpm.csv")
        for r in results {
            if r.withMotion.windows == 0 {
                warn("\(r.name): no truth window lies inside the recording (missing truth values, or a recording shorter than a window): not scored")
            }
            if r.missingTruth > 0 { warn("\(r.name): \(r.missingTruth) truth row(s) without a value: not scored") }
            if r.truthOffTheGrid > 0 {
                warn("\(r.name): \(r.truthOffTheGrid) truth window(s) start off the tracker's 2-s grid (no estimate within 0.5 s): counted as not answered")
            }
        }
        let methods: [(String, KeyPath<WristEvaluation, WristEvaluation.Scores>)] = [
            ("with_motion", \.withMotion), ("with_motion_every_window", \.withMotionEveryWindow),
            ("without_motion", \.withoutMotion), ("fingertip_pipeline", \.fingertipPipeline),
        ]
        func summary(_ path: KeyPath<WristEvaluation, WristEvaluation.Scores>) -> (meanOfMAE: Double, mae: Double, within5: Double, within10: Double, answered: Double) {
            let scores = results.map { $0[keyPath: path] }
            let all = WristEvaluation.Scores(pooling: scores)
            let maes = scores.map(\.meanAbsoluteError).filter(\.isFinite)
            return (maes.isEmpty ? .nan : Statistics.mean(maes), all.meanAbsoluteError, all.within(5), all.within(10),
                    Double(all.answered) / Double(max(1, all.windows)))
        }
        if json {
            func scores(_ s: WristEvaluation.Scores) -> JSON {
                .object([("mae_bpm", .num(s.meanAbsoluteError, digits: 3)), ("within_5_bpm", .num(s.within(5), digits: 4)),
                         ("within_10_bpm", .num(s.within(10), digits: 4)), ("answered", .number(Double(s.answered))),
                         ("windows", .number(Double(s.windows)))])
            }
            print(JSON.object([
                ("recordings", .array(results.map { r in
                    .object([("name", .string(r.name))] + methods.map { ($0.0, scores(r[keyPath: $0.1])) })
                })),
                ("overall", .object(methods.map { name, path in
                    let s = summary(path)
                    return (name, .object([
                        ("mean_of_recording_mae_bpm", .num(s.meanOfMAE, digits: 3)), ("mae_bpm", .num(s.mae, digits: 3)),
                        ("within_5_bpm", .num(s.within5, digits: 4)), ("within_10_bpm", .num(s.within10, digits: 4)),
                        ("answered", .num(s.answered, digits: 4)),
                    ]))
                })),
            ]).serialized())
            return
        }
        print("recording          windows | with accelerometer: answered  MAE  <=5   <=10 | every window: MAE | without: MAE  <=10 | fingertip pipeline: answered  MAE")
        for r in results {
            let a = r.withMotion, e = r.withMotionEveryWindow, b = r.withoutMotion, c = r.fingertipPipeline
            print(String(format: "%@ %7d | %28.0f%% %4.1f %4.0f%% %4.0f%% | %17.1f | %12.1f %4.0f%% | %28.0f%% %5.1f",
                         r.name.padding(toLength: max(18, r.name.count), withPad: " ", startingAt: 0), a.windows,
                         100 * Double(a.answered) / Double(max(1, a.windows)), a.meanAbsoluteError, 100 * a.within(5), 100 * a.within(10),
                         e.meanAbsoluteError, b.meanAbsoluteError, 100 * b.within(10),
                         100 * Double(c.answered) / Double(max(1, c.windows)), c.meanAbsoluteError))
        }
        for (name, path) in methods {
            let s = summary(path)
            print(String(format: "%@: MAE %.2f bpm (mean of the recordings' %.2f), within 5 bpm %.1f %%, within 10 bpm %.1f %% of %.0f %% answered",
                         name.replacingOccurrences(of: "_", with: " "), s.mae, s.meanOfMAE, 100 * s.within5, 100 * s.within10, 100 * s.answered))
        }
    }
}
