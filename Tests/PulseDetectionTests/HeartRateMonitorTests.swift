import Testing
@testable import PulseDetection

/// A source whose start fails with an error of its own (not a MonitorError).
private struct FailingSource: FrameSource {
    struct LensCovered: Error, CustomStringConvertible {
        var description: String { "the lens cover is closed" }
    }
    let nominalRate = 30.0
    func start() async throws -> AsyncThrowingStream<PulseInput, any Error> { throw LensCovered() }
    func stop() async {}
}

/// A camera-like source that reports a hardware code.
private struct DeniedSource: FrameSource {
    let nominalRate = 30.0
    func start() async throws -> AsyncThrowingStream<PulseInput, any Error> {
        throw MonitorError(.permissionDenied, "camera access was denied in Settings")
    }
    func stop() async {}
}

/// A source that delivers some inputs, then fails while running.
private struct BreakingSource: FrameSource {
    struct Unplugged: Error {}
    let inputs: [PulseInput]
    /// What the source fails with (default: an error that is not a ``MonitorError``).
    var failure: any Error = Unplugged()
    let nominalRate = 30.0
    func start() async throws -> AsyncThrowingStream<PulseInput, any Error> {
        AsyncThrowingStream { continuation in
            for i in inputs { continuation.yield(i) }
            continuation.finish(throwing: failure)
        }
    }
    func stop() async {}
}

/// A source with an unusable nominal rate.
private struct SlowSource: FrameSource {
    let nominalRate = 1.0
    func start() async throws -> AsyncThrowingStream<PulseInput, any Error> {
        AsyncThrowingStream { $0.finish() }
    }
    func stop() async {}
}

/// A source whose start takes a while (a camera waiting for permission): an endless finger once started.
private actor DelayedSource: FrameSource {
    nonisolated let nominalRate = 30.0
    private(set) var stopped = false
    func start() async throws -> AsyncThrowingStream<PulseInput, any Error> {
        try await Task.sleep(for: .milliseconds(200))
        return try await SimulatedFingerSource().start()
    }
    func stop() async { stopped = true }
}

/// Collects what it is told, for checking.
private actor Log<T: Sendable> {
    var items: [T] = []
    func add(_ x: T) { items.append(x) }
}

private final class RateDelegate: HeartRateMonitorDelegate {
    let beats = Log<Beat>()
    let rates = Log<RateEstimate>()
    let stops = Log<MonitorError?>()
    func heartRateMonitor(_ monitor: HeartRateMonitor, didDetect beat: Beat) async { await beats.add(beat) }
    func heartRateMonitor(_ monitor: HeartRateMonitor, didMeasure rate: RateEstimate) async -> Bool {
        await rates.add(rate)
        return await rates.items.count >= 3
    }
    func heartRateMonitor(_ monitor: HeartRateMonitor, didStopWith error: MonitorError?) async { await stops.add(error) }
}

@Suite struct HeartRateMonitorTests {
    static func recording(seconds: Double = 30, bpm: Double = 75) -> [PulseInput] {
        simulatedFingerInputs(bpm: bpm, seconds: seconds)
    }

    static func batchEvents(_ inputs: [PulseInput]) -> [PulseEvent] {
        var events: [PulseEvent] = []
        _ = PulseAnalysis.run(inputs, sampleRate: 30) { events.append($0) }
        return events
    }

    static func collect(_ events: HeartRateMonitor.Events) async -> [PulseEvent] {
        var out: [PulseEvent] = []
        for await e in events { out.append(e) }
        return out
    }

    @Test func startingTwiceThrowsAlreadyRunning() async throws {
        let monitor = HeartRateMonitor()
        try await monitor.start(SimulatedFingerSource())
        await #expect(throws: MonitorError(.alreadyRunning, "the monitor is already running; call stop() before starting it again")) {
            try await monitor.start(SimulatedFingerSource())
        }
        #expect(await monitor.isRunning)
        await monitor.stop()
        #expect(await !monitor.isRunning)
    }

    @Test func aSourceThatFailsToStartGivesSourceFailedWithItsMessage() async {
        let monitor = HeartRateMonitor()
        do {
            try await monitor.start(FailingSource())
            Issue.record("start should have thrown")
        } catch {
            #expect(error.code == .sourceFailed)
            #expect(error.message.contains("the lens cover is closed"))
        }
        #expect(await !monitor.isRunning)
    }

    @Test func aSourcesOwnMonitorErrorKeepsItsCode() async {
        let monitor = HeartRateMonitor()
        await #expect(throws: MonitorError(.permissionDenied, "camera access was denied in Settings")) {
            try await monitor.start(DeniedSource())
        }
    }

    @Test func aSourceWithAnUnusableRateFailsToStart() async {
        let monitor = HeartRateMonitor()
        do {
            try await monitor.start(SlowSource())
            Issue.record("start should have thrown")
        } catch {
            #expect(error.code == .sourceFailed)
            #expect(error.message.contains("1.0 Hz"))
        }
    }

    @Test func eventsArriveInOrderAndEqualTheBatchAnalysis() async throws {
        let inputs = Self.recording()
        let monitor = HeartRateMonitor()
        let events = monitor.events
        try await monitor.start(RecordingSource(inputs: inputs, nominalRate: 30))
        let live = await Self.collect(events)  // finishes when the recording runs out
        expectSameEvents(live, Self.batchEvents(inputs))
        #expect(live.contains { if case .rate = $0 { true } else { false } })
        #expect(await !monitor.isRunning)
    }

    @Test func theSequenceStartReturnsSeesEveryEventOfARecording() async throws {
        let inputs = Self.recording(seconds: 15)
        let monitor = HeartRateMonitor()
        let events = try await monitor.start(RecordingSource(inputs: inputs, nominalRate: 30))
        expectSameEvents(await Self.collect(events), Self.batchEvents(inputs))
    }

    @Test func ignoringTheSequenceStartReturnsDoesNotStallThePipeline() async throws {
        let monitor = HeartRateMonitor(bufferCapacity: 4)
        let later = monitor.events  // subscribed before start: waits for the session and sees its end
        let inputs = Self.recording(seconds: 10)
        try await monitor.start(RecordingSource(inputs: inputs, nominalRate: 30))
        var count = 0
        for await _ in later { count += 1 }
        // The whole recording went through although the returned sequence was dropped unread.
        #expect(count == Self.batchEvents(inputs).count)
        #expect(await !monitor.isRunning)
    }

    @Test func aSlowConsumerWithATinyBufferLosesNothing() async throws {
        let inputs = Self.recording(seconds: 12)
        let monitor = HeartRateMonitor(bufferCapacity: 2)
        let events = monitor.events
        try await monitor.start(RecordingSource(inputs: inputs, nominalRate: 30))
        var live: [PulseEvent] = []
        for await e in events {
            live.append(e)
            await Task.yield()
        }
        expectSameEvents(live, Self.batchEvents(inputs))
    }

    @Test func theEventStreamFinishesAfterStop() async throws {
        let monitor = HeartRateMonitor(bufferCapacity: 16)
        let events = monitor.events
        try await monitor.start(SimulatedFingerSource())  // endless
        var count = 0
        var lastTime = -Double.infinity
        for await e in events {
            count += 1
            if case .waveform(let w) = e {
                #expect(w.time > lastTime)
                lastTime = w.time
            }
            if count == 200 { await monitor.stop() }
        }
        #expect(count >= 200 && count <= 200 + 16 + 8)
        #expect(await !monitor.isRunning)
    }

    @Test func onRateReturningTrueStopsTheMonitor() async throws {
        let monitor = HeartRateMonitor()
        let rates = Log<RateEstimate>()
        await monitor.onRate { rate in
            await rates.add(rate)
            return true
        }
        let events = monitor.events
        try await monitor.start(SimulatedFingerSource())  // endless: only the handler stops it
        let live = await Self.collect(events)
        #expect(await rates.items.count == 1)
        guard case .rate(let last) = live.last else {
            Issue.record("the stream should end with the rate that stopped it")
            return
        }
        #expect(await rates.items == [last])
        #expect(await !monitor.isRunning)
    }

    @Test func theDelegateSeesTheSameBeatsAndCanStop() async throws {
        let monitor = HeartRateMonitor()
        let delegate = RateDelegate()
        await monitor.setDelegate(delegate)
        let events = monitor.events
        try await monitor.start(SimulatedFingerSource())
        let live = await Self.collect(events)
        let streamBeats = live.compactMap { if case .beat(let b) = $0 { b } else { nil } }
        #expect(await delegate.beats.items == streamBeats)
        #expect(await delegate.rates.items.count == 3)
        #expect(await delegate.stops.items.count == 1)
        #expect(await delegate.stops.items.first! == nil)
        withExtendedLifetime(delegate) {}
    }

    @Test func aSourceFailingWhileRunningEndsTheSessionWithSourceFailed() async throws {
        let monitor = HeartRateMonitor()
        let stops = Log<MonitorError?>()
        await monitor.onStop { await stops.add($0) }
        let events = monitor.events
        try await monitor.start(BreakingSource(inputs: Self.recording(seconds: 8)))
        let live = await Self.collect(events)
        #expect(!live.isEmpty)
        #expect(await monitor.failure?.code == .sourceFailed)
        #expect(await stops.items.count == 1)
        #expect(await stops.items.first??.code == .sourceFailed)
    }

    /// A source that fails with a monitor error of its own (the camera, interrupted) keeps its code
    /// and its message: it was wrapped as "the frame source failed: sourceFailed: ..." and a
    /// configurationFailed became sourceFailed.
    @Test func aSourcesOwnMonitorErrorReachesTheAppUnwrapped() async throws {
        let monitor = HeartRateMonitor()
        let own = MonitorError(.configurationFailed, "the camera could not be configured")
        let events = monitor.events
        try await monitor.start(BreakingSource(inputs: Self.recording(seconds: 2), failure: own))
        _ = await Self.collect(events)
        #expect(await monitor.failure == own)
    }

    @Test func cancellingTheConsumingTaskDoesNotHang() async throws {
        let monitor = HeartRateMonitor(bufferCapacity: 8)
        let events = monitor.events
        try await monitor.start(SimulatedFingerSource())  // endless
        let consumer = Task {
            var n = 0
            for await _ in events { n += 1 }
            return n
        }
        consumer.cancel()
        _ = await consumer.value  // returns: cancellation ends the iteration
        // The pipeline is not blocked by the departed consumer's full buffer: a new consumer keeps receiving.
        var more = 0
        for await _ in monitor.events {
            more += 1
            if more == 50 { break }
        }
        #expect(more == 50)
        await monitor.stop()
    }

    @Test func aSlowConsumerCancelledWhileItsQueueIsFullGetsNoMoreEvents() async throws {
        // A consumer slower than the source never finds its queue empty; cancelling it must still end
        // its iteration (the event in hand at most), not keep it fed by the source.
        let monitor = HeartRateMonitor(bufferCapacity: 8)
        let events = monitor.events
        try await monitor.start(SimulatedFingerSource())  // endless
        let consumer = Task { () -> Int in
            var afterCancel = 0
            for await _ in events {
                if Task.isCancelled {
                    afterCancel += 1
                    if afterCancel > 200 { break }
                }
                try? await Task.sleep(for: .milliseconds(2))
            }
            return afterCancel
        }
        try await Task.sleep(for: .milliseconds(100))
        consumer.cancel()
        #expect(await consumer.value <= 1)
        await monitor.stop()
    }

    @Test func stopWhileStartingEndsThatStartsSequenceAndLetsTheMonitorStartAgain() async throws {
        let monitor = HeartRateMonitor()
        let source = DelayedSource()
        let starting = Task { try await monitor.start(source) }
        try await Task.sleep(for: .milliseconds(50))
        await monitor.stop()  // returns at once: the start is still waiting for its source
        let events = try await starting.value
        var count = 0
        for await _ in events { count += 1 }  // finished: no session was started for it
        #expect(count == 0)
        #expect(await source.stopped)
        #expect(await !monitor.isRunning)
        let again = try await monitor.start(SimulatedFingerSource())
        var n = 0
        for await _ in again {
            n += 1
            if n == 20 { break }
        }
        #expect(n == 20)
        await monitor.stop()
    }

    @Test func aConsumerWaitingWhileIdleCanBeCancelled() async {
        let monitor = HeartRateMonitor()
        let events = monitor.events
        let consumer = Task { await Self.collect(events) }
        consumer.cancel()
        #expect(await consumer.value.isEmpty)
    }

    @Test func theMonitorCanBeStartedAgainAfterStop() async throws {
        let inputs = Self.recording(seconds: 8)
        let monitor = HeartRateMonitor()
        for _ in 0..<2 {
            let events = monitor.events
            try await monitor.start(RecordingSource(inputs: inputs, nominalRate: 30))
            expectSameEvents(await Self.collect(events), Self.batchEvents(inputs))
        }
    }
}

@Suite struct WaveformScalerTests {
    @Test func mapsTheWindowsRangeOntoTheViewWithMargins() {
        var scaler = WaveformScaler(capacity: 4, margin: 0.1)
        for v in [2.0, -2, 0, 1] { scaler.append(v) }
        #expect(scaler.range == -2...2)
        #expect(scaler.points == [0.9, 0.1, 0.5, 0.7000000000000001])
        #expect(scaler.normalized(5) == 0.9)  // clamped
    }

    @Test func rescalesWhenLargeValuesLeaveTheWindow() {
        var scaler = WaveformScaler(capacity: 3, margin: 0)
        for v in [100.0, 1, -1, 0] { scaler.append(v) }  // 100 has left the window
        #expect(scaler.range == -1...1)
        #expect(scaler.normalized(0) == 0.5)
    }

    @Test func aFlatOrEmptyWindowDrawsInTheMiddle() {
        var scaler = WaveformScaler()
        #expect(scaler.normalized(3) == 0.5)
        #expect(scaler.points.isEmpty)
        scaler.append(3)
        scaler.append(3)
        #expect(scaler.points == [0.5, 0.5])
    }

    @Test func ignoresNonFiniteValues() {
        var scaler = WaveformScaler(capacity: 3)
        scaler.append(.nan)
        scaler.append(.infinity)
        scaler.append(WaveformSample(time: 0, value: 1))
        #expect(scaler.count == 1)
    }
}
