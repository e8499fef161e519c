import Foundation
import Testing
import Vitals

/// The portable code of `GettingStarted.md` (PulseDetection.docc), as an app would write it, run on
/// generated inputs: an article whose calls no longer exist, or no longer give a heart rate, fails
/// here. (The camera snippets are Apple-only; `.ci/apple-typecheck.sh` checks the adapters.)
@Suite struct GettingStartedTests {
    /// A generated finger: 60 s at 68 bpm, the simulator's noise, drift and motion spikes.
    private static var finger: SimulatedFinger.Settings {
        var settings = SimulatedFinger.Settings()
        settings.bpm = 68
        return settings
    }

    @Test func aRecordingsBatchAnalysis() throws {
        var simulated = SimulatedFinger(settings: Self.finger)
        let samples: [ColorSample] = simulated.inputs(duration: 60).compactMap {
            if case .color(let c) = $0 { c } else { nil }
        }
        // As the article writes it:
        let analysis = PulseAnalysis.run(samples.map { .color($0) }, sampleRate: 30)
        let rate = try #require(analysis.heartRate)
        #expect(abs(rate.bpm - 68) <= 1 && rate.confidence > 0.5)
        #expect(analysis.beats.count >= 60)
        let rmssd = try #require(analysis.hrv?.measures.rmssd)
        #expect(rmssd.isFinite && rmssd >= 0)
        let part = try #require(analysis.hrv(from: 10, to: 50))
        #expect(part.measures.bpm > 60 && part.measures.bpm < 76)
    }

    @Test func aRecordingPlayedThroughTheMonitor() async throws {
        let ppgSamples: [(time: Double, value: Double)] = (0..<3000).map { i in
            let t = Double(i) / 100
            return (t, sin(2 * Double.pi * 1.25 * t) + 0.3 * sin(4 * Double.pi * 1.25 * t))  // 75 bpm
        }
        let monitor = HeartRateMonitor()
        let events = try await monitor.start(RecordingSource(ppg: ppgSamples, nominalRate: 100))
        var rates: [Double] = []
        for await event in events {
            if case .rate(let rate) = event { rates.append(rate.bpm) }
        }   // ends when the recording does
        #expect(!rates.isEmpty && rates.allSatisfy { abs($0 - 75) <= 1 })
    }

    @Test func aSimulatedFingerWithALiftOff() async throws {
        var settings = SimulatedFinger.Settings()
        settings.bpm = 68
        settings.liftOffs = [20..<23]                      // the finger leaves the lens for 3 s
        let monitor = HeartRateMonitor()
        let beats = Counter()
        await monitor.onBeat { _ in await beats.add() }   // a closure on the same events
        let events = try await monitor.start(SimulatedFingerSource(settings: settings, duration: 40))
        let truth = SimulatedFinger.beats(settings: settings, until: 40)
        var lost: [Double] = [], rates: [Double] = [], beatEvents = 0
        for await event in events {
            switch event {
            case .contactLost(let time): lost.append(time)
            case .rate(let rate): rates.append(rate.bpm)
            case .beat: beatEvents += 1
            default: break
            }
        }
        #expect(lost.count == 1 && abs(lost[0] - 20) <= 0.5)
        #expect(!rates.isEmpty && abs(rates.last! - 68) <= 2)
        #expect(truth.count >= 40 && beatEvents >= 25)
        #expect(await beats.count == beatEvents)
    }

    @Test func closuresStopTheMonitorFromTheRateHandler() async throws {
        let monitor = HeartRateMonitor()
        await monitor.onRate { rate in
            rate.confidence >= 0.7         // true = stop measuring
        }
        var settings = SimulatedFinger.Settings()
        settings.bpm = 80
        let events = try await monitor.start(SimulatedFingerSource(settings: settings, duration: 120))
        var rates: [RateEstimate] = []
        for await event in events {
            if case .rate(let rate) = event { rates.append(rate) }
        }
        // Stopped at the first confident rate, long before the 120 s ran out.
        #expect(rates.last.map { $0.confidence >= 0.7 && $0.time < 30 } == true)
        #expect(rates.dropLast().allSatisfy { $0.confidence < 0.7 })
    }

    @Test func aWaveformScaledForAView() {
        var scaler = WaveformScaler(capacity: 150)    // 5 s at 30 fps
        var simulated = SimulatedFinger(settings: Self.finger)
        var analyzer = PulseAnalyzer(sampleRate: 30)
        for input in simulated.inputs(duration: 10) {
            analyzer.process(input) { event in
                if case .waveform(let sample) = event { scaler.append(sample) }
            }
        }
        let viewHeight = 200.0
        let ys = scaler.points.map { (1 - $0) * viewHeight }
        #expect(!ys.isEmpty && ys.allSatisfy { (0...viewHeight).contains($0) })
    }

    @Test func aMovingWrist() throws {
        // A 90-bpm pulse under a stronger 150-steps-a-minute arm swing that the accelerometer sees.
        var tracker = try WristRateTracker(sampleRate: 125)
        var rates: [Double] = []
        for i in 0..<(125 * 60) {
            let t = Double(i) / 125
            let swing = sin(2 * Double.pi * 2.5 * t)
            let ppg = sin(2 * Double.pi * 1.5 * t) + 2 * swing
            for estimate in tracker.process(time: t, ppg: ppg, acceleration: SIMD3(swing, 0.3 * swing, 1)) {
                if let bpm = estimate.bpm { rates.append(bpm) }
            }
        }
        #expect(rates.count >= 20 && Statistics.median(rates) > 88 && Statistics.median(rates) < 92)
    }

    @Test func skinSeenByACamera() throws {
        var skin = try SkinPulseTracker(frameRate: 30, regions: 1)
        var windows: [WristRateTracker.Estimate] = []
        var random = SplitMix64(seed: 7)  // seeded: the same noise every run
        for i in 0..<(30 * 60) {   // a minute of a cheek at 66 bpm, its colour changing 0.3 % with the pulse
            let t = Double(i) / 30
            let pulse = 0.003 * sin(2 * Double.pi * 1.1 * t)
            let light = 1 + 0.01 * sin(2 * Double.pi * 0.1 * t) + 0.0005 * Double.random(in: -1...1, using: &random)
            windows += skin.process(time: t, colors: [SIMD3(170 * light * (1 + 0.3 * pulse), 120 * light * (1 + pulse),
                                                            100 * light * (1 + 0.5 * pulse))])
        }
        let bpm = try #require(RemotePulse.consensus(windows).bpm)   // nil: no rate the windows agree on
        #expect(abs(bpm - 66) <= 2)
    }
}

private actor Counter {
    var count = 0
    func add() { count += 1 }
}
