import Testing
import PulseDetection
@testable import VitalsIO

@Suite struct PulseStreamingMemoryTests {
    /// Elements a value holds, recursively, private stored properties included (through reflection):
    /// the element count of every collection inside it plus the capacity of its Double arrays.
    static func heldElements(_ value: Any) -> Int {
        let mirror = Mirror(reflecting: value)
        var total = 0
        if [.collection, .set, .dictionary].contains(mirror.displayStyle) { total += mirror.children.count }
        if let doubles = value as? [Double] { total += doubles.capacity }
        return mirror.children.reduce(total) { $0 + heldElements($1.value) }
    }

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
            if second % 3600 == 0 { held.append(Self.heldElements(analyzer)) }
        }
        #expect(beats > 3 * 3600)
        #expect(held.count == 3)
        #expect(held[0] > 500)  // the reflection reaches the buffers (block, windows)
        // Buffers are sized once: whatever the pipeline holds after an hour bounds it later.
        #expect(held.max()! <= held[0] + 64, "held elements every hour: \(held)")
    }
}
