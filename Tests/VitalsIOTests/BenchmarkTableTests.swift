import Testing
import VitalsIO

@Suite struct BenchmarkTableTests {
    /// Each time keeps its own unit: 58 ns per sample was printed as "0.1 us/op" and a motion
    /// detector's 12 ns as "0.0 us/op".
    @Test func timesKeepTheirUnit() {
        #expect(BenchmarkResult(name: "motion-reps", nsPerOp: 12.34).tableLine.hasSuffix("    12.3 ns/op"))
        #expect(BenchmarkResult(name: "frame-mean", nsPerOp: 32_812).tableLine.hasSuffix("    32.8 us/op"))
        #expect(BenchmarkResult(name: "face-detect", nsPerOp: 36_992_912).tableLine.hasSuffix("    37.0 ms/op"))
        #expect(BenchmarkResult(name: "x", nsPerOp: 1).tableLine.count == 36 + 8 + 6)
    }

    @Test func signalBenchmarksShowTheirRateAndMemory() {
        var batch = BenchmarkResult(name: "ppg-batch-1h-100hz", nsPerOp: 58.13)
        batch.samplesPerSecond = 17_202_177
        #expect(batch.tableLine == "ppg-batch-1h-100hz                      58.1 ns/op     17.2 M samples/s")
        batch.residentGrowthKiB = 136
        #expect(batch.tableLine.hasSuffix("17.2 M samples/s  resident memory +136 KiB"))
    }
}
