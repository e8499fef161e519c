import Testing
import TestSupport
import PulseDetection
@testable import VitalsIO

@Suite struct PulseStreamingMemoryTests {
    @Test func theLivePipelineHoldsNoMoreAfterThreeHoursThanAfterOne() {
        // The benchmark's synthetic PPG at 25 Hz, streamed a second at a time (the 24-hour, 100 Hz
        // run is `vitals bench --filter ppg-stream`, which checks resident memory).
        let rate = 25.0
        var generator = PulseBenchmarks.SyntheticPPG(rate: rate)
        var analyzer = PulseAnalyzer(sampleRate: rate)
        var chunk: [PulseInput] = []
        var beats = 0
        var held: [Int] = []
        for second in 1...(3 * 3600) {
            chunk.removeAll(keepingCapacity: true)
            for _ in 0..<Int(rate) { chunk.append(generator.next()) }
            analyzer.process(contentsOf: chunk) { if case .confirmedBeat = $0 { beats += 1 } }
            if second % 3600 == 0 { held.append(heldElements(analyzer)) }
        }
        #expect(beats > 3 * 3600)
        #expect(held.count == 3)
        #expect(held[0] > 500)  // the reflection reaches the buffers (block, windows)
        // Buffers are sized once: whatever the pipeline holds after an hour bounds it later.
        #expect(held.max()! <= held[0] + 64, "held elements every hour: \(held)")
    }
}
