import Foundation
import PulseDetection

/// Speed of the pulse pipeline: batch over a long PPG, and the per-frame cost of the live pipeline.
public enum PulseBenchmarks {
    /// A deterministic synthetic PPG: a pulse at 72 bpm with slow rate variation, a dicrotic wave,
    /// baseline wander and noise (a linear congruential generator keeps it reproducible).
    public static func syntheticPPG(seconds: Double, rate: Double) -> [PulseInput] {
        let n = Int(seconds * rate)
        var out: [PulseInput] = []
        out.reserveCapacity(n)
        var generator = SyntheticPPG(rate: rate)
        for _ in 0..<n { out.append(generator.next()) }
        return out
    }

    /// The synthetic PPG of ``syntheticPPG(seconds:rate:)`` one sample at a time, for runs too long
    /// to hold in memory.
    public struct SyntheticPPG: Sendable {
        public let rate: Double
        private var i = 0
        private var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        private var phase = 0.0

        public init(rate: Double) { self.rate = rate }

        public mutating func next() -> PulseInput {
            let t = Double(i) / rate
            i += 1
            let bpm = 72 + 6 * sin(2 * .pi * t / 60)
            phase += bpm / 60 / rate
            let p = phase - phase.rounded(.down)
            let pulse = exp(-pow((p - 0.2) / 0.07, 2)) + 0.35 * exp(-pow((p - 0.5) / 0.08, 2))
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let noise = (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.05
            return .ppg(time: t, value: pulse + 0.3 * sin(2 * .pi * 0.25 * t) + noise)
        }
    }

    /// Resident memory of this process, KiB (Linux: /proc/self/statm); nil where unavailable.
    static func residentKiB() -> Double? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1024
        #else
        return nil
        #endif
    }

    /// The benchmarks' names, in the order they run.
    public static let names = ["ppg-batch-1h-100hz", "ppg-stream-24h-100hz", "pulse-stream-per-frame-30fps", "wrist-batch-1h-125hz"]

    /// Runs the benchmarks whose names contain `filter` (all when nil); each reports its fastest round,
    /// in CPU time of the calling thread (as the step benchmarks: on a shared machine, wall time
    /// also counts the time other processes hold the core).
    public static func run(filter: String? = nil, rounds: Int = 3) -> [BenchmarkResult] {
        let benchmarks: [(name: String, run: (Int) -> BenchmarkResult)] = [
            ("ppg-batch-1h-100hz", ppgBatch),
            ("ppg-stream-24h-100hz", { _ in ppgStreamDay() }),
            ("pulse-stream-per-frame-30fps", pulseStreamPerFrame),
            ("wrist-batch-1h-125hz", wristBatch),
        ]
        precondition(benchmarks.map(\.name) == names, "PulseBenchmarks.names must list the benchmarks run, in order")
        return benchmarks.filter { b in filter.map { b.name.contains($0) } ?? true }.map { $0.run(rounds) }
    }

    /// The least thread CPU time (ns) of `rounds` runs of `body` (each checks its own result).
    private static func fastest(rounds: Int, _ body: () -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<rounds {
            let start = StepBenchmarks.threadCPUNanoseconds()
            body()
            best = min(best, StepBenchmarks.threadCPUNanoseconds() - start)
        }
        return best
    }

    /// A result timed per sample, with its samples per second.
    private static func perSample(_ name: String, nanoseconds: Double, samples: Double) -> BenchmarkResult {
        var r = BenchmarkResult(name: name, nsPerOp: nanoseconds / samples)
        r.samplesPerSecond = samples / (nanoseconds / 1e9)
        return r
    }

    private static func ppgBatch(rounds: Int) -> BenchmarkResult {
        let inputs = syntheticPPG(seconds: 3600, rate: 100)
        let best = fastest(rounds: rounds) {
            let analysis = PulseAnalysis.run(inputs, sampleRate: 100)
            precondition(analysis.heartRate != nil, "benchmark signal must give a rate")
        }
        return perSample("ppg-batch-1h-100hz", nanoseconds: best, samples: Double(inputs.count))
    }

    /// A day of PPG at 100 Hz streamed through the live pipeline, one second at a time, the events
    /// counted and dropped (a monitor's use): the pipeline must hold no per-sample history, so
    /// resident memory after 24 h is what it was after the first hour. Runs once.
    private static func ppgStreamDay() -> BenchmarkResult {
        let rate = 100.0
        var generator = SyntheticPPG(rate: rate)
        var analyzer = PulseAnalyzer(sampleRate: rate)
        var chunk: [PulseInput] = []
        chunk.reserveCapacity(Int(rate))
        var rates = 0, beats = 0
        var afterFirstHour: Double?
        var cpu = 0.0
        for second in 0..<(24 * 3600) {
            chunk.removeAll(keepingCapacity: true)
            for _ in 0..<Int(rate) { chunk.append(generator.next()) }
            let start = StepBenchmarks.threadCPUNanoseconds()
            analyzer.process(contentsOf: chunk) { event in
                switch event {
                case .rate: rates += 1
                case .confirmedBeat: beats += 1
                default: break
                }
            }
            cpu += StepBenchmarks.threadCPUNanoseconds() - start
            if second == 3599 { afterFirstHour = residentKiB() }
        }
        precondition(rates > 80_000 && beats > 100_000, "benchmark signal must give rates and beats")
        var r = perSample("ppg-stream-24h-100hz", nanoseconds: cpu, samples: 24 * 3600 * rate)
        if let a = afterFirstHour, let b = residentKiB() { r.residentGrowthKiB = b - a }
        return r
    }

    /// The live pipeline's cost per camera frame once the frame is reduced to its mean colour (a
    /// fresh analyzer each round, its setup of a few microseconds timed with its 18 000 frames).
    private static func pulseStreamPerFrame(rounds: Int) -> BenchmarkResult {
        let n = 30 * 600
        var inputs: [PulseInput] = []
        inputs.reserveCapacity(n)
        for case .ppg(let t, let v) in syntheticPPG(seconds: 600, rate: 30) {
            inputs.append(.color(ColorSample(time: t, red: 240 - 4 * v, green: 40 - 3 * v, blue: 30 - 2 * v)))
        }
        let best = fastest(rounds: rounds) {
            var analyzer = PulseAnalyzer(sampleRate: 30)
            var events = 0
            for input in inputs { analyzer.process(input) { _ in events += 1 } }
            precondition(events > 0)
        }
        return BenchmarkResult(name: "pulse-stream-per-frame-30fps", nsPerOp: best / Double(n))
    }

    /// An hour of a running wrist at 125 Hz, two PPG channels and the accelerometer, through
    /// WristRateTracker (a sample is all five values).
    private static func wristBatch(rounds: Int) -> BenchmarkResult {
        let rate = 125.0, n = Int(3600 * rate)
        let times = (0..<n).map { Double($0) / rate }
        let swing = times.map { sin(2 * Double.pi * 1.3 * $0) }
        let pulse = times.map { sin(2 * Double.pi * (2 + 0.3 * sin(2 * Double.pi * $0 / 600)) * $0) }
        let ppg = [zip(pulse, swing).map { $0 + 3 * $1 }, zip(pulse, swing).map { 0.8 * $0 + 2 * $1 }]
        let acceleration = swing.map { SIMD3($0, 0.5 * $0, 1 + 0.2 * $0) }
        let best = fastest(rounds: rounds) {
            let estimates = try! WristRateTracker.run(times: times, ppg: ppg, acceleration: acceleration, sampleRate: rate)
            precondition(estimates.count > 1700, "benchmark signal must give an estimate every 2 s")
        }
        return perSample("wrist-batch-1h-125hz", nanoseconds: best, samples: Double(n))
    }
}
