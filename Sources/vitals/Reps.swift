import ArgumentParser
import Foundation
import MotionAnalysis
import VitalsIO

/// `vitals reps FILE`: sets and repetitions in a motion log.
struct Reps: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find exercise sets and count repetitions in a motion log (CSV).",
        discussion: """
        JSON: {"sets": [{"start_s", "end_s", "reps", "exercise", "period_s"}], "reps_total"}; times in seconds from the \
        first sample; exercise is null (the counter does not name exercises).
        """)

    @Argument(help: "Motion log (CSV with a header; Core Motion, Exermote, InfluxDB or --columns).")
    var file: String
    @Flag(help: "Print one JSON document.") var json = false
    @OptionGroup var input: MotionLogArguments

    struct SetRow: Encodable {
        var start_s: Double
        var end_s: Double
        var reps: Int
        var exercise: String?
        var period_s: Double
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(start_s, forKey: .start_s)
            try c.encode(end_s, forKey: .end_s)
            try c.encode(reps, forKey: .reps)
            try c.encode(exercise, forKey: .exercise)  // explicit null
            try c.encode(period_s, forKey: .period_s)
        }
        enum CodingKeys: String, CodingKey { case start_s, end_s, reps, exercise, period_s }
    }

    struct Document: Encodable {
        var sets: [SetRow]
        var reps_total: Int
    }

    func run() throws {
        try CLIError.wrap {
            let log = try input.read(file)
            try log.requireSampleRate(atLeast: RepCounter.minimumSampleRate, for: "counting reps")
            let motion = try log.deviceMotion()
            var counter = RepCounter(sampleRate: log.sampleRate)
            let sets = counter.process(motion)
            let doc = Document(sets: sets.map { SetRow(start_s: $0.start, end_s: $0.end, reps: $0.reps, exercise: nil, period_s: $0.period) },
                               reps_total: sets.reduce(0) { $0 + $1.reps })
            if json {
                try printJSON(doc)
            } else {
                print("\(doc.reps_total) reps in \(sets.count) sets")
                for s in sets {
                    print(String(format: "  %7.1f - %7.1f s  %3d reps  (period %.1f s)", s.start, s.end, s.reps, s.period))
                }
            }
        }
    }
}
