import Foundation
import Testing
import SignalProcessing
@testable import PulseDetection

@Suite struct WristRateTrackerTests {
    /// A running wrist, generated: a pulse rising from 100 to 150 bpm (with a second harmonic), an arm
    /// swing at `swingBPM` and the steps at twice it, in the PPG three times the pulse's size and in the
    /// accelerometer (with gravity on z), and sensor noise; 125 Hz.
    struct Run {
        var times: [Double] = []
        var ppg: [Double] = []
        var acceleration: [SIMD3<Double>] = []
        /// The pulse's rate at `t`, bpm.
        static func pulseBPM(at t: Double, duration: Double) -> Double { 100 + 50 * min(1, t / (0.8 * duration)) }
    }

    static func running(duration: Double = 120, swingBPM: Double = 80, seed: UInt64 = 1) -> Run {
        var rng = SplitMix64(seed: seed)
        var run = Run()
        let rate = 125.0
        var pulsePhase = 0.0
        for i in 0..<Int(duration * rate) {
            let t = Double(i) / rate
            pulsePhase += 2 * Double.pi * Run.pulseBPM(at: t, duration: duration) / 60 / rate
            let swing = 2 * Double.pi * swingBPM / 60 * t
            let pulse = sin(pulsePhase) + 0.4 * sin(2 * pulsePhase + 1)
            let motion = 3 * sin(swing) + 2 * sin(2 * swing + 0.5)
            run.times.append(t)
            run.ppg.append(pulse + motion + 0.3 * rng.gaussian())
            run.acceleration.append(SIMD3(0.8 * sin(swing + 0.3) + 0.05 * rng.gaussian(),
                                          0.6 * sin(2 * swing) + 0.05 * rng.gaussian(),
                                          1 + 0.3 * sin(2 * swing + 1) + 0.05 * rng.gaussian()))
        }
        return run
    }

    /// Fraction of `estimates` answered within `bpm` of the generated pulse over their window.
    static func within(_ bpm: Double, _ estimates: [WristRateTracker.Estimate], duration: Double) -> Double {
        let right = estimates.filter { e in
            e.bpm.map { abs($0 - Run.pulseBPM(at: (e.start + e.end) / 2, duration: duration)) <= bpm } ?? false
        }
        return Double(right.count) / Double(estimates.count)
    }

    @Test func theAccelerometerKeepsTheRateOffTheArmSwingAndTheSteps() throws {
        let run = Self.running()
        let estimates = try WristRateTracker.run(times: run.times, ppg: [run.ppg], acceleration: run.acceleration, sampleRate: 125)
        // 8-s windows every 2 s from 8 s to 120 s.
        #expect(estimates.count == 57)
        #expect(Self.within(3, estimates, duration: 120) >= 0.95)
        // The movement is seen where it is: the steps (160 bpm) or the arm swing (80).
        #expect(estimates.allSatisfy { m in m.motionBPM.map { abs($0 - 160) < 3 || abs($0 - 80) < 3 } ?? false })

        // Without the motion reference the same tracker follows the movement: the test can fail.
        var settings = WristRateTracker.Settings()
        settings.motionSuppression = 0
        let blind = try WristRateTracker.run(times: run.times, ppg: [run.ppg], acceleration: run.acceleration,
                                             sampleRate: 125, settings: settings)
        #expect(Self.within(3, blind, duration: 120) < 0.5)
    }

    @Test func twoPPGChannelsAndOneGiveTheSameRateForTheSameSignal() throws {
        let run = Self.running(duration: 40, seed: 2)
        let one = try WristRateTracker.run(times: run.times, ppg: [run.ppg], acceleration: run.acceleration, sampleRate: 125)
        let two = try WristRateTracker.run(times: run.times, ppg: [run.ppg, run.ppg], acceleration: run.acceleration, sampleRate: 125)
        #expect(one.map(\.bestGuessBPM) == two.map(\.bestGuessBPM))
    }

    @Test func sampleBySampleGivesExactlyTheBatchEstimates() throws {
        let run = Self.running(duration: 30, seed: 3)
        let batch = try WristRateTracker.run(times: run.times, ppg: [run.ppg], acceleration: run.acceleration, sampleRate: 125)
        var tracker = try WristRateTracker(sampleRate: 125)
        var live: [WristRateTracker.Estimate] = []
        for i in run.times.indices {
            for e in tracker.process(time: run.times[i], ppg: run.ppg[i], acceleration: run.acceleration[i]) {
                live.append(e)
                // Ready as soon as its window is: the window ends with this sample.
                #expect(abs(e.end - run.times[i] - 5 / 125.0) < 1e-9)
            }
        }
        #expect(live == batch)
        #expect(batch.map(\.start).first == 0)
        #expect(zip(batch, batch.dropFirst()).allSatisfy { abs($1.start - $0.start - 2) < 1e-9 })
    }

    @Test func aGapStartsTheTrackerAfresh() throws {
        var run = Self.running(duration: 40, seed: 4)
        // Samples from 20 s on come 5 s later.
        for i in run.times.indices where run.times[i] >= 20 { run.times[i] += 5 }
        let estimates = try WristRateTracker.run(times: run.times, ppg: [run.ppg], acceleration: run.acceleration, sampleRate: 125)
        // Before the gap, windows starting 0...12 s; after it, a full window again from 25 s.
        let starts = estimates.map { ($0.start * 1000).rounded() / 1000 }
        #expect(starts.filter { $0 < 20 } == [0, 2, 4, 6, 8, 10, 12])
        #expect(starts.filter { $0 >= 20 }.first == 25)
        #expect(estimates.allSatisfy { $0.start >= 25 || $0.end <= 20 + 1e-9 })
    }

    /// A channel count beyond ``WristRateTracker/maximumChannels`` is refused: Int.max trapped
    /// adding the motion channels, a billion tried to allocate 8 GB of windows. The same holds for
    /// a skin tracker's regions, which are its channels.
    @Test func tooManyChannelsAreRefused() throws {
        for n in [WristRateTracker.maximumChannels + 1, 1_000_000_000, Int.max] {
            #expect(throws: InvalidSettings.self) { try WristRateTracker(sampleRate: 25, channels: n) }
            #expect(throws: InvalidSettings.self) { try SkinPulseTracker(frameRate: 30, regions: n) }
        }
        _ = try WristRateTracker(sampleRate: 25, channels: WristRateTracker.maximumChannels)
        _ = try SkinPulseTracker(frameRate: 30, regions: WristRateTracker.maximumChannels)
    }

    @Test func unusableSettingsAreNamed() {
        #expect(throws: InvalidSettings.self) { try WristRateTracker(sampleRate: 5) }
        #expect(throws: InvalidSettings.self) { try WristRateTracker(sampleRate: 125, channels: 0) }
        var s = WristRateTracker.Settings()
        s.windowSeconds = 2
        #expect(throws: InvalidSettings.self) { try WristRateTracker(sampleRate: 125, settings: s) }
        s = WristRateTracker.Settings()
        s.hopSeconds = 10
        #expect(throws: InvalidSettings.self) { try WristRateTracker(sampleRate: 125, settings: s) }
        #expect(throws: InvalidSettings.self) {
            try WristRateTracker.run(times: [0, 1], ppg: [[0]], acceleration: [.zero, .zero], sampleRate: 125)
        }
        // Values that would hang (an unbounded transition table), trap (an Int from NaN or 1e300) or
        // allocate without bound are refused.
        for change in [{ (s: inout WristRateTracker.Settings) in s.reacquirePenalty = -.infinity },
                       { $0.driftBPMPerSqrtSecond = .infinity }, { $0.analysisRate = .nan }, { $0.refineBPM = 1e300 },
                       { $0.spectrumLength = Int.max }, { $0.motionSuppression = .nan }, { $0.maximumGap = 0 }] {
            var bad = WristRateTracker.Settings()
            change(&bad)
            #expect(throws: InvalidSettings.self) { try WristRateTracker(sampleRate: 125, settings: bad) }
        }
        // A huge drift is fine: the transition table stops at the range's width.
        var loose = WristRateTracker.Settings()
        loose.driftBPMPerSqrtSecond = 1e300
        #expect((try? WristRateTracker(sampleRate: 125, settings: loose)) != nil)
        let error = #expect(throws: InvalidSettings.self) { try WristRateTracker(sampleRate: 5) }
        #expect(error?.description.contains("5 Hz") == true)
    }

    @Test func samplesThatAreNotNumbersAreSkipped() throws {
        let clean = Self.running(seed: 5)
        let reference = try WristRateTracker.run(times: clean.times, ppg: [clean.ppg], acceleration: clean.acceleration, sampleRate: 125)
        var run = clean
        run.ppg[1000] = .nan
        run.acceleration[2000].y = .infinity
        var tracker = try WristRateTracker(sampleRate: 125)
        var estimates: [WristRateTracker.Estimate] = []
        for i in run.times.indices {
            estimates += tracker.process(time: run.times[i], ppg: run.ppg[i], acceleration: run.acceleration[i])
        }
        #expect(tracker.skippedSamples == 2)
        #expect(estimates.count == 57)
        #expect(estimates.allSatisfy { $0.bestGuessBPM.isFinite && $0.confidence.isFinite })
        // One sample less shifts the decimation by a sample (8 ms): the rates move by under a bpm but
        // in the odd window where two peaks are close (one window here, by 3 bpm).
        let moved = zip(estimates, reference).filter { abs($0.bestGuessBPM - $1.bestGuessBPM) >= 1 }
        #expect(moved.count <= 2)
        #expect(moved.allSatisfy { abs($0.bestGuessBPM - $1.bestGuessBPM) < 5 })
    }

    @Test func unevenSamplesArePutOnTheGridFromTheirTimes() throws {
        let run = Self.running(seed: 6)
        let full = try WristRateTracker.run(times: run.times, ppg: [run.ppg], acceleration: run.acceleration, sampleRate: 125)
        // Every tenth sample lost, and the rest jittered by up to 2 ms: the rate is measured from
        // the times, a hair off 125 Hz.
        var rng = SplitMix64(seed: 7)
        let kept = run.times.indices.filter { $0 % 10 != 9 }
        let times = kept.map { run.times[$0] + 0.002 * (rng.uniform() - 0.5) }
        let uneven = try WristRateTracker.run(times: times, ppg: [kept.map { run.ppg[$0] }],
                                              acceleration: kept.map { run.acceleration[$0] }, sampleRate: 124.99999)
        #expect(uneven.count == full.count)
        #expect(zip(uneven, full).allSatisfy { abs($0.bestGuessBPM - $1.bestGuessBPM) < 1.5 && abs($0.start - $1.start) < 0.01 })
        // Read as if evenly spaced, the same samples give a pulse 10 % fast: the grid matters.
        let naive = try WristRateTracker.run(times: kept.indices.map { Double($0) / 125 },
                                             ppg: [kept.map { run.ppg[$0] }], acceleration: kept.map { run.acceleration[$0] },
                                             sampleRate: 125)
        #expect(Self.within(3, naive, duration: 120) < 0.3)
    }

    @Test func aStillAccelerometerShowsNoMovement() throws {
        let run = Self.running(duration: 20, seed: 8)
        let still = [SIMD3<Double>](repeating: SIMD3(0, 0, 1), count: run.times.count)
        let estimates = try WristRateTracker.run(times: run.times, ppg: [run.ppg], acceleration: still, sampleRate: 125)
        #expect(!estimates.isEmpty)
        #expect(estimates.allSatisfy { $0.motionBPM == nil && $0.bpm != nil })
        // And a flat PPG is declined, with confidence 0.
        let flat = [Double](repeating: 3, count: run.times.count)
        let none = try WristRateTracker.run(times: run.times, ppg: [flat], acceleration: run.acceleration, sampleRate: 125)
        #expect(none.count == estimates.count)
        #expect(none.allSatisfy { $0.confidence == 0 && $0.bpm == nil && $0.declined == .flatSignal })
    }

    /// A signal whose own rate lies outside the range (a slow wave, a fast tremor) is declined, not
    /// pinned to the range's end; below the confidence floor a window is declined too.
    @Test func whatIsNotAPulseInRangeIsDeclined() throws {
        let times = (0..<(125 * 30)).map { Double($0) / 125 }
        let swing = times.map { SIMD3(sin(2 * Double.pi * 1.3 * $0), 0, 1) }
        for hz in [0.5, 250.0 / 60] {
            let wave = times.map { sin(2 * Double.pi * hz * $0) }
            let estimates = try WristRateTracker.run(times: times, ppg: [wave], acceleration: swing, sampleRate: 125)
            #expect(!estimates.isEmpty)
            #expect(estimates.allSatisfy { $0.bpm == nil && $0.declined == .outsideRange }, "\(hz) Hz")
        }
        let run = Self.running(duration: 40, seed: 9)
        var strict = WristRateTracker.Settings()
        strict.minimumConfidence = 1
        let declined = try WristRateTracker.run(times: run.times, ppg: [run.ppg], acceleration: run.acceleration,
                                                sampleRate: 125, settings: strict)
        #expect(!declined.isEmpty)
        #expect(declined.allSatisfy { $0.bpm == nil && $0.declined != nil && $0.bestGuessBPM.isFinite })
    }
}
