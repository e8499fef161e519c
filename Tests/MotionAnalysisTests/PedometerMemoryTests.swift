import Testing
@testable import MotionAnalysis

@Suite struct PedometerMemoryTests {
    /// Elements a value holds, recursively, private stored properties included (through reflection):
    /// the element count of every collection inside it plus the capacity of its Double arrays.
    static func heldElements(_ value: Any) -> Int {
        let mirror = Mirror(reflecting: value)
        var total = 0
        if [.collection, .set, .dictionary].contains(mirror.displayStyle) { total += mirror.children.count }
        if let doubles = value as? [Double] { total += doubles.capacity }
        return mirror.children.reduce(total) { $0 + heldElements($1.value) }
    }

    @Test func theStepDetectorHoldsNoMoreAfterAnHourThanAfterTenMinutes() {
        // An hour of walks, stops and U-turn-like slow stretches, at 100 Hz.
        var segments: [WalkSimulator.Segment] = []
        for k in 0..<50 {
            segments.append(.walk(steps: 60 + k % 7, interval: 0.5 + 0.02 * Double(k % 5), amplitude: 0.3))
            segments.append(.stand(seconds: 20 + Double(k % 3) * 15))
            segments.append(.walk(steps: 8, interval: 0.75, amplitude: 0.12))
        }
        let walk = WalkSimulator().make(segments)
        #expect(walk.samples.last!.time > 3600)
        var detector = StepDetector()
        var steps = 0
        var held: [Int] = []
        var nextCheck = 600.0
        for s in walk.samples {
            steps += detector.process(s).filter { $0.kind == .step }.count
            if s.time >= nextCheck {
                held.append(Self.heldElements(detector))
                nextCheck += 600
            }
        }
        #expect(steps > 2000)
        #expect(held.count == 6)
        // Buffers are sized once; whatever the detector holds after 10 minutes bounds it after an hour.
        #expect(held.max()! <= held[0] + 64, "held elements every 10 minutes: \(held)")
        #expect(held[0] > 100)  // the reflection reaches the buffers (history, candidates)
    }
}
