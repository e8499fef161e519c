import ArgumentParser
import Foundation
import PulseDetection
import VitalsIO

/// `vitals eval simulated`: issue 2's simulated-finger figures (no data needed).
struct EvalSimulated: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulated",
        abstract: "Score the fingertip pipeline on the seeded simulated finger, 40-200 bpm (issue 2 gates)."
    )

    @Option(help: "Comma-separated heart rates to simulate, bpm (default 40,50,...,200).")
    var rates: String?

    @Option(help: "First recording set: 0 (default) is the one the tests use; any other gives fresh recordings of the same kind.")
    var seed: UInt64 = 0

    @Option(help: "How many recording sets to run (seed, seed + 1, ...); every gate must hold in each.")
    var sets: Int = 1

    @Flag(help: "Print one JSON document on stdout.")
    var json = false

    @Flag(help: "Exit non-zero when a gate of issue 2 is not met.")
    var check = false

    func run() throws {
        var list = SimulatedFingerEvaluation.rates
        if let rates {
            list = try rates.split(separator: ",").map {
                guard let v = Double($0.trimmingCharacters(in: .whitespaces)), v >= 30, v <= 240 else {
                    throw CLIError("--rates: '\($0)' is not a heart rate in 30...240 bpm")
                }
                return v
            }
            // An empty list would pass every gate without simulating anything.
            guard !list.isEmpty else { throw CLIError("--rates: no heart rates given") }
        }
        guard (1...1000).contains(sets) else { throw CLIError("--sets: \(sets) is not a number of recording sets in 1...1000") }
        // Recording seeds are bpm + 1000 seed: beyond a million sets they would wrap (and the JSON
        // "seed" would round).
        guard seed <= 1_000_000, seed + UInt64(sets) <= 1_000_000 else {
            throw CLIError("--seed: recording sets go from 0 to 999999 (asked for \(sets) from \(seed))")
        }
        var cases: [SimulatedFingerEvaluation.Case] = []
        for set in seed..<(seed + UInt64(sets)) {
            for bpm in list {
                status("simulating \(Int(bpm)) bpm\(sets > 1 ? ", set \(set)" : "")")
                cases.append(SimulatedFingerEvaluation.evaluate(bpm: bpm, seed: set))
            }
        }
        let gates = SimulatedFingerEvaluation.gates(cases)
        if json {
            let doc = JSON.object([
                ("rates", .array(cases.map(caseJSON))),
                ("overall", overallJSON(cases)),
                ("gates", .object(gates.map { ($0.0, .bool($0.1)) })),
            ])
            print(doc.serialized())
        } else {
            print(" bpm  rate err  h/d  first rate (s)   contact (s)       beats seen/true  spurious  latency p50/max (ms)  RMSSD true/meas (ms)  err     repeats  timing err")
            for c in cases {
                if sets > 1, c.bpm == list.first { print("recording set \(c.seed)") }
                print(String(format: "%4.0f  %8@  %3d  %-15@  %-16@  %7d/%-7d  %8d  %8.0f / %-8.0f  %8.1f / %-8.1f  %+6.1f %%  %-7d  %+6.1f %%",
                             c.bpm, c.rateError.map { String(format: "%+.2f", $0) } ?? "declined", c.halfOrDoubleReports,
                             c.firstRateDelays.map { String(format: "%.1f", $0) }.joined(separator: ", ") + (c.firstRatesWrong > 0 ? " (\(c.firstRatesWrong) wrong)" : ""),
                             c.contactLatencies.map { String(format: "%.2f", $0) }.joined(separator: ", "),
                             c.beatsSeen, c.trueBeats, c.unmatchedBeats, c.beatLatencyMedian * 1000, c.beatLatencyMax * 1000,
                             c.rmssdTrue, c.rmssdMeasured, 100 * c.rmssdError, c.repeatedConfirmedBeats, 100 * c.rmssdTimingError))
            }
            // The gate compares with every true interval; the last column compares with the true
            // intervals where HRV kept one, which leaves out the luck of which ones it dropped.
            print("timing err: the RMSSD against the true intervals at the places HRV kept (the beat timing's own error)")
            for (name, ok) in gates { print("  [\(ok ? "pass" : "FAIL")] \(name)") }
        }
        if check, gates.contains(where: { !$0.1 }) {
            throw ExitCode(1)
        }
    }

    private func caseJSON(_ c: SimulatedFingerEvaluation.Case) -> JSON {
        var fields: [(String, JSON)] = []
        fields.append(("bpm", .number(c.bpm)))
        fields.append(("seed", .number(Double(c.seed))))
        fields.append(("truth_bpm", .num(c.truthBPM, digits: 3)))
        fields.append(("answered_bpm", .num(c.answeredBPM, digits: 3)))
        fields.append(("rate_error_bpm", .num(c.rateError, digits: 3)))
        fields.append(("half_double_reports", .number(Double(c.halfOrDoubleReports))))
        fields.append(("first_rate_delays_s", .array(c.firstRateDelays.map { JSON.num($0, digits: 3) })))
        fields.append(("first_rates_wrong", .number(Double(c.firstRatesWrong))))
        fields.append(("contact_latencies_s", .array(c.contactLatencies.map { JSON.num($0, digits: 3) })))
        fields.append(("true_beats", .number(Double(c.trueBeats))))
        fields.append(("beats_seen", .number(Double(c.beatsSeen))))
        fields.append(("beats_unmatched", .number(Double(c.unmatchedBeats))))
        fields.append(("beat_latency_median_ms", .num(c.beatLatencyMedian * 1000, digits: 1)))
        fields.append(("beat_latency_max_ms", .num(c.beatLatencyMax * 1000, digits: 1)))
        fields.append(("rmssd_true_ms", .num(c.rmssdTrue, digits: 2)))
        fields.append(("rmssd_ms", .num(c.rmssdMeasured, digits: 2)))
        fields.append(("rmssd_error_fraction", .num(c.rmssdError, digits: 4)))
        fields.append(("rmssd_true_kept_ms", .num(c.rmssdTrueKept, digits: 2)))
        fields.append(("rmssd_timing_error_fraction", .num(c.rmssdTimingError, digits: 4)))
        fields.append(("repeated_confirmed_beats", .number(Double(c.repeatedConfirmedBeats))))
        return .object(fields)
    }

    private func overallJSON(_ cases: [SimulatedFingerEvaluation.Case]) -> JSON {
        let rateErrors: [Double] = cases.compactMap { $0.rateError.map(abs) }
        let rmssdErrors: [Double] = cases.map { abs($0.rmssdError) }
        let beatMax: [Double] = cases.map { $0.beatLatencyMax * 1000 }
        var fields: [(String, JSON)] = []
        fields.append(("max_abs_rate_error_bpm", .num(worst(rateErrors), digits: 3)))
        fields.append(("declined", .number(Double(cases.filter { $0.answeredBPM == nil }.count))))
        fields.append(("half_double_reports", .number(Double(cases.map(\.halfOrDoubleReports).reduce(0, +)))))
        fields.append(("max_first_rate_delay_s", .num(worst(cases.flatMap(\.firstRateDelays)), digits: 3)))
        // Each case has two contacts found (the start, after the lift-off), each owed a first rate.
        fields.append(("cases_missing_a_first_rate", .number(Double(cases.filter { $0.firstRateDelays.count < 2 }.count))))
        fields.append(("first_rates_wrong", .number(Double(cases.map(\.firstRatesWrong).reduce(0, +)))))
        fields.append(("max_contact_latency_s", .num(worst(cases.flatMap(\.contactLatencies)), digits: 3)))
        fields.append(("max_beat_latency_ms", .num(worst(beatMax), digits: 1)))
        // The live beats counted by `part` over all the true beats of `group`.
        func share(_ group: [SimulatedFingerEvaluation.Case], _ part: KeyPath<SimulatedFingerEvaluation.Case, Int>) -> Double {
            Double(group.map { $0[keyPath: part] }.reduce(0, +)) / Double(max(1, group.map(\.trueBeats).reduce(0, +)))
        }
        fields.append(("min_beats_seen_fraction", .num(cases.map { share([$0], \.beatsSeen) }.min(), digits: 4)))
        fields.append(("max_spurious_beats_fraction", .num(worst(cases.map { share([$0], \.unmatchedBeats) }), digits: 4)))
        // Per rate, over every recording set: the share of all its true beats seen live, and of
        // spurious live beats (a single 40-bpm recording has 30 beats, so one beat is 3 %).
        let byRate = Dictionary(grouping: cases, by: \.bpm).values
        fields.append(("recording_sets", .number(Double(Set(cases.map(\.seed)).count))))
        fields.append(("min_pooled_beats_seen_fraction", .num(byRate.map { share($0, \.beatsSeen) }.min(), digits: 4)))
        fields.append(("max_pooled_spurious_beats_fraction", .num(byRate.map { share($0, \.unmatchedBeats) }.max(), digits: 4)))
        fields.append(("max_abs_rmssd_error_fraction", .num(worst(rmssdErrors), digits: 4)))
        let rmssdWithin = Double(rmssdErrors.filter { $0 <= 0.05 }.count)
        fields.append(("rates_rmssd_within_5_percent", .number(rmssdWithin)))
        fields.append(("rmssd_within_5_percent_fraction", .num(rmssdWithin / Double(max(1, rmssdErrors.count)), digits: 4)))
        let timingErrors: [Double] = cases.map { abs($0.rmssdTimingError) }
        fields.append(("max_abs_rmssd_timing_error_fraction", .num(worst(timingErrors), digits: 4)))
        fields.append(("rates_rmssd_timing_within_5_percent", .number(Double(timingErrors.filter { $0 <= 0.05 }.count))))
        fields.append(("repeated_confirmed_beats", .number(Double(cases.map(\.repeatedConfirmedBeats).reduce(0, +)))))
        return .object(fields)
    }

    /// The largest value, NaN (written as null, which fails a gate) when any value is NaN: a case
    /// that could not be measured (a missing event, no HRV) must not hide behind the others, as it
    /// would with `max()`, which NaN's comparisons skip.
    private func worst(_ values: [Double]) -> Double? {
        guard !values.contains(where: \.isNaN) else { return .nan }
        return values.max()
    }
}
