import Foundation
import MotionAnalysis

/// Pedometer speed: `StepDetector.detect(times:accelerations:)` over a synthetic recording, per sample.
///
/// The recording: `sampleCount` samples at `rate` Hz, walking at 1.8 steps/s (a vertical bump per step,
/// alternating lateral sway) with 30 s of walking then 10 s of standing, repeated; gravity along a fixed
/// tilted axis; deterministic. The figure is the fastest round's nanoseconds per input sample, in CPU time
/// of the running thread (the build machine is shared: wall time there includes waiting for a core).
public enum StepBenchmarks {
    /// Samples per round.
    public static let sampleCount = 2_000_000
    /// Rates benchmarked, Hz: Core Motion's usual 100 Hz and the Oxford Pixel's 400 Hz.
    public static let rates: [Double] = [100, 400]

    /// The benchmarks' names, in the order they run.
    public static var names: [String] { rates.map(name(rate:)) }

    static func name(rate: Double) -> String { "pedometer-detect-\(Int(rate))Hz" }

    /// Runs the benchmarks whose name contains `filter` (all when nil).
    public static func run(filter: String? = nil, rounds: Int = 5) -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        for rate in rates {
            let name = name(rate: rate)
            guard filter == nil || name.contains(filter!) else { continue }
            let (times, acc) = makeWalk(rate: rate)
            var best = Double.infinity
            var steps = 0
            for _ in 0..<max(1, rounds) {
                let start = threadCPUNanoseconds()
                let events = StepDetector.detect(times: times, accelerations: acc)
                let ns = threadCPUNanoseconds() - start
                steps = events.count
                best = min(best, ns / Double(times.count))
            }
            precondition(steps > 0, "benchmark walk produced no steps")
            var result = BenchmarkResult(name: name, nsPerOp: best)
            result.samplesPerSecond = 1e9 / best
            results.append(result)
        }
        return results
    }

    /// CPU time consumed by the calling thread, nanoseconds.
    static func threadCPUNanoseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
    }

    /// The synthetic walk described above.
    static func makeWalk(rate: Double) -> (times: [Double], accelerations: [Vector3]) {
        let down = Vector3(x: 0.3, y: -0.8, z: 0.5) * (1 / Vector3(x: 0.3, y: -0.8, z: 0.5).magnitude)
        let side = Vector3(x: 1, y: 0, z: 0)
        var times = [Double](repeating: 0, count: sampleCount)
        var acc = [Vector3](repeating: .zero, count: sampleCount)
        var noise: UInt64 = 0x1234_5678
        for i in 0..<sampleCount {
            let t = Double(i) / rate
            times[i] = t
            let cycle = t.truncatingRemainder(dividingBy: 40)
            var vertical = 0.0, lateral = 0.0
            if cycle < 30 {
                let phase = (t * 1.8).truncatingRemainder(dividingBy: 1)
                vertical = 0.35 * exp(-pow((phase - 0.2) / 0.12, 2)) - 0.1
                lateral = 0.1 * sin(Double.pi * t * 1.8)
            }
            noise = noise &* 6364136223846793005 &+ 1442695040888963407
            let n = (Double(noise >> 11) / Double(1 << 53) - 0.5) * 0.02
            acc[i] = down * (1 + vertical + n) + side * lateral
        }
        return (times, acc)
    }
}
