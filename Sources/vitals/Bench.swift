import ArgumentParser
import FaceTracking
import Foundation
import VitalsIO

/// `vitals bench`: speed figures, as a table or as `{"benchmarks": [{"name": ..., "ns_per_op": ...}]}`.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the speed of the toolkit's hot loops (frame sampling, ...).")

    @Flag(help: "Print one JSON document: {\"benchmarks\": [{\"name\": ..., \"ns_per_op\": ...}]}.")
    var json = false

    @Option(help: "Run only benchmarks whose name contains this text.")
    var filter: String?

    @Option(help: "OpenCV cascade XML for face-detect (default: the bundled lbpcascade_frontalface_improved.xml).")
    var cascade: String?

    @Option(help: "Rounds per benchmark; the fastest round is reported (the PPG benchmarks take at most 5; the 24-hour stream runs once).")
    var rounds = 7

    /// Every benchmark's name, in the order they run.
    static var names: [String] {
        PulseBenchmarks.names + FrameBenchmarks.names + StepBenchmarks.names + MotionBenchmarks.names
            + FaceBenchmarks.names + HistoryBenchmarks.names
    }

    func validate() throws {
        // Each round of the frame benchmarks reads at least 512 MiB: a thousand rounds is hours.
        guard rounds >= 1, rounds <= 1000 else { throw ValidationError("--rounds must be 1...1000 (got \(rounds))") }
        if let filter, filter.isEmpty || !Self.names.contains(where: { $0.contains(filter) }) {
            let what = filter.isEmpty ? "--filter is empty" : "--filter '\(filter)' matches no benchmark"
            throw ValidationError("\(what); the benchmarks are \(Self.names.joined(separator: ", "))")
        }
    }

    func run() throws {
        // A --cascade is read before anything runs: read last, a missing or broken one was reported
        // only after every other benchmark had run (their figures lost), or not at all when --filter
        // left face-detect out.
        let classifier = try cascade.map { try Faces.loadCascade($0).0 }
        // The face benchmark's frame and cascade (--cascade's or the bundled one), read once; as for
        // one that cannot be read, a cascade that finds no face is refused before the rest runs.
        let face = try Self.runsFaceBenchmarks(filter)
            ? (astronaut: Self.astronaut(), cascade: classifier ?? Faces.loadCascade(nil).0) : nil
        if let face, classifier != nil, !FaceBenchmarks.findsAFace(astronaut: face.astronaut, cascade: face.cascade) {
            throw CLIError(FaceBenchmarks.noFace.message)
        }
        let results = try PulseBenchmarks.run(filter: filter, rounds: min(rounds, 5))
            + FrameBenchmarks.run(filter: filter, rounds: rounds)
            + StepBenchmarks.run(filter: filter, rounds: rounds)
            + MotionBenchmarks.run(filter: filter, rounds: rounds)
            + CLIError.wrap {
                try face.map { try FaceBenchmarks.run(filter: filter, rounds: rounds, astronaut: $0.astronaut, cascade: $0.cascade) } ?? []
            }
            + HistoryBenchmarks.run(filter: filter, rounds: min(rounds, 3))
        if json {
            struct Document: Encodable { var benchmarks: [BenchmarkResult] }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(Document(benchmarks: results)), as: UTF8.self))
        } else {
            for r in results { print(r.tableLine) }
        }
    }

    /// Whether `filter` keeps the face benchmark.
    static func runsFaceBenchmarks(_ filter: String?) -> Bool {
        FaceBenchmarks.names.contains { filter == nil || $0.contains(filter!) }
    }

    /// The bundled astronaut photograph the face benchmark's frame is made of.
    static func astronaut() throws -> GrayImage {
        guard let url = Bundle.module.url(forResource: "astronaut", withExtension: "pgm", subdirectory: "Resources") else {
            throw CLIError("the bundled astronaut.pgm is missing from the vitals resources")
        }
        return try CLIError.wrap { try PGMImage.read(path: url.path) }
    }
}
