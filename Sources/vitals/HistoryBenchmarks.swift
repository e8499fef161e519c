import Foundation
import MotionAnalysis
import VitalsIO
import VitalsStore

/// Speed of the accelerometer history on this machine's disk: an hour of 50-Hz samples appended a
/// second at a time (as an app that records live would), then read back whole. Nanoseconds per sample
/// of wall time (the work is file I/O: the kernel's time is the cost), fastest round.
enum HistoryBenchmarks {
    static let names = ["accelerometer-history-append", "accelerometer-history-read"]
    static let rate = 50.0
    static let seconds = 3600

    static func run(filter: String?, rounds: Int) throws -> [BenchmarkResult] {
        guard names.contains(where: { filter == nil || $0.contains(filter!) }) else { return [] }
        let count = Int(rate) * seconds
        let samples = (0..<count).map { i in
            let t = Double(i) / rate
            return AccelerometerSample(time: 1.8e9 + t, acceleration: Vector3(x: 0.1 * sin(t), y: 0.2 * cos(t), z: -1))
        }
        var append = Double.infinity, read = Double.infinity
        for _ in 0..<max(1, rounds) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-bench-history-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let history = try AccelerometerHistory(folder: folder)
            var start = DispatchTime.now().uptimeNanoseconds
            for second in stride(from: 0, to: count, by: Int(rate)) {
                try history.append(samples[second..<min(count, second + Int(rate))])
            }
            append = min(append, Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count))
            start = DispatchTime.now().uptimeNanoseconds
            var n = 0
            try history.read(from: -.infinity, through: .infinity) { n += $0.count }
            read = min(read, Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count))
            guard n == count else { throw CLIError("the history benchmark read \(n) of \(count) samples back") }
        }
        return zip(names, [append, read]).filter { filter == nil || $0.0.contains(filter!) }.map { name, ns in
            var r = BenchmarkResult(name: name, nsPerOp: ns)
            r.samplesPerSecond = 1e9 / ns
            return r
        }
    }
}
