import Testing
@testable import PulseDetection

@Suite struct FrameSourceTests {
    private func colors(_ n: Int, rate: Double = 30) -> [ColorSample] {
        (0..<n).map { ColorSample(time: Double($0) / rate, red: 250, green: 40 + Double($0 % 5), blue: 20) }
    }

    @Test func recordingSourceDeliversEveryInputInOrder() async throws {
        let source = RecordingSource(colors: colors(100))
        var received: [PulseInput] = []
        for try await input in try await source.start() { received.append(input) }
        #expect(received == source.inputs)
    }

    @Test func recordingSourceEstimatesItsRateFromTheMedianInterval() {
        var samples = colors(50, rate: 25)
        samples.remove(at: 20)  // a dropped frame does not change the median interval
        #expect(abs(RecordingSource(colors: samples).nominalRate - 25) < 1e-9)
        #expect(RecordingSource(colors: samples, nominalRate: 30).nominalRate == 30)
    }

    @Test func ppgRecordingSourceDeliversPPGInputs() async throws {
        let source = RecordingSource(ppg: [(0, 1), (0.01, 2), (0.02, 3)])
        var received: [PulseInput] = []
        for try await input in try await source.start() { received.append(input) }
        #expect(received == [.ppg(time: 0, value: 1), .ppg(time: 0.01, value: 2), .ppg(time: 0.02, value: 3)])
        #expect(abs(source.nominalRate - 100) < 1e-9)
    }

    @Test func recordingSourceWithTooFewInputsFailsToStartWithSourceFailed() async {
        let source = RecordingSource(colors: colors(1))
        await #expect {
            _ = try await source.start()
        } throws: { error in
            (error as? MonitorError)?.code == .sourceFailed
        }
    }

    /// A simulated finger the generator cannot run (every frame dropped: it looped for ever; a
    /// frame rate of 0: it trapped) fails to start with sourceFailed, as a recording does, and a
    /// monitor given it stays idle.
    @Test func aSimulatedFingerThatCannotRunFailsToStartWithSourceFailed() async {
        for change in [{ (s: inout SimulatedFinger.Settings) in s.dropRate = 1 }, { $0.frameRate = 0 }, { $0.bpm = .nan }] {
            var settings = SimulatedFinger.Settings.ideal
            change(&settings)
            let source = SimulatedFingerSource(settings: settings, duration: 1)
            await #expect {
                _ = try await source.start()
            } throws: { error in
                (error as? MonitorError)?.code == .sourceFailed && (error as? MonitorError)?.message.contains("simulated finger") == true
            }
            let monitor = HeartRateMonitor()
            await #expect(throws: MonitorError.self) { _ = try await monitor.start(source) }
            #expect(await monitor.isRunning == false)
        }
    }

    @Test func stoppingASourceFinishesItsStream() async throws {
        let source = SimulatedFingerSource(settings: .ideal)  // endless
        var count = 0
        for try await _ in try await source.start() {
            count += 1
            if count == 10 { await source.stop() }
        }
        #expect(count == 10)
    }

    @Test func simulatedFingerSourceEndsAfterItsDuration() async throws {
        var settings = SimulatedFinger.Settings.ideal
        settings.frameRate = 20
        let source = SimulatedFingerSource(settings: settings, duration: 3)
        var last = -1.0
        var count = 0
        for try await input in try await source.start() {
            #expect(input.time > last)
            last = input.time
            count += 1
        }
        #expect(count == 60)
        #expect(source.nominalRate == 20)
    }

    @Test func cancellingTheConsumingTaskEndsAnEndlessSource() async throws {
        let source = SimulatedFingerSource(settings: .ideal)
        let stream = try await source.start()
        let task = Task {
            var n = 0
            for try await _ in stream { n += 1 }
            return n
        }
        task.cancel()
        _ = try await task.value  // returns: the stream ends on cancellation
    }
}
