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
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var phase = 0.0
        for i in 0..<n {
            let t = Double(i) / rate
            let bpm = 72 + 6 * sin(2 * .pi * t / 60)
            phase += bpm / 60 / rate
            let p = phase - phase.rounded(.down)
            let pulse = exp(-pow((p - 0.2) / 0.07, 2)) + 0.35 * exp(-pow((p - 0.5) / 0.08, 2))
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let noise = (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.05
            out.append(.ppg(time: t, value: pulse + 0.3 * sin(2 * .pi * 0.25 * t) + noise))
        }
        return out
    }

    /// Runs the benchmarks whose names contain `filter` (all when nil); each reports its fastest round,
    /// in CPU time of the calling thread (as the step benchmarks: on a shared machine, wall time
    /// also counts the time other processes hold the core).
    public static func run(filter: String? = nil, rounds: Int = 3) -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        func wanted(_ name: String) -> Bool { filter.map { name.contains($0) } ?? true }
        if wanted("ppg-batch-1h-100hz") {
            let inputs = syntheticPPG(seconds: 3600, rate: 100)
            var best = Double.infinity
            for _ in 0..<rounds {
                let start = StepBenchmarks.threadCPUNanoseconds()
                let analysis = PulseAnalysis.run(inputs, sampleRate: 100)
                let elapsed = StepBenchmarks.threadCPUNanoseconds() - start
                precondition(analysis.heartRate != nil, "benchmark signal must give a rate")
                best = min(best, elapsed)
            }
            var r = BenchmarkResult(name: "ppg-batch-1h-100hz", nsPerOp: best / Double(inputs.count))
            r.samplesPerSecond = Double(inputs.count) / (best / 1e9)
            results.append(r)
        }
        if wanted("pulse-stream-per-frame-30fps") {
            // The live pipeline's cost per camera frame once the frame is reduced to its mean colour.
            let n = 30 * 600
            var inputs: [PulseInput] = []
            inputs.reserveCapacity(n)
            for (i, p) in syntheticPPG(seconds: 600, rate: 30).enumerated() {
                guard case .ppg(let t, let v) = p else { continue }
                _ = i
                inputs.append(.color(ColorSample(time: t, red: 240 - 4 * v, green: 40 - 3 * v, blue: 30 - 2 * v)))
            }
            var best = Double.infinity
            for _ in 0..<rounds {
                var analyzer = PulseAnalyzer(sampleRate: 30)
                var events = 0
                let start = StepBenchmarks.threadCPUNanoseconds()
                for input in inputs { analyzer.process(input) { _ in events += 1 } }
                let elapsed = StepBenchmarks.threadCPUNanoseconds() - start
                precondition(events > 0)
                best = min(best, elapsed)
            }
            results.append(BenchmarkResult(name: "pulse-stream-per-frame-30fps", nsPerOp: best / Double(n)))
        }
        return results
    }
}
