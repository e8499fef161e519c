import ArgumentParser
import Foundation
import PulseDetection
import VitalsIO

/// `vitals eval fingertip DIR`: the MTHS accuracy table, per subject and overall.
struct EvalFingertip: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fingertip",
        abstract: "Score fingertip heart rate against pulse-oximeter truth (MTHS layout)."
    )

    @Argument(help: "Folder of NAME.csv (time_s,r,g,b) and NAME_truth.csv (time_s,hr_bpm) pairs.")
    var directory: String

    @Option(help: "Only subjects whose name ends with an odd/even number (cross-validation): odd|even|all.")
    var subset: String = "all"

    @Option(help: "Override the minimum confidence for reporting a rate (for studying the trade-off).")
    var minConfidence: Double?

    @Flag(help: "Also list every answered window more than 5 bpm from the truth.")
    var misses = false

    @Flag(help: "Print one JSON document on stdout.")
    var json = false

    @Flag(help: "Exit non-zero when a gate of issue 2 is not met.")
    var check = false

    func validate() throws {
        guard ["odd", "even", "all"].contains(subset) else { throw ValidationError("--subset must be odd, even or all (got '\(subset)')") }
        if let minConfidence, !(minConfidence >= 0 && minConfidence <= 1) {
            throw ValidationError("--min-confidence must be a confidence in 0...1 (got \(minConfidence))")
        }
    }

    func run() throws {
        var settings = PulseAnalyzer.Settings()
        if let minConfidence { settings.minimumConfidence = minConfidence }
        let eval = try CLIError.wrap { try FingertipEvaluation.run(directory: directory, settings: settings) }
        let subjects = eval.subjects.filter(isInSubset)
        guard !subjects.isEmpty else { throw CLIError("no \(subset)-numbered subject in \(directory)") }
        for file in eval.unpaired { warn("not scored: \(file)") }
        for sub in subjects { if let failure = sub.failure { warn("\(sub.name): not analysed, its windows count as not answered: \(failure)") } }
        let s = FingertipEvaluation.summarize(subjects)
        let gates = Self.gates(s)
        if json {
            let doc = JSON.object([
                ("subjects", .array(subjects.map(Self.subjectJSON))),
                ("overall", summaryJSON(s)),
                ("gates", .object(gates.map { ($0.0, .bool($0.1)) })),
            ])
            print(doc.serialized())
        } else {
            printTable(subjects, summary: s, gates: gates)
        }
        if check, gates.contains(where: { !$0.1 }) {
            throw ExitCode(1)
        }
    }

    /// Whether `subject` is in `--subset`: by its number, the first run of digits in its name
    /// (subject_45_take2 is 45); a name without one is in every subset.
    private func isInSubset(_ subject: FingertipEvaluation.Subject) -> Bool {
        let digits = subject.name.drop { !$0.isNumber }.prefix(while: \.isNumber)
        guard subset != "all", let n = Int(digits) else { return true }
        return subset == "odd" ? n % 2 == 1 : n % 2 == 0
    }

    /// Issue 2's MTHS gates on `s`: (name, holds).
    private static func gates(_ s: FingertipEvaluation.Summary) -> [(String, Bool)] {
        [
            ("answered >= 85 % of windows", s.answeredFraction >= 0.85),
            ("within 5 bpm >= 85 % of answered", s.within5Fraction >= 0.85),
            ("median absolute error <= 2 bpm", s.medianAbsoluteError <= 2),
            ("MAE <= 4 bpm", s.meanAbsoluteError <= 4),
            ("whole recording within 5 bpm for >= 90 % of subjects", s.subjectsWithin5Fraction >= 0.9),
            ("half/double-rate windows <= 2 %", s.halfOrDoubleFraction <= 0.02),
        ]
    }

    /// One subject in `--json`: its figures and every scored window.
    private static func subjectJSON(_ sub: FingertipEvaluation.Subject) -> JSON {
        let ss = FingertipEvaluation.summarize([sub])
        return .object([
            ("name", .string(sub.name)), ("windows", .number(Double(ss.scored))),
            ("answered", .number(Double(ss.answered))), ("within_5", .number(Double(ss.within5))),
            ("mae_bpm", .num(ss.meanAbsoluteError, digits: 2)), ("half_double", .number(Double(ss.halfOrDouble))),
            ("whole_bpm", .num(sub.wholeBPM, digits: 2)), ("truth_median_bpm", .num(sub.truthMedian, digits: 2)),
            ("truth_notes", .array(sub.truthNotes.map { .string($0) })),
            ("failure", sub.failure.map { .string($0) } ?? .null),
            // Every scored window, for a researcher's own statistics (Bland-Altman and the like).
            ("window_results", .array(sub.windows.map { w in
                .object([("start_s", .num(w.start, digits: 3)), ("truth_bpm", .num(w.truth, digits: 3)),
                         ("bpm", .num(w.bpm, digits: 3)), ("confidence", .num(w.confidence, digits: 4))])
            })),
        ])
    }

    /// The text report: a line per subject, the overall figures, the gates and, with `--misses`,
    /// every answered window more than 5 bpm off.
    private func printTable(_ subjects: [FingertipEvaluation.Subject], summary s: FingertipEvaluation.Summary,
                            gates: [(String, Bool)]) {
        print("subject      windows answered within5   MAE   whole  truth  notes")
        for sub in subjects {
            let ss = FingertipEvaluation.summarize([sub])
            print(String(format: "%-12@ %7d %8d %7d %@ %@ %@  %@", sub.name, ss.scored, ss.answered, ss.within5,
                         Self.figure(ss.meanAbsoluteError, "%.1f", width: 6), Self.figure(sub.wholeBPM ?? .nan, "%.1f", width: 7),
                         Self.figure(sub.truthMedian, "%.1f", width: 6), (sub.truthNotes + (sub.failure.map { ["not analysed: \($0)"] } ?? [])).joined(separator: "; ")))
        }
        print(String(format: """
            overall: %d windows, answered %.1f %%, within 5 bpm %@ %% of answered, median AE %@ bpm, \
            MAE %@ bpm, whole recording within 5 bpm %d/%d, half/double %@ %%
            """, s.scored, 100 * s.answeredFraction, Self.figure(100 * s.within5Fraction, "%.1f"),
            Self.figure(s.medianAbsoluteError, "%.2f"), Self.figure(s.meanAbsoluteError, "%.2f"),
            s.subjectsWithin5, s.subjects, Self.figure(100 * s.halfOrDoubleFraction, "%.1f")))
        print(agreementLine(s.agreement, of: "the answered windows"))
        for (name, ok) in gates { print("  [\(ok ? "pass" : "FAIL")] \(name)") }
        guard misses else { return }
        for sub in subjects {
            for w in sub.windows {
                guard let bpm = w.bpm, abs(bpm - w.truth) > 5 else { continue }
                print(String(format: "  miss %@ %5.0f s  truth %5.1f  got %5.1f  confidence %.2f",
                             sub.name, w.start, w.truth, bpm, w.confidence))
            }
        }
    }

    /// `value` in `format`, or "-" when there is none (NaN: no window answered), right-aligned in
    /// `width` characters.
    static func figure(_ value: Double, _ format: String, width: Int = 0) -> String {
        let text = value.isNaN ? "-" : String(format: format, value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    private func summaryJSON(_ s: FingertipEvaluation.Summary) -> JSON {
        .object([
            ("windows", .number(Double(s.scored))), ("answered_fraction", .num(s.answeredFraction, digits: 4)),
            ("within_5_fraction", .num(s.within5Fraction, digits: 4)), ("median_ae_bpm", .num(s.medianAbsoluteError, digits: 3)),
            ("mae_bpm", .num(s.meanAbsoluteError, digits: 3)), ("subjects_within_5", .number(Double(s.subjectsWithin5))),
            ("subjects_within_5_fraction", .num(s.subjectsWithin5Fraction, digits: 6)),
            ("subjects", .number(Double(s.subjects))), ("half_double_fraction", .num(s.halfOrDoubleFraction, digits: 4)),
        ] + agreementJSON(s.agreement))
    }
}
