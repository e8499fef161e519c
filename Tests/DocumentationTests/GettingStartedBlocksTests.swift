import Foundation
import Testing
import Vitals

/// The portable code blocks of PulseDetection's `GettingStarted` article, each as the article writes
/// it (the check at the end holds them to it line for line), on generated inputs. The article's
/// `print` lines are caught by a local `print`, so what they would show is checked too. The camera
/// blocks are Apple-only: they stand in `.ci/apple-snippets/Snippets.swift`, which `.ci/apple-typecheck.sh`
/// compiles against stand-ins for Apple's frameworks.
@Suite struct GettingStartedBlocksTests {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private static let article = repository.appendingPathComponent("Sources/PulseDetection/PulseDetection.docc/GettingStarted.md")

    @Test func drawingTheWaveform() throws {
        var simulated = SimulatedFinger(settings: .init())
        var analyzer = PulseAnalyzer(sampleRate: 30)
        var waveform: [WaveformSample] = []
        for input in simulated.inputs(duration: 10) {
            analyzer.process(input) { if case .waveform(let w) = $0 { waveform.append(w) } }
        }
        let sample = try #require(waveform.last)
        let viewHeight = 200.0

        var scaler = WaveformScaler(capacity: 150)    // 5 s at 30 fps
        scaler.append(sample)
        let ys = scaler.points.map { (1 - $0) * viewHeight }

        #expect(ys.count == 1 && (0...viewHeight).contains(ys[0]))
    }

    @Test func aRecordingsBatchAnalysis() throws {
        var printed: [String] = []
        func print(_ line: String) { printed.append(line) }
        func loadColourMeans() -> [ColorSample] {   // 6 min 40 s of a generated finger at 68 bpm
            var settings = SimulatedFinger.Settings()
            settings.bpm = 68
            var finger = SimulatedFinger(settings: settings)
            return finger.inputs(duration: 400).compactMap { if case .color(let c) = $0 { c } else { nil } }
        }

        let samples: [ColorSample] = loadColourMeans()       // time in seconds, mean R, G, B (0...255)
        let analysis = PulseAnalysis.run(samples.map { .color($0) }, sampleRate: 30)
        if let rate = analysis.heartRate {
            print("heart rate \(rate.bpm) bpm, confidence \(rate.confidence)")
        }
        print("\(analysis.beats.count) beats; RMSSD \(analysis.hrv?.measures.rmssd ?? .nan) ms")
        // HRV over the 5 minutes from 60 s; beats whose shape is unlike the typical beat (hasDoubtfulShape)
        // and intervals the ectopic/artefact rules reject are kept out, and reported in `rejected`.
        let fiveMinutes = analysis.hrv(from: 60, to: 360)

        let rate = try #require(analysis.heartRate)
        #expect(abs(rate.bpm - 68) <= 1 && printed.count == 2 && printed[0].hasPrefix("heart rate 6"))
        #expect(analysis.beats.count >= 400 && !printed[1].contains("nan"))
        let part = try #require(fiveMinutes)
        #expect(abs(part.measures.bpm - 68) <= 2 && part.intervals.count >= 300)
    }

    @Test func aRecordingPlayedThroughTheMonitor() async throws {
        var rates: [Double] = []
        func print(_ time: Double, _ bpm: Double) { rates.append(bpm) }
        let ppgSamples: [(time: Double, value: Double)] = (0..<3000).map { i in
            let t = Double(i) / 100
            return (t, sin(2 * Double.pi * 1.25 * t) + 0.3 * sin(4 * Double.pi * 1.25 * t))  // 75 bpm
        }

        let monitor = HeartRateMonitor()
        let events = try await monitor.start(RecordingSource(ppg: ppgSamples, nominalRate: 100))
        for await event in events {
            if case .rate(let rate) = event { print(rate.time, rate.bpm) }
        }   // ends when the recording does

        #expect(!rates.isEmpty && rates.allSatisfy { abs($0 - 75) <= 1 })
    }

    @Test func aSimulatedFingerLiftedOffTheLens() async throws {
        let monitor = HeartRateMonitor()
        let lost = Counter()
        let (stopped, stop) = AsyncStream.makeStream(of: Void.self)
        await monitor.onContactLost { time in await lost.add(time) }
        await monitor.onStop { _ in stop.yield(); stop.finish() }

        var settings = SimulatedFinger.Settings()
        settings.bpm = 68
        settings.liftOffs = [20..<23]                      // the finger leaves the lens for 3 s
        try await monitor.start(SimulatedFingerSource(settings: settings, duration: 60))
        let truth = SimulatedFinger.beats(settings: settings, until: 60)

        for await _ in stopped {}                          // the 60 s have run
        let times = await lost.times
        #expect(times.count == 1 && abs(times[0] - 20) <= 0.5)
        #expect(truth.count >= 60)
    }

    @Test func aMovingWrist() throws {
        // A 90-bpm pulse under a stronger 150-steps-a-minute arm swing that the accelerometer sees.
        struct SensorSample { var time: Double, ppg: Double, acceleration: SIMD3<Double> }
        let sensorSamples = (0..<(125 * 60)).map { i -> SensorSample in
            let t = Double(i) / 125
            let swing = sin(2 * Double.pi * 2.5 * t)
            return SensorSample(time: t, ppg: sin(2 * Double.pi * 1.5 * t) + 2 * swing, acceleration: SIMD3(swing, 0.3 * swing, 1))
        }
        var rates: [Double] = []
        func print(_ end: Double, _ bpm: Double) { rates.append(bpm) }

        var tracker = try WristRateTracker(sampleRate: 125)
        for sample in sensorSamples {   // time (s), PPG value, acceleration (any unit)
            for estimate in tracker.process(time: sample.time, ppg: sample.ppg, acceleration: sample.acceleration) {
                if let bpm = estimate.bpm { print(estimate.end, bpm) }   // nil: declined (estimate.declined says why)
            }
        }

        #expect(rates.count >= 20 && Statistics.median(rates) > 88 && Statistics.median(rates) < 92)
    }

    @Test func skinSeenByACamera() throws {
        // A minute of a cheek at 66 bpm, its colour changing 0.3 % with the pulse under slow light changes.
        struct SkinFrame { var time: Double, red: Double, green: Double, blue: Double }
        var random = SplitMix64(seed: 7)  // seeded: the same noise every run
        let frames = (0..<(30 * 60)).map { i -> SkinFrame in
            let t = Double(i) / 30
            let pulse = 0.003 * sin(2 * Double.pi * 1.1 * t)
            let light = 1 + 0.01 * sin(2 * Double.pi * 0.1 * t) + 0.0005 * Double.random(in: -1...1, using: &random)
            return SkinFrame(time: t, red: 170 * light * (1 + 0.3 * pulse), green: 120 * light * (1 + pulse),
                             blue: 100 * light * (1 + 0.5 * pulse))
        }

        var skin = try SkinPulseTracker(frameRate: 30, regions: 1)
        var windows: [WristRateTracker.Estimate] = []
        for frame in frames {   // time (s) and the mean colour of the skin region (0-255)
            windows += skin.process(time: frame.time, colors: [SIMD3(frame.red, frame.green, frame.blue)])
        }
        let bpm = RemotePulse.consensus(windows).bpm   // nil: no rate the windows agree on

        #expect(bpm.map { abs($0 - 66) <= 2 } == true)
    }

    /// The portable blocks (all but the camera's two) stand in this file line for line.
    @Test func theArticlesCodeIsThisFilesCode() throws {
        let blocks = try codeBlocks(of: Self.article, standIn: URL(fileURLWithPath: #filePath),
                                    skipping: { $0.contains("CameraFrameSource") })
        #expect(blocks == 6)
        // The camera's two stand in the Apple-only code CI type-checks.
        let camera = try codeBlocks(of: Self.article, standIn: Self.repository.appendingPathComponent(".ci/apple-snippets/Snippets.swift"),
                                    skipping: { !$0.contains("CameraFrameSource") })
        #expect(camera == 2)
    }
}

private actor Counter {
    var times: [Double] = []
    func add(_ time: Double) { times.append(time) }
}
