import Foundation
import SignalProcessing
import Testing
@testable import MotionAnalysis
import TestSupport

@Suite struct SwingWatchTests {
    static let trace = Generate.swings([(2, -9, 0.5), (5, -9, 0.5), (8, 9, 0.5), (11, 9, 0.5), (14, -3, 0.5)],
                                       rate: 50, seconds: 17)

    @Test func publishedDefaults() {
        let p = SwingWatchDetector.Parameters()
        #expect(p.sampleRate == 50 && p.bufferCount == 50)
        #expect(p.angleThreshold == 1.95 && p.rateThreshold == 5.5 && p.settleThreshold == 0.275)
    }

    @Test func countsOneSwingPerGeneratedSwingAndNotTheReturn() {
        var d = SwingWatchDetector()
        let events = d.process(Self.trace)
        #expect(events.map(\.kind) == [.forehand, .forehand, .backhand, .backhand])  // the slow one is below 5.5 rad/s
        for (e, t) in zip(events, [2.0, 5, 8, 11]) { #expect(abs(e.time - t) < 0.5) }
    }

    @Test func theLeftWristSwapsForehandAndBackhand() {
        var d = SwingWatchDetector(wrist: .left)
        #expect(d.process(Self.trace).map(\.kind) == [.backhand, .backhand, .forehand, .forehand])
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func matchesTheDirectTranscriptionSwingForSwing(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var swings: [(time: Double, peak: Double, width: Double)] = []
        var t = 1.0
        while t < 110 {
            swings.append((t, Double.random(in: -12...12, using: &rng), Double.random(in: 0.3...0.9, using: &rng)))
            t += Double.random(in: 0.4...3, using: &rng)
        }
        let trace = Generate.swings(swings, rate: 50, seconds: 120, noise: 0.3, seed: seed)
        for wrist in Wrist.allCases {
            var fast = SwingWatchDetector(wrist: wrist)
            var slow = SwingWatchTranscription(wrist: wrist)
            let a = fast.process(trace)
            let b = trace.compactMap { slow.process(time: $0.time, gravity: $0.gravity, rotationRate: $0.rotationRate) }
            #expect(a.count > 10)
            #expect(a.count == b.count)
            for (x, y) in zip(a, b) {
                #expect(x.time == y.time && x.kind == y.kind && x.peakRate == y.peakRate)
                #expect(abs(x.angle - y.angle) < 1e-9)
            }
        }
    }

    @Test(arguments: [1, 7, 100, Int.max])
    func streamingInChunksEqualsBatch(chunk: Int) {
        var batch = SwingWatchDetector()
        let all = batch.process(Self.trace)
        var streaming = SwingWatchDetector()
        var got: [SwingEvent] = []
        var i = 0
        while i < Self.trace.count {
            let j = min(Self.trace.count, i + min(chunk, Self.trace.count))
            got += streaming.process(Self.trace[i..<j])
            i = j
        }
        #expect(got == all)
    }
}

@Suite struct StrokeDetectorTests {
    @Test func oneEventPerStrokeWithKindFromTheSweepAcrossTheWrist() {
        let trace = Generate.swings([(2, -9, 0.5), (5, 9, 0.5), (8, -9, 0.5), (11, 9, 0.5)], rate: 100, seconds: 14)
        var d = StrokeDetector()
        let events = d.process(trace)
        #expect(events.map(\.kind) == [.forehand, .backhand, .forehand, .backhand])
        for (e, t) in zip(events, [2.0, 5, 8, 11]) { #expect(abs(e.time - t) < 0.1) }
        var left = StrokeDetector(wrist: .left)
        #expect(left.process(trace).map(\.kind) == [.backhand, .forehand, .backhand, .forehand])
    }

    @Test func aStrokeCutShortByAGapOrTheEndOfTheLogIsStillDecided() {
        // Strokes at 2 and 5 s; the samples between 2.6 and 3.4 s are missing (a gap over the
        // restart interval, within the first stroke's window), and the log ends 0.6 s after the second.
        let trace = Generate.swings([(2, -9, 0.5), (5, 9, 0.5)], rate: 100, seconds: 5.6)
            .filter { $0.time < 2.6 || $0.time > 3.4 }
        #expect(SwingAnalysis.run(trace, mode: .strokes, wrist: .right, sampleRate: 100).map(\.kind)
                == [.forehand, .backhand])  // both were dropped
        // Streaming: the first comes with the first sample after the gap, the second from finish().
        var live = StrokeDetector()
        var times: [Double] = []
        for m in trace where live.process(m) != nil { times.append(m.time) }
        #expect(times.count == 1 && times[0] > 3.4 && times[0] < 3.42)
        #expect(live.finish()?.kind == .backhand)
        #expect(live.finish() == nil)
    }

    @Test func theKindDoesNotDependOnTheGravityEstimate() {
        // Gravity reported 90° off (as an attitude filter can be after the gyroscope clips).
        let strokes: [(time: Double, peak: Double, width: Double)] = [(2, -9, 0.5), (5, 9, 0.5)]
        let right = Generate.swings(strokes, rate: 100, seconds: 8)
        let wrong = Generate.swings(strokes, rate: 100, seconds: 8, reportedGravity: Vector3(x: 1, y: 0, z: 0))
        var a = StrokeDetector(), b = StrokeDetector()
        #expect(a.process(right).map(\.kind) == [.forehand, .backhand])
        #expect(b.process(wrong).map(\.kind) == [.forehand, .backhand])
    }

    @Test func aFastBackswingBeforeTheForwardSwingDoesNotAnchorTheStroke() {
        // Backswing at 6 rad/s (over the trigger) 0.65 s before a 9-rad/s forward swing the other way.
        let trace = Generate.swings([(2, 6, 0.4), (2.65, -9, 0.4)], rate: 100, seconds: 5)
        var d = StrokeDetector()
        let events = d.process(trace)
        #expect(events.map(\.kind) == [.forehand])
        #expect(abs((events.first?.time ?? 0) - 2.65) < 0.05)
    }

    @Test func aLongFastRotationIsAServe() {
        let trace = Generate.swings([(3, -7, 1.4)], rate: 100, seconds: 6)
        var d = StrokeDetector()
        #expect(d.process(trace).map(\.kind) == [.serve])
    }

    @Test func aServesBuildUpMustBeObservedNotBridgedByADataGap() {
        // A long forehand-direction rotation (|ω| ≥ 4 rad/s for 0.66 s, 0.33 s of it before the peak) is a
        // serve; with the samples from 0.3 s to 0.02 s before the peak lost, only 0.04 s of build-up
        // is seen, so the sweep across the wrist decides (forehand).
        let whole = Generate.swings([(3, -9, 1.2)], rate: 100, seconds: 6)
        var a = StrokeDetector()
        #expect(a.process(whole).map(\.kind) == [.serve])
        let gapped = whole.filter { !($0.time > 2.7 && $0.time < 2.98) }
        var b = StrokeDetector()
        #expect(b.process(gapped).map(\.kind) == [.forehand])
    }

    @Test func aDataGapAddsNoRotation() {
        // A short flick (about 1 rad in all) is no stroke, also when a 0.45-s gap ends at its peak:
        // the first sample after the gap must not be credited with the missing time.
        let flick = Generate.swings([(3, -7, 0.25)], rate: 100, seconds: 6)
        var a = StrokeDetector()
        #expect(a.process(flick).isEmpty)
        let gapped = flick.filter { !($0.time > 2.55 && $0.time < 2.995) }
        var b = StrokeDetector()
        #expect(b.process(gapped).isEmpty)
    }

    @Test("SwingAnalysis.run passes its maximumInterval to the stroke detector, as to SwingWatch")
    func swingAnalysisPassesMaximumIntervalToStrokes() {
        // A long, fast forehand: with a short gap in its window it still turns enough to count.
        let trace = Generate.swings([(2, -14, 0.8)], rate: 100, seconds: 5)
        var differs = false
        for gapStart in [1.7, 1.75, 2.2, 2.3, 2.35, 2.4] {
            // A 0.25-s gap: over a 0.2-s maximum interval, under the default 0.5 s.
            let gapped = trace.filter { !($0.time > gapStart && $0.time < gapStart + 0.25) }
            var p = StrokeDetector.Parameters()
            p.maximumInterval = 0.2
            var direct = StrokeDetector(parameters: p)
            let expected = direct.process(gapped)
            let got = SwingAnalysis.run(gapped, mode: .strokes, wrist: .right, sampleRate: 100, maximumInterval: 0.2)
            #expect(got == expected)
            let byDefault = SwingAnalysis.run(gapped, mode: .strokes, wrist: .right, sampleRate: 100)
            var plain = StrokeDetector()
            #expect(byDefault == plain.process(gapped))
            if got != byDefault { differs = true }
        }
        #expect(differs, "no gap placement tells the two intervals apart: the test would not see the parameter")
    }

    @Test func aRejectedCandidateDoesNotBlockTheStrokeAfterIt() {
        // A fast gesture without a stroke's acceleration at 2 s, then a forehand at 3.2 s (inside the
        // 1.3-s refractory time a stroke at 2 s would start; blocked, it would be anchored at 3.3 s).
        let gesture = Generate.swings([(2, 8, 0.5)], rate: 100, seconds: 6, accelerationPeak: 0.5)
        let stroke = Generate.swings([(3.2, -9, 0.5)], rate: 100, seconds: 6, seed: 2)
        let trace = zip(gesture, stroke).map { g, s in
            DeviceMotion(time: g.time, attitude: g.attitude, gravity: g.gravity, rotationRate: g.rotationRate + s.rotationRate,
                         userAcceleration: g.userAcceleration + s.userAcceleration)
        }
        var d = StrokeDetector()
        let events = d.process(trace)
        #expect(events.map(\.kind) == [.forehand])
        #expect(abs((events.first?.time ?? 0) - 3.2) < 0.05)
    }

    @Test func gentleArmMovementIsNotAStroke() {
        // Fast rotation without the acceleration of a stroke.
        let trace = Generate.swings([(2, -8, 0.5), (5, 8, 0.5)], rate: 100, seconds: 8, accelerationPeak: 0.8)
        var d = StrokeDetector()
        #expect(d.process(trace).isEmpty)
    }

    @Test(arguments: [1, 7, 100, Int.max])
    func streamingInChunksEqualsBatch(chunk: Int) {
        let trace = Generate.swings([(2, -9, 0.5), (5, 9, 0.5), (8, -7, 1.4)], rate: 100, seconds: 11)
        var batch = StrokeDetector()
        let all = batch.process(trace)
        var streaming = StrokeDetector()
        var got: [SwingEvent] = []
        var i = 0
        while i < trace.count {
            let j = min(trace.count, i + min(chunk, trace.count))
            got += streaming.process(trace[i..<j])
            i = j
        }
        #expect(got == all && all.count == 3)
    }

    @Test func headSpeedIsRateTimesLever() {
        let e = SwingEvent(time: 0, kind: .forehand, angle: 2, peakRate: -10)
        #expect(abs(e.headSpeed(leverLength: 0.7) - 7) < 1e-12)
        let v = SwingSpeed.headSpeed(rotationRate: Vector3(x: 0, y: 0, z: 10), gravity: Vector3(x: 0, y: 0, z: -1),
                                     armLength: 0.6, racketLength: 0.7)
        #expect(abs(v - 13) < 1e-12)
    }
}

/// Rates and spans the swing detectors cannot size their buffers for stop them with a message
/// naming the value (NaN, infinite and 1e300 Hz trapped converting to Int without one). Values
/// reach the exit test's process as text: JSON has no NaN or infinity.
@Suite struct SwingDetectorPreconditionTests {
    @Test(arguments: ["nan", "inf", "1e300", "0", "20000"])
    func aSwingWatchRateOutsideItsRangeIsNamed(rate: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [rate] in
            _ = SwingWatchDetector(parameters: .init(sampleRate: Double(rate)!))
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("SwingWatchDetector: sampleRate must be") == true)
    }

    @Test(arguments: ["nan", "inf", "1e300", "-1"])
    func aStrokeWindowOutsideItsRangeIsNamed(window: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [window] in
            var p = StrokeDetector.Parameters()
            p.window = Double(window)!
            _ = StrokeDetector(parameters: p)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("StrokeDetector: window must be") == true)
    }

    @Test(arguments: ["nan", "inf", "1e300"])
    func anAnalysisRateOutsideItsRangeIsNamed(rate: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [rate] in
            _ = SwingAnalysis.run([], mode: .swingwatch, wrist: .right, sampleRate: Double(rate)!)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("SwingAnalysis: sampleRate must be") == true)
    }
}
