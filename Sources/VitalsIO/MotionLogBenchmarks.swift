import Foundation
import MotionAnalysis

/// Speed of the motion detectors in batch over generated device motion (`vitals bench`).
public enum MotionBenchmarks {
    /// Samples per batch: 65,536 samples (22 min at 50 Hz, 7 MB of device motion) so a batch stays
    /// in cache as streamed samples would; each round runs `batches` fresh batches.
    public static let sampleCount = 1 << 16
    /// Batches per round.
    public static let batches = 16

    /// The benchmarks' names, in the order they run.
    public static let names = [
        "motion-swingwatch", "motion-strokes", "motion-reps", "motion-impacts", "motion-pose-stability",
        "motion-attitude-filter", "motion-tremor",
    ]

    /// Every motion benchmark whose name contains `filter`; the fastest of `rounds` rounds.
    /// `samplesPerSecond` is set; `nsPerOp` is per sample.
    public static func run(filter: String? = nil, rounds: Int = 7) -> [BenchmarkResult] {
        let cases: [(String, ([DeviceMotion]) -> Int)] = [
            ("motion-swingwatch", { m in var d = SwingWatchDetector(); return d.process(m).count }),
            ("motion-strokes", { m in var d = StrokeDetector(); return d.process(m).count }),
            ("motion-reps", { m in var d = RepCounter(sampleRate: 50); return d.process(m).count }),
            ("motion-impacts", { m in var d = ImpactDetector(); return d.process(m).count }),
            ("motion-pose-stability", { m in var d = PoseStability(); return d.process(m).count }),
            ("motion-attitude-filter", { m in
                var f = AttitudeFilter()
                var n = 0
                for s in m {
                    let out = f.process(IMUSample(time: s.time, acceleration: s.totalAcceleration, rotationRate: s.rotationRate))
                    if out.gravity.z > 0 { n += 1 }
                }
                return n
            }),
            ("motion-tremor", { m in
                guard var d = try? TremorDetector(sampleRate: 50) else { return 0 }
                return d.process(m).count
            }),
        ]
        precondition(cases.map(\.0) == names, "MotionBenchmarks.names differs from the benchmarks run")
        let selected = cases.filter { filter == nil || $0.0.contains(filter!) }
        guard !selected.isEmpty else { return [] }
        let samples = makeSamples()
        return selected.map { name, body in
            var best = Double.infinity
            var sink = 0
            for _ in 0..<max(1, rounds) {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<batches { sink &+= body(samples) }
                let ns = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(batches)
                best = min(best, ns)
            }
            if sink == Int.min { print("") }  // keep the work observable
            var r = BenchmarkResult(name: name, nsPerOp: best / Double(samples.count))
            r.samplesPerSecond = Double(samples.count) / (best / 1e9)
            return r
        }
    }

    /// 50-Hz device motion with swings, reps-like tilts and quiet stretches (deterministic).
    static func makeSamples() -> [DeviceMotion] {
        (0..<sampleCount).map { k in
            let t = Double(k) / 50
            let phase = t.truncatingRemainder(dividingBy: 30)
            let tilt = phase < 15 ? 1.2 * max(0, sin(2 * .pi * t / 3)) : 0.02 * sin(t)
            let gravity = Vector3(x: sin(tilt), y: -cos(tilt), z: 0)
            let swing = phase > 20 ? 9 * max(0, sin(2 * .pi * t / 2.5)) : 0
            let rate = Vector3(x: 0.3 * sin(3 * t), y: swing, z: 0.2 * cos(2 * t))
            let user = Vector3(x: swing > 8 ? 2.5 : 0.05 * sin(7 * t), y: 0, z: 0)
            return DeviceMotion(time: t, attitude: .identity, gravity: gravity, rotationRate: rate, userAcceleration: user)
        }
    }
}
