import Testing
import TestSupport
@testable import MotionAnalysis

@Suite struct PedometerMemoryTests {
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
                held.append(heldElements(detector))
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

@Suite struct PedometerHistoryTests {
    @Test func aRangeQueryCountsOnlyItsStepsDistanceAndActiveTime() {
        var history = PedometerHistory()
        history.record(PedometerEvent(kind: .resume, time: 10, reportedAt: 11), step: nil)
        for k in 0..<20 {  // 20 steps of 0.7 m at 2 steps/s from 10 s
            let t = 10 + Double(k) * 0.5
            history.record(PedometerEvent(kind: .step, time: t, reportedAt: t + 0.2),
                           step: StepRecord(time: t, length: 0.7, cadence: 2))
        }
        history.record(PedometerEvent(kind: .pause, time: 19.5, reportedAt: 21), step: nil)
        let all = history.data(from: 0, to: 100)
        #expect(all.numberOfSteps == 20)
        #expect(abs(all.distance - 14) < 1e-9)
        #expect(abs(all.activeTime - 9.5) < 1e-9)
        #expect(abs(all.averageCadence - 2) < 1e-9)
        // The second half only: steps at 15...19.5 s, active from 15 s to the pause.
        let half = history.data(from: 15, to: 100)
        #expect(half.numberOfSteps == 10)
        #expect(abs(half.distance - 7) < 1e-9)
        #expect(abs(half.activeTime - 4.5) < 1e-9)
        #expect(history.data(from: 30, to: 40).numberOfSteps == 0)
    }

    @Test("a history fed from a live pedometer keeps every step at its own time with its own length, even when one sample reveals several steps")
    func liveHistoryKeepsEachStepsOwnTime() {
        let sim = WalkSimulator(seed: 23)
        let (samples, _) = sim.make([.stand(seconds: 3), .walk(steps: 40, interval: 0.5, amplitude: 0.35), .stand(seconds: 4)])
        var pedometer = Pedometer()
        var history = PedometerHistory()
        var stepTimes: [Double] = []
        var largestBatch = 0
        for s in samples {
            let events = pedometer.process(s)
            let steps = events.filter { $0.kind == .step }
            #expect(pedometer.stepRecords.count == steps.count)
            largestBatch = max(largestBatch, steps.count)
            stepTimes += steps.map(\.time)
            history.record(events, steps: pedometer.stepRecords)
        }
        let last = pedometer.finish()
        stepTimes += last.filter { $0.kind == .step }.map(\.time)
        history.record(last, steps: pedometer.stepRecords)
        #expect(largestBatch >= 4)  // the back-dated start of the walk arrives in one call
        #expect(history.steps.map(\.time) == stepTimes)
        #expect(Set(stepTimes).count == stepTimes.count)
        let all = history.data(from: -1, to: 100)
        #expect(all.numberOfSteps == pedometer.data.numberOfSteps)
        #expect(abs(all.distance - pedometer.data.distance) < 1e-9)
    }

    @Test("a step recorded with a record of another time is kept at the event's time")
    func aStepIsKeptAtItsEventsTime() {
        var history = PedometerHistory()
        history.record(PedometerEvent(kind: .step, time: 3, reportedAt: 4), step: StepRecord(time: 9, length: 0.7, cadence: 2))
        #expect(history.steps == [StepRecord(time: 3, length: 0.7, cadence: 2)])
    }
}
