import ArgumentParser
import VitalsIO

/// `vitals eval beats DIR`: detected beats against ECG R-peaks.
struct EvalBeats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beats",
        abstract: "Score beats and inter-beat intervals against ECG R-peaks (PPG + ECG recordings)."
    )

    @Argument(help: "Folder of NAME.csv (time_s,...,ppg) and NAME_rpeaks.csv (time_s) pairs.")
    var directory: String

    @Option(help: ArgumentHelp(
        "Also score PhysioNet records NAME.hea with an annotation file NAME.<annotator> (atr, qrs, ...).",
        discussion: "The record's PLETH signal is analysed; its beat annotations (N, V, A, ... as WFDB's isqrs) are the R-peaks."))
    var annotator: String?

    @Option(help: ArgumentHelp(
        "Recording whose figures the gates apply to, or 'all' for every recording.",
        discussion: "Default: a103l when the folder has it (issue 2's recording), else every recording."))
    var gate: String?

    @Flag(help: "Print one JSON document on stdout.")
    var json = false

    @Flag(help: "Exit non-zero when a gate of issue 2 is not met.")
    var check = false

    func run() throws {
        let results = try CLIError.wrap { try BeatEvaluation.run(directory: directory, annotator: annotator) }
        warnUnscored(in: directory, truthSuffix: "_rpeaks.csv")
        // A folder of other recordings (held-back ones, say) is gated on every recording it has.
        let gated: [BeatEvaluation]
        switch gate {
        case "all": gated = results
        case let name?:
            gated = results.filter { $0.name == name }
            if gated.isEmpty { throw CLIError("no recording named \(name) in \(directory) (it has \(results.map(\.name).joined(separator: ", ")))") }
        case nil:
            let issueRecording = results.filter { $0.name == "a103l" }
            gated = issueRecording.isEmpty ? results : issueRecording
        }
        let gates: [(String, Bool)] = gated.flatMap { g in [
            ("\(g.name): sensitivity >= 97 %", g.sensitivity >= 0.97),
            ("\(g.name): PPV >= 97 %", g.positivePredictiveValue >= 0.97),
            ("\(g.name): IBI median error <= 5 ms", g.medianIntervalErrorMS <= 5),
            ("\(g.name): IBI 90th percentile error <= 15 ms", g.p90IntervalErrorMS <= 15),
        ] }
        if json {
            print(JSON.object([
                ("recordings", .array(results.map { r in
                    .object([
                        ("name", .string(r.name)), ("beats", .number(Double(r.beats))),
                        ("r_peaks", .number(Double(r.references))), ("sensitivity", .num(r.sensitivity, digits: 4)),
                        ("ppv", .num(r.positivePredictiveValue, digits: 4)),
                        ("arrival_delay_ms", .num(r.arrivalDelay * 1000, digits: 1)),
                        ("ibi_median_error_ms", .num(r.medianIntervalErrorMS, digits: 2)),
                        ("ibi_p90_error_ms", .num(r.p90IntervalErrorMS, digits: 2)),
                        ("ibi_intervals", .number(Double(r.intervalErrorsMS.count))),
                        ("ibi_hrv_median_error_ms", .num(r.medianKeptIntervalErrorMS, digits: 2)),
                        ("ibi_hrv_p90_error_ms", .num(r.p90KeptIntervalErrorMS, digits: 2)),
                        ("ibi_hrv_intervals", .number(Double(r.keptIntervalErrorsMS.count))),
                        ("flagged_beats", .number(Double(r.flaggedBeats))),
                        ("implausible_reference_peaks", .number(Double(r.implausibleReferences))),
                        ("sensitivity_plausible_reference", .num(r.sensitivityPlausible, digits: 4)),
                        ("ppv_plausible_reference", .num(r.ppvPlausible, digits: 4)),
                    ])
                })),
                ("gates", .object(gates.map { ($0.0, .bool($0.1)) })),
            ]).serialized())
        } else {
            print("recording  beats  R-peaks  sens    PPV     delay   IBI med  IBI p90  flagged  | HRV's IBI med  p90  | implausible R  sens    PPV where it is plausible")
            for r in results {
                print(String(format: "%-9@ %6d %8d  %5.1f%%  %5.1f%%  %4.0f ms  %5.1f ms  %5.1f ms  %4d     | %5.1f ms  %5.1f ms | %6d         %5.1f%%  %5.1f%%",
                             r.name, r.beats, r.references, 100 * r.sensitivity, 100 * r.positivePredictiveValue,
                             r.arrivalDelay * 1000, r.medianIntervalErrorMS, r.p90IntervalErrorMS, r.flaggedBeats,
                             r.medianKeptIntervalErrorMS, r.p90KeptIntervalErrorMS,
                             r.implausibleReferences, 100 * r.sensitivityPlausible, 100 * r.ppvPlausible))
            }
            print("  IBI: every pair of consecutive matched beats; HRV's IBI: the intervals HRV keeps (not flagged)")
            for (name, ok) in gates { print("  [\(ok ? "pass" : "FAIL")] \(name)") }
        }
        if check, gates.contains(where: { !$0.1 }) { throw ExitCode(1) }
    }
}
