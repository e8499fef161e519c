import Foundation
import SignalProcessing
import Testing
@testable import MotionAnalysis
import TestSupport

@Suite struct RepCounterTests {
    static let plan: [(reps: Int, period: Double)] = [(8, 3), (5, 4.5), (10, 2.5), (6, 6)]
    static let trace = Generate.reps(sets: plan, rest: 20, rate: 10)

    @Test func findsEverySetAndCountsItsRepsExactly() {
        var c = RepCounter(sampleRate: 10)
        let sets = c.process(Self.trace)
        #expect(sets.map(\.reps) == Self.plan.map(\.reps))
        for (s, p) in zip(sets, Self.plan) { #expect(abs(s.period - p.period) < 0.3) }
    }

    @Test(arguments: [2.5, 3.0, 4.0])
    func aMirroredMovementCountsTheSame(period: Double) {
        // 12 raised-cosine tilts of 60° with `period` between 20 s of rest, at 50 Hz, toward +x and
        // toward -x: the principal direction's sign flips, and with it whether peaks or troughs were
        // counted (a review: 12 reps at 3.0 s counted 11 mirrored).
        func trace(_ side: Double) -> [DeviceMotion] {
            (0..<Int((40 + 12 * period) * 50)).map { i in
                let t = Double(i) / 50
                let a = t >= 20 && t < 20 + 12 * period ? Double.pi / 3 * (1 - cos(2 * .pi * (t - 20) / period)) / 2 : 0
                return DeviceMotion(time: t, attitude: .identity, gravity: Vector3(x: side * sin(a), y: 0, z: -cos(a)),
                                    rotationRate: .zero, userAcceleration: .zero)
            }
        }
        var a = RepCounter(sampleRate: 50), b = RepCounter(sampleRate: 50)
        #expect(a.process(trace(1)).map(\.reps) == [12])
        #expect(b.process(trace(-1)).map(\.reps) == [12])
    }

    @Test func fiftyHertzInputCountsTheSameAfterBlockAveraging() {
        var c = RepCounter(sampleRate: 50)
        let sets = c.process(Generate.reps(sets: Self.plan, rest: 20, rate: 50))
        #expect(sets.map(\.reps) == Self.plan.map(\.reps))
    }

    @Test("a period at the upper end of periodRange (8.0 s) is found, not the lag below it", arguments: [7.0, 8.0])
    func periodAtTheTopOfTheRange(period: Double) {
        // 20 s still, six sinusoidal tilts of 0.9 rad with `period`, 20 s still, at 10 Hz with 0.01 noise.
        var rng = SplitMix64(seed: 5)
        var trace: [DeviceMotion] = []
        let active = 6 * period
        for i in 0..<Int((40 + active) * 10) {
            let t = Double(i) / 10
            let a = t >= 20 && t < 20 + active ? 0.9 * sin(2 * .pi * (t - 20) / period) : 0
            let n = { Double.random(in: -0.017...0.017, using: &rng) }
            let g = Vector3(x: sin(a) + n(), y: n(), z: -cos(a) + n())
            trace.append(DeviceMotion(time: t, attitude: .identity, gravity: g, rotationRate: .zero, userAcceleration: .zero))
        }
        var c = RepCounter(sampleRate: 10)
        let sets = c.process(trace)
        #expect(sets.count == 1)
        #expect(abs((sets.first?.period ?? 0) - period) < 0.05, "period \(sets.first?.period ?? 0) for \(period)")
    }

    @Test func standingStillIsNoSet() {
        var c = RepCounter(sampleRate: 10)
        #expect(c.process(Generate.reps(sets: [], rest: 120, rate: 10)).isEmpty)
    }

    @Test(arguments: [1, 7, 100, Int.max])
    func streamingInChunksEqualsBatch(chunk: Int) {
        var batch = RepCounter(sampleRate: 10)
        let all = batch.process(Self.trace)
        var streaming = RepCounter(sampleRate: 10)
        var got: [RepSet] = []
        var i = 0
        while i < Self.trace.count {
            let j = min(Self.trace.count, i + min(chunk, Self.trace.count))
            for m in Self.trace[i..<j] { if let s = streaming.process(m) { got.append(s) } }
            i = j
        }
        if let s = streaming.finish() { got.append(s) }
        #expect(got == all)
    }
}

@Suite struct PoseStabilityTests {
    static func trace(fall: Bool) -> [DeviceMotion] {
        var rng = SplitMix64(seed: 9)
        var out: [DeviceMotion] = []
        for k in 0..<800 {
            let t = Double(k) / 50
            var g = Vector3(x: 0.02 * sin(3 * t) + Double.random(in: -0.005...0.005, using: &rng), y: 0, z: -1)
            if t >= 6 {  // after 6 s of holding: tip over (fast) or shift a little (slow)
                let angle = fall ? min(1.5, (t - 6) * 5) : min(0.4, (t - 6) * 0.2)
                g = Vector3(x: sin(angle), y: 0, z: -cos(angle))
            }
            out.append(DeviceMotion(time: t, attitude: .identity, gravity: g, rotationRate: .zero, userAcceleration: .zero))
        }
        return out
    }

    @Test func aHoldThatTipsOverEndsInAFall() {
        var s = PoseStability()
        let holds = s.process(Self.trace(fall: true))
        #expect(holds.count >= 1)
        #expect(abs(holds[0].start) < 1e-9 && abs(holds[0].end - 6) < 0.1)
        #expect(holds[0].endedInFall)
        #expect(holds[0].swayDegrees < 2)
    }

    @Test func aSlowShiftIsNotAFall() {
        var s = PoseStability()
        let holds = s.process(Self.trace(fall: false))
        #expect(!holds.isEmpty && !holds[0].endedInFall)
    }

    static func motion(_ t: Double, degrees: Double) -> DeviceMotion {
        let a = degrees * .pi / 180
        return DeviceMotion(time: t, attitude: .identity, gravity: Vector3(x: sin(a), y: 0, z: -cos(a)),
                            rotationRate: .zero, userAcceleration: .zero)
    }

    /// Still (0°) every 0.1 s up to 4.9 s, no samples until 8.0 s, then `samples` samples 0.1 s
    /// apart at `degrees`.
    static func stillThenGap(thenDegrees degrees: Double, samples: Int) -> [DeviceMotion] {
        stride(from: 0, through: 49, by: 1).map { motion(Double($0) * 0.1, degrees: 0) }
            + (0..<samples).map { motion(8 + Double($0) * 0.1, degrees: degrees) }
    }

    @Test("a tilt first seen after a data gap longer than fallTime is not a fall")
    func aTiltAcrossAGapIsNotAFall() {
        // Still until 4.9 s, no samples until 8.0 s, then 60° (the review's hold_gap.csv).
        let trace = Self.stillThenGap(thenDegrees: 60, samples: 16)
        var s = PoseStability()
        let holds = s.process(trace)
        #expect(holds.count == 1)
        #expect(abs(holds[0].start) < 1e-9 && abs(holds[0].end - 4.9) < 1e-9)
        #expect(!holds[0].endedInFall)
        // The same tilt without the gap is a fall.
        var fall = PoseStability()
        let fell = fall.process(trace.enumerated().map { Self.motion(Double($0.offset) * 0.1, degrees: $0.offset < 50 ? 0 : 60) })
        #expect(fell.first?.endedInFall == true)
    }

    @Test("a gap longer than maximumInterval ends the hold at its last sample, even when the pose is the same after it")
    func aGapEndsTheHold() {
        let trace = Self.stillThenGap(thenDegrees: 1, samples: 41)
        var s = PoseStability()
        let holds = s.process(trace)
        #expect(holds.count == 2)
        #expect(holds.map(\.start) == [0, 8])
        #expect(abs(holds[0].end - 4.9) < 1e-9 && abs(holds[1].end - 12) < 1e-9)
        #expect(holds.allSatisfy { !$0.endedInFall })
    }
}

@Suite struct ImpactTests {
    @Test func eachSpikeIsOneImpactWithItsPeak() {
        let peaks: [(Double, Double)] = [(1, 3), (1.1, 0), (2, 6), (3, 1.2)]
        var d = ImpactDetector()
        var out: [ImpactEvent] = []
        for k in 0..<400 {
            let t = Double(k) / 100
            var a = 0.1
            for (c, p) in peaks { a += p * Generate.pulse(t, centre: c, width: 0.06) }
            if let e = d.process(time: t, userAcceleration: a) { out.append(e) }
        }
        #expect(out.count == 2)
        #expect(abs(out[0].time - 1) < 0.011 && abs(out[0].peak - 3.1) < 0.05)
        #expect(abs(out[1].time - 2) < 0.011 && abs(out[1].peak - 6.1) < 0.05)
    }
}

@Suite struct WorkoutSessionTests {
    @Test func activeTimeExcludesPausesAndEventsFlowOnlyWhileRunning() throws {
        var w = WorkoutSession(sampleRate: 100)
        let trace = Generate.swings([(2, -9, 0.5), (6, -9, 0.5), (10, 9, 0.5)], rate: 100, seconds: 12)
        #expect(try w.start(at: 0) == .started(time: 0))
        var swings = 0
        for m in trace {
            if m.time == 4 { _ = try w.pause(at: 4) }
            if m.time == 8 { _ = try w.resume(at: 8) }
            for e in w.process(m) { if case .swing = e { swings += 1 } }
        }
        _ = try w.stop(at: 12)
        #expect(swings == 2)  // the one at 6 s fell in the pause
        #expect(abs(w.activeTime - 8) < 0.02)
        #expect(w.segments.count == 2)
        #expect(throws: WorkoutSession.TransitionError.self) { _ = try w.resume(at: 13) }
    }

    /// Times that are not numbers, or run backwards, leave the active time a number of seconds ≥ 0
    /// (a NaN start made it NaN; a sample stamped before the start made a segment negative).
    @Test func badTimesDoNotSpoilTheActiveTime() throws {
        for bad in [Double.nan, .infinity, -.infinity] {
            var w = WorkoutSession(sampleRate: 100)
            #expect { _ = try w.start(at: bad) } throws: { ($0 as? WorkoutSession.TransitionError)?.code == "invalidTime" }
            #expect(w.state == .idle)
            _ = try w.start(at: 10)
            for (i, m) in Generate.swings([], rate: 100, seconds: 2).enumerated() {
                var sample = m
                sample.time = i == 50 ? bad : 10 + m.time
                _ = w.process(sample)
            }
            var early = Generate.swings([], rate: 100, seconds: 1)[0]
            early.time = 3
            _ = w.process(early)
            #expect(abs(w.activeTime - 1.99) < 1e-9)
            #expect { _ = try w.pause(at: bad) } throws: { ($0 as? WorkoutSession.TransitionError)?.code == "invalidTime" }
            #expect { _ = try w.pause(at: 5) } throws: { ($0 as? WorkoutSession.TransitionError)?.code == "invalidTime" }
            #expect(w.state == .running)
            _ = try w.stop(at: 12)
            #expect(abs(w.activeTime - 2) < 1e-9)
        }
    }
}

/// A sample rate or parameters the rep counter cannot work with stop it with a message naming them
/// (NaN, infinite or 1e300-Hz rates trapped converting to Int without one; an hour-long activity
/// window past the longest set asked for a ring of its samples). Values reach the exit test's
/// process as text: JSON has no NaN or infinity.
@Suite struct RepCounterPreconditionTests {
    @Test(arguments: ["nan", "inf", "1e300", "0", "-50", "20000"])
    func aSampleRateOutsideItsRangeIsNamed(rate: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [rate] in
            _ = RepCounter(sampleRate: Double(rate)!)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("RepCounter: sample rate must be") == true)
    }

    @Test(arguments: [("analysisRate", "0"), ("maximumSet", "1e9"), ("activityWindow", "nan"), ("smoothing", "inf"),
                      ("minimumDistance", "1e300")])
    func aParameterOutsideItsRangeIsNamed(name: String, value: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [name, value] in
            var p = RepCounter.Parameters()
            let v = Double(value)!
            switch name {
            case "analysisRate": p.analysisRate = v
            case "maximumSet": p.maximumSet = v
            case "activityWindow": p.activityWindow = v
            case "smoothing": p.smoothing = v
            default: p.minimumDistance = v
            }
            _ = RepCounter.count(time: [], gravity: [], sampleRate: 50, parameters: p)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("RepCounter.count: \(name) must be") == true)
    }

    @Test func aWorkoutSessionTakesTheCountersPreconditions() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = WorkoutSession(sampleRate: .infinity)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("RepCounter: sample rate must be") == true)
    }
}
