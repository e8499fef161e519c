import Foundation
import PulseDetection

/// Hands the pipeline's events to every viewer of the dashboard: each ``subscribe()`` gets a stream
/// of Server-Sent Event frames that starts with the current state (``DashboardState/snapshot``) and
/// goes on with what the pipeline reports.
///
/// Each viewer's stream is bounded (``bufferLimit`` frames; a viewer that stops reading loses the
/// oldest, not the server's memory) and ends when the viewer goes away or ``close()`` is called.
public actor DashboardHub {
    /// Frames a viewer's stream holds before the oldest are dropped: about 15 s of messages at
    /// a 50-Hz waveform.
    public static let bufferLimit = 1024

    /// The state viewers are shown.
    public private(set) var state: DashboardState
    private var viewers: [Int: AsyncStream<String>.Continuation] = [:]
    private var nextViewer = 0
    private var isClosed = false

    /// - Parameter state: the state to start from (its session names the input).
    public init(state: DashboardState) {
        self.state = state
    }

    /// Viewers connected now.
    public var viewerCount: Int { viewers.count }

    /// A new viewer's stream of Server-Sent Event frames: the snapshot first, then live messages.
    /// After ``close()``, an empty stream.
    public func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(Self.bufferLimit))
        guard !isClosed else {
            continuation.finish()
            return stream
        }
        for message in state.snapshot { continuation.yield(message.serverSentEvent) }
        let id = nextViewer
        nextViewer += 1
        viewers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.remove(id) }
        }
        return stream
    }

    /// Takes the pipeline's events (in the order it emitted them) and sends what they change.
    public func publish(_ events: [PulseEvent]) {
        for event in events {
            for message in state.process(event) { send(message) }
        }
    }

    /// Tells the viewers that the input ended at `time` (input seconds). The streams stay open: the
    /// page keeps showing the final state, and a late viewer still gets it.
    public func end(at time: Double) {
        send(state.end(at: time))
    }

    /// A Server-Sent Events comment line, which browsers ignore.
    public static let pingFrame = ": ping\n\n"
    /// Seconds between pings while the server runs.
    public static let pingInterval = 15.0

    /// Sends every viewer a comment line. After a recording ends nothing else is sent; a ping is
    /// written all the same, so a proxy between keeps the connection open and a viewer that went
    /// away meets a write (how the server then ends its stream is the server's).
    public func ping() {
        for continuation in viewers.values { continuation.yield(Self.pingFrame) }
    }

    /// Ends every viewer's stream (the server is stopping); later subscriptions end at once.
    public func close() {
        isClosed = true
        for continuation in viewers.values { continuation.finish() }
        viewers.removeAll()
    }

    private func send(_ message: DashboardMessage) {
        guard !viewers.isEmpty else { return }
        let frame = message.serverSentEvent
        for continuation in viewers.values { continuation.yield(frame) }
    }

    private func remove(_ id: Int) {
        viewers[id] = nil
    }
}

/// Runs inputs through the live pipeline (`PulseAnalyzer.process(_:emit:)` in PulseDetection) paced by their
/// timestamps, and publishes what it reports to a hub: what the page shows is what an app would.
public enum LiveFeed {
    /// Feeds `inputs` at `speed` until they end (then tells the viewers, and returns the last input's
    /// time, nil if there was none) or the task is cancelled (throws `CancellationError`).
    /// - Parameters:
    ///   - inputs: the inputs, in time order.
    ///   - sampleRate: the pipeline's grid rate, Hz (the source's nominal frame or sample rate).
    ///   - speed: input seconds per wall-clock second.
    ///   - hub: where the events go.
    ///   - settings: the pipeline's settings.
    @discardableResult
    public static func run(_ inputs: LiveInputs, sampleRate: Double, speed: Double, hub: DashboardHub,
                           settings: PulseAnalyzer.Settings = .init()) async throws -> Double? {
        var inputs = inputs
        var analyzer = PulseAnalyzer(sampleRate: sampleRate, settings: settings)
        var pacer = ReplayPacer(speed: speed)
        let clock = ContinuousClock()
        let start = clock.now
        var events: [PulseEvent] = []
        var last: Double?
        while let input = inputs.next() {
            try Task.checkCancellation()
            let elapsed = start.duration(to: clock.now)
            let wait = pacer.delay(until: input.time, now: Double(elapsed.components.seconds)
                                   + Double(elapsed.components.attoseconds) * 1e-18)
            if wait > 0 {
                // Everything due so far goes out before the pause.
                await hub.publish(events)
                events.removeAll(keepingCapacity: true)
                try await sleep(seconds: wait)
            }
            analyzer.process(input) { events.append($0) }
            last = input.time
        }
        analyzer.finish { events.append($0) }
        await hub.publish(events)
        if let last { await hub.end(at: last) }
        return last
    }

    /// Longest single sleep, seconds (a day). A longer wait (an input stamped years after the one
    /// before it, a tiny speed) is slept a day at a time: a `Duration` of 1e300 s traps, and a wait
    /// that long only ends with the task's cancellation.
    static let longestSleep = 86_400.0

    /// Sleeps `seconds` (> 0) in steps of at most ``longestSleep``; throws `CancellationError` when
    /// the task is cancelled.
    private static func sleep(seconds: Double) async throws {
        var left = seconds
        while left > 0 {
            let step = min(left, longestSleep)
            try await Task.sleep(for: .seconds(step))
            left -= step
        }
    }
}
