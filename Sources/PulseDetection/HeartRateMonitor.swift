import Foundation
import SignalProcessing

/// Measures the heart rate live from a ``FrameSource``: the reusable monitor component.
///
/// `start(_:)` starts the source and runs ``PulseAnalyzer`` over its inputs until `stop()`, the source
/// runs out or fails, or a rate handler asks to stop. Every event the pipeline emits (waveform samples,
/// beats as seen and as confirmed, rates, contact found/lost, quality, gaps) is delivered, in order:
/// - to each `events` sequence being iterated (the primary interface),
/// - to the closures set with `onBeat`, `onRate`, ... and to the ``HeartRateMonitorDelegate``: thin
///   layers over the same events. A rate handler (closure or delegate) returns `true` to stop.
///
/// ```swift
/// let monitor = HeartRateMonitor()
/// try await monitor.start(CameraFrameSource())
/// for await event in monitor.events {
///     if case .rate(let r) = event { print(r.bpm) }
/// }
/// ```
///
/// Errors at start are thrown as ``MonitorError`` with a code; a source that fails while running ends
/// the session: `onStop` / the delegate receive the error, `failure` keeps it, and then the event
/// sequences finish (when a session ends by itself, the stop handlers run before the sequences end).
///
/// Delivery applies back-pressure: a consumer that falls `bufferCapacity` events behind pauses the
/// pipeline (a recording waits; a camera drops frames by its own policy), so no event is lost or
/// reordered. Handlers are awaited one at a time on the monitor.
///
/// Two things to know:
/// - The running pipeline holds the monitor: call `stop()` before letting go of a running monitor.
///   Otherwise an endless source (the camera, with its torch) keeps running.
/// - `stop()` returns without waiting for the stopped session to wind down (a handler may call it).
///   That session's `onStop` / `didStopWith` can therefore run after `stop()` returns, even after a
///   new `start(_:)`: tell sessions apart in your own state if that matters.
public actor HeartRateMonitor {
    /// Closures called for each event, awaited in event order. Each is optional.
    public struct Handlers: Sendable {
        /// Each heartbeat as soon as it is seen (within about 250 ms of its pulse), for animation and sound.
        public var onBeat: (@Sendable (Beat) async -> Void)?
        /// Each beat confirmed by the beat tracker (a few seconds later): the beats intervals and HRV use.
        public var onConfirmedBeat: (@Sendable (Beat) async -> Void)?
        /// Each reported rate; return `true` to stop the monitor (the rate is stable enough for you).
        public var onRate: (@Sendable (RateEstimate) async -> Bool)?
        /// The fingertip covered the lens, at the given time (seconds).
        public var onContactFound: (@Sendable (Double) async -> Void)?
        /// The fingertip left the lens (or moved too much), at the given time (seconds).
        public var onContactLost: (@Sendable (Double) async -> Void)?
        /// Each waveform sample (for drawing; see ``WaveformScaler``).
        public var onWaveform: (@Sendable (WaveformSample) async -> Void)?
        /// Each quality report (one per analysis hop).
        public var onQuality: (@Sendable (QualityReport) async -> Void)?
        /// The input stopped for longer than the pipeline bridges, or its clock jumped back by more
        /// than that (then to < from) (from, to: seconds).
        public var onGap: (@Sendable (Double, Double) async -> Void)?
        /// The session ended; the error when the source failed, nil otherwise.
        public var onStop: (@Sendable (MonitorError?) async -> Void)?

        public init() {}
    }

    /// The pipeline's settings.
    public let settings: PulseAnalyzer.Settings
    /// How many events an `events` consumer may fall behind before the pipeline waits for it.
    public nonisolated let bufferCapacity: Int
    /// Why the latest session ended, when a source failed while running; nil otherwise.
    public private(set) var failure: MonitorError?

    private enum State {
        case idle
        case starting(session: Int)
        case running(session: Int, source: any FrameSource, task: Task<Void, Never>)
    }

    private var state = State.idle
    private var sessionCount = 0
    private var stopWhileStarting = false
    private var handlers: Handlers
    private weak var delegate: (any HeartRateMonitorDelegate)?
    private nonisolated let hub: EventHub

    /// - Parameters:
    ///   - settings: the pipeline's settings.
    ///   - bufferCapacity: events a consumer of `events` may fall behind (1...2^20) before the
    ///     pipeline waits.
    ///   - handlers: closures called for each event.
    /// - Precondition: `settings` are ones ``PulseAnalyzer/init(sampleRate:settings:)`` takes
    ///   (checked here, not when a session starts).
    public init(settings: PulseAnalyzer.Settings = .init(), bufferCapacity: Int = 1024, handlers: Handlers = .init()) {
        // (The buffer takes its room at the first event: Int.max failed to allocate there.)
        precondition(bufferCapacity >= 1 && bufferCapacity <= 1 << 20,
                     "the event buffer needs room for 1...\(1 << 20) events (got \(bufferCapacity))")
        PulseAnalyzer.checkPreconditions(settings)
        self.settings = settings
        self.bufferCapacity = bufferCapacity
        self.handlers = handlers
        hub = EventHub(capacity: bufferCapacity)
    }

    /// True from a successful `start` until the session ends.
    public var isRunning: Bool {
        if case .running = state { return true }
        return false
    }

    /// The events of the monitor's sessions, as an asynchronous sequence (iterate it once).
    ///
    /// Each access subscribes a new consumer. A consumer subscribed while a session runs receives the
    /// session's events from then on, beginning with those no consumer has received yet (up to
    /// `bufferCapacity`); one subscribed while the monitor is idle receives the next session's events.
    /// The sequence finishes when its session ends (after the consumer has read every event), and
    /// when the consuming task is cancelled. To see every event of a fast source such as a recording,
    /// use the sequence `start` returns (or take this one before calling `start`):
    /// ```swift
    /// let events = try await monitor.start(RecordingSource(colors: samples))
    /// for await event in events { ... }
    /// ```
    public nonisolated var events: Events { Events(subscription: hub.subscribe()) }

    /// Sets the delegate (held weakly).
    public func setDelegate(_ delegate: (any HeartRateMonitorDelegate)?) {
        self.delegate = delegate
    }

    /// Replaces every handler.
    public func setHandlers(_ handlers: Handlers) { self.handlers = handlers }
    /// Calls `handler` for each heartbeat as soon as it is seen.
    public func onBeat(_ handler: @escaping @Sendable (Beat) async -> Void) { handlers.onBeat = handler }
    /// Calls `handler` for each beat the beat tracker confirms (intervals and HRV use these).
    public func onConfirmedBeat(_ handler: @escaping @Sendable (Beat) async -> Void) { handlers.onConfirmedBeat = handler }
    /// Calls `handler` for each reported rate; it returns `true` to stop the monitor.
    public func onRate(_ handler: @escaping @Sendable (RateEstimate) async -> Bool) { handlers.onRate = handler }
    /// Calls `handler` when contact is found (time in seconds).
    public func onContactFound(_ handler: @escaping @Sendable (Double) async -> Void) { handlers.onContactFound = handler }
    /// Calls `handler` when contact is lost (time in seconds).
    public func onContactLost(_ handler: @escaping @Sendable (Double) async -> Void) { handlers.onContactLost = handler }
    /// Calls `handler` for each waveform sample.
    public func onWaveform(_ handler: @escaping @Sendable (WaveformSample) async -> Void) { handlers.onWaveform = handler }
    /// Calls `handler` for each quality report.
    public func onQuality(_ handler: @escaping @Sendable (QualityReport) async -> Void) { handlers.onQuality = handler }
    /// Calls `handler` when the input stops for longer than the pipeline bridges (from, to: seconds).
    public func onGap(_ handler: @escaping @Sendable (Double, Double) async -> Void) { handlers.onGap = handler }
    /// Calls `handler` when the session ends (with the source's error, if it failed).
    public func onStop(_ handler: @escaping @Sendable (MonitorError?) async -> Void) { handlers.onStop = handler }

    /// Starts `source` and the pipeline over its inputs.
    ///
    /// - Returns: the session's events from its very first one (a consumer subscribed before the
    ///   pipeline starts); iterate it, or ignore it and use `events`, the handlers or the delegate.
    /// - Throws: ``MonitorError``: `alreadyRunning` if a session is running or starting; the source's
    ///   own ``MonitorError`` (`noCamera`, `noTorch`, `permissionDenied`, `configurationFailed`, ...);
    ///   `sourceFailed` with the source's message for any other error it throws, or when its nominal
    ///   rate is outside 5 Hz...10 kHz.
    @discardableResult
    public func start(_ source: any FrameSource) async throws(MonitorError) -> Events {
        guard case .idle = state else {
            throw MonitorError(.alreadyRunning, "the monitor is already running; call stop() before starting it again")
        }
        sessionCount += 1
        let session = sessionCount
        state = .starting(session: session)
        stopWhileStarting = false
        let inputs: AsyncThrowingStream<PulseInput, any Error>
        do {
            inputs = try await source.start()
        } catch let error as MonitorError {
            state = .idle
            throw error
        } catch {
            state = .idle
            throw MonitorError(.sourceFailed, "the frame source could not start: \(error)")
        }
        if stopWhileStarting {
            // stop() came while the source was starting: the session ends before it began, and so
            // does its sequence (one bound to the next session would wait for a start that is not
            // this caller's).
            state = .idle
            await source.stop()
            return Events(subscription: hub.subscribe(ended: true))
        }
        let rate = source.nominalRate
        guard rate.isFinite, rate >= 5, rate <= 10_000 else {
            state = .idle
            await source.stop()
            throw MonitorError(.sourceFailed, "the frame source's nominal rate \(rate) Hz is outside 5 Hz...10 kHz")
        }
        failure = nil
        let events = Events(subscription: hub.subscribe())  // bound by `begin`: sees every event
        hub.begin(session: session)
        let task = Task { await self.run(session: session, inputs: inputs, rate: rate) }
        state = .running(session: session, source: source, task: task)
        return events
    }

    /// Stops the running session: the source stops, event sequences finish once read, and no further
    /// event reaches the handlers or the delegate (one already in progress completes). The session's
    /// `onStop` handler and the delegate's `didStopWith` still run once, as at the end of every
    /// session, when its pipeline winds down. Called while a start is still in progress (a camera
    /// waiting for permission), it returns at once; that start then stops the source as soon as it
    /// has started and returns a sequence that is already finished. Does nothing when idle.
    public func stop() async {
        switch state {
        case .idle:
            return
        case .starting:
            stopWhileStarting = true
        case .running(let session, let source, let task):
            state = .idle
            task.cancel()
            hub.finish(session: session)
            await source.stop()
        }
    }

    private func isCurrent(_ session: Int) -> Bool {
        if case .running(let s, _, _) = state { return s == session }
        return false
    }

    /// The session's pipeline: pulls inputs, runs the analyzer, delivers its events.
    private func run(session: Int, inputs: AsyncThrowingStream<PulseInput, any Error>, rate: Double) async {
        var analyzer = PulseAnalyzer(sampleRate: rate, settings: settings)
        var pending: [PulseEvent] = []
        pending.reserveCapacity(16)
        var failed: MonitorError?
        var stopped = false
        do {
            loop: for try await input in inputs {
                pending.removeAll(keepingCapacity: true)
                analyzer.process(input) { pending.append($0) }
                for event in pending {
                    guard isCurrent(session) else { break loop }
                    if await deliver(event, session: session) {
                        stopped = true
                        break loop
                    }
                }
            }
            // The source ran out: confirm the beats still inside the beat tracker's lag.
            if !stopped, isCurrent(session) {
                pending.removeAll(keepingCapacity: true)
                analyzer.finish { pending.append($0) }
                for event in pending where isCurrent(session) {
                    if await deliver(event, session: session) { break }
                }
            }
        } catch {
            // A source that fails with a monitor error (the camera: interrupted, misconfigured) keeps
            // its code and its message, which is written for a person.
            failed = error as? MonitorError ?? MonitorError(.sourceFailed, "the frame source failed: \(error)")
        }
        if case .running(let s, let source, _) = state, s == session {
            state = .idle
            await source.stop()
        }
        // A session started since then owns `failure`: an error of this one must not overwrite it.
        let superseded: Bool
        switch state {
        case .idle: superseded = false
        case .starting(let s), .running(let s, _, _): superseded = s != session
        }
        if let failed, !superseded { failure = failed }
        await handlers.onStop?(failed)
        await delegate?.heartRateMonitor(self, didStopWith: failed)
        // Last, so that a consumer whose sequence ends finds `failure` set and the stop handlers done
        // (a no-op when `stop()` has already finished the session).
        hub.finish(session: session)
    }

    /// Delivers one event to the consumers, the handlers and the delegate; returns true to stop.
    private func deliver(_ event: PulseEvent, session: Int) async -> Bool {
        await hub.send(event, session: session)
        let delegate = self.delegate
        switch event {
        case .waveform(let w):
            await handlers.onWaveform?(w)
            await delegate?.heartRateMonitor(self, didDraw: w)
        case .beat(let b):
            await handlers.onBeat?(b)
            await delegate?.heartRateMonitor(self, didDetect: b)
        case .confirmedBeat(let b):
            await handlers.onConfirmedBeat?(b)
            await delegate?.heartRateMonitor(self, didConfirm: b)
        case .rate(let r):
            var stop = false
            if let onRate = handlers.onRate { stop = await onRate(r) }
            if let delegate { stop = await delegate.heartRateMonitor(self, didMeasure: r) || stop }
            return stop
        case .contactFound(let t):
            await handlers.onContactFound?(t)
            await delegate?.heartRateMonitor(self, didFindContactAt: t)
        case .contactLost(let t):
            await handlers.onContactLost?(t)
            await delegate?.heartRateMonitor(self, didLoseContactAt: t)
        case .quality(let q):
            await handlers.onQuality?(q)
            await delegate?.heartRateMonitor(self, didAssess: q)
        case .gap(let from, let to):
            await handlers.onGap?(from, to)
            await delegate?.heartRateMonitor(self, didSkipGapFrom: from, to: to)
        }
        return false
    }
}

extension HeartRateMonitor {
    /// The events of one consumer: a `Sendable` asynchronous sequence of ``PulseEvent`` that finishes
    /// when the session ends or the consuming task is cancelled. Iterate it once.
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = PulseEvent
        let subscription: EventSubscription

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: subscription) }

        public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
            let subscription: EventSubscription

            /// The next event, or nil when the session has ended (or the task was cancelled).
            public mutating func next() async -> PulseEvent? {
                await subscription.hub.next(subscriber: subscription.id)
            }
        }
    }
}

/// Receives a ``HeartRateMonitor``'s events: a thin layer over `events`, called in event order and
/// awaited. Every method has a default that does nothing (the rate method's default returns false).
public protocol HeartRateMonitorDelegate: AnyObject, Sendable {
    /// A heartbeat as soon as it is seen (within about 250 ms of its pulse).
    func heartRateMonitor(_ monitor: HeartRateMonitor, didDetect beat: Beat) async
    /// A beat confirmed by the beat tracker (a few seconds after it): the beats intervals and HRV use.
    func heartRateMonitor(_ monitor: HeartRateMonitor, didConfirm beat: Beat) async
    /// A reported rate; return `true` to stop the monitor.
    func heartRateMonitor(_ monitor: HeartRateMonitor, didMeasure rate: RateEstimate) async -> Bool
    /// The fingertip covered the lens at `time` (seconds).
    func heartRateMonitor(_ monitor: HeartRateMonitor, didFindContactAt time: Double) async
    /// The fingertip left the lens at `time` (seconds): remind the user to hold still.
    func heartRateMonitor(_ monitor: HeartRateMonitor, didLoseContactAt time: Double) async
    /// A waveform sample, for drawing.
    func heartRateMonitor(_ monitor: HeartRateMonitor, didDraw sample: WaveformSample) async
    /// A quality report for the latest analysis window.
    func heartRateMonitor(_ monitor: HeartRateMonitor, didAssess quality: QualityReport) async
    /// The input stopped from `from` to `to` (seconds), or its clock jumped back from `from` to `to`;
    /// analysis restarted after it.
    func heartRateMonitor(_ monitor: HeartRateMonitor, didSkipGapFrom from: Double, to: Double) async
    /// The session ended; `error` when the source failed.
    func heartRateMonitor(_ monitor: HeartRateMonitor, didStopWith error: MonitorError?) async
}

extension HeartRateMonitorDelegate {
    public func heartRateMonitor(_ monitor: HeartRateMonitor, didDetect beat: Beat) async {}
    public func heartRateMonitor(_ monitor: HeartRateMonitor, didConfirm beat: Beat) async {}
    public func heartRateMonitor(_ monitor: HeartRateMonitor, didMeasure rate: RateEstimate) async -> Bool { false }
    public func heartRateMonitor(_ monitor: HeartRateMonitor, didFindContactAt time: Double) async {}
    public func heartRateMonitor(_ monitor: HeartRateMonitor, didLoseContactAt time: Double) async {}
    public func heartRateMonitor(_ monitor: HeartRateMonitor, didDraw sample: WaveformSample) async {}
    public func heartRateMonitor(_ monitor: HeartRateMonitor, didAssess quality: QualityReport) async {}
    public func heartRateMonitor(_ monitor: HeartRateMonitor, didSkipGapFrom from: Double, to: Double) async {}
    public func heartRateMonitor(_ monitor: HeartRateMonitor, didStopWith error: MonitorError?) async {}
}

/// Keeps a subscriber registered while its `Events` value or iterator exists.
final class EventSubscription: Sendable {
    let id: Int
    let hub: EventHub

    init(id: Int, hub: EventHub) {
        self.id = id
        self.hub = hub
    }

    deinit { hub.unsubscribe(id) }
}

/// The monitor's event fan-out: per-subscriber bounded queues with back-pressure on the producer.
///
/// Locked state (no actor hop needed to subscribe); continuations are resumed outside the lock.
final class EventHub: @unchecked Sendable {
    private struct Subscriber {
        /// The session it consumes; nil while waiting for the next session.
        var session: Int?
        var queue = EventQueue()
        var waiter: CheckedContinuation<PulseEvent?, Never>?
        /// Its session has ended: drain the queue, then finish.
        var ended = false
        var cancelled = false
    }

    private let capacity: Int
    private let lock = NSLock()
    private var subscribers: [Int: Subscriber] = [:]
    private var nextID = 0
    private var session = 0
    private var open = false
    /// Events of the open session that no subscriber has received, newest `capacity`.
    private var backlog: RingBuffer<PulseEvent>
    private var producer: CheckedContinuation<Void, Never>?

    init(capacity: Int) {
        self.capacity = capacity
        backlog = RingBuffer(capacity: capacity)
    }

    private func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// A new consumer: of the open session, else of the next one; with `ended`, one that is already
    /// over (its sequence ends at once).
    func subscribe(ended: Bool = false) -> EventSubscription {
        let id: Int = locked {
            nextID += 1
            var s = Subscriber()
            if ended {
                s.ended = true
            } else if open {
                s.session = session
                for e in backlog { s.queue.push(e) }
                backlog.removeAll()
            }
            subscribers[nextID] = s
            return nextID
        }
        return EventSubscription(id: id, hub: self)
    }

    func unsubscribe(_ id: Int) {
        let (waiter, producer): (CheckedContinuation<PulseEvent?, Never>?, CheckedContinuation<Void, Never>?) = locked {
            let w = subscribers.removeValue(forKey: id)?.waiter
            return (w, takeProducerIfRoom())
        }
        waiter?.resume(returning: nil)
        producer?.resume()
    }

    func begin(session s: Int) {
        var waiters: [CheckedContinuation<PulseEvent?, Never>] = []
        locked {
            // Consumers of an earlier session that has not been finished yet end with it.
            for id in subscribers.keys where subscribers[id]!.session.map({ $0 != s }) ?? false && !subscribers[id]!.ended {
                subscribers[id]!.ended = true
                if let w = subscribers[id]!.waiter {
                    subscribers[id]!.waiter = nil
                    waiters.append(w)
                }
            }
            session = s
            open = true
            backlog.removeAll()
            for id in subscribers.keys where subscribers[id]!.session == nil {
                subscribers[id]!.session = s
            }
        }
        for w in waiters { w.resume(returning: nil) }
    }

    func finish(session s: Int) {
        var waiters: [CheckedContinuation<PulseEvent?, Never>] = []
        let producer: CheckedContinuation<Void, Never>? = locked {
            guard session == s, open else { return nil }
            open = false
            backlog.removeAll()
            for id in subscribers.keys where subscribers[id]!.session == s {
                subscribers[id]!.ended = true
                if let w = subscribers[id]!.waiter {
                    subscribers[id]!.waiter = nil
                    waiters.append(w)
                }
            }
            let p = self.producer
            self.producer = nil
            return p
        }
        for w in waiters { w.resume(returning: nil) }
        producer?.resume()
    }

    /// Delivers `event` of session `s` to its subscribers (nothing once another session has begun or
    /// it has finished); waits while one of them is full.
    func send(_ event: PulseEvent, session s: Int) async {
        var resumes: [(CheckedContinuation<PulseEvent?, Never>, PulseEvent)] = []
        let mustWait: Bool = locked {
            guard open, session == s else { return false }
            var any = false
            var full = false
            for id in subscribers.keys where subscribers[id]!.session == session && !subscribers[id]!.ended {
                any = true
                if let w = subscribers[id]!.waiter {
                    subscribers[id]!.waiter = nil
                    resumes.append((w, event))
                } else {
                    subscribers[id]!.queue.push(event)
                    if subscribers[id]!.queue.count >= capacity { full = true }
                }
            }
            if !any { backlog.append(event) }
            return full
        }
        for (w, e) in resumes { w.resume(returning: e) }
        guard mustWait else { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let proceed: Bool = locked {
                if !open || session != s || !anyFull() { return true }
                producer = c
                return false
            }
            if proceed { c.resume() }
        }
    }

    /// The subscriber's next event; nil when its session has ended and its queue is empty, or when
    /// the calling task is cancelled.
    func next(subscriber id: Int) async -> PulseEvent? {
        enum Step { case event(PulseEvent, CheckedContinuation<Void, Never>?), end(CheckedContinuation<Void, Never>?), wait }
        func step() -> Step {
            // A cancelled consumer gets no more events, even while its queue holds some (a consumer
            // slower than the source never finds it empty); leaving may free the waiting producer.
            guard var s = subscribers[id], !s.cancelled, !Task.isCancelled else {
                subscribers[id] = nil
                return .end(takeProducerIfRoom())
            }
            if let e = s.queue.pop() {
                subscribers[id] = s
                return .event(e, takeProducerIfRoom())
            }
            if s.ended {
                subscribers[id] = nil
                return .end(nil)
            }
            return .wait
        }
        switch locked(step) {
        case .event(let e, let p):
            p?.resume()
            return e
        case .end(let p):
            p?.resume()
            return nil
        case .wait:
            break
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<PulseEvent?, Never>) in
                let immediate: Step = locked {
                    if Task.isCancelled { subscribers[id]?.cancelled = true }
                    let st = step()
                    if case .wait = st { subscribers[id]!.waiter = c }
                    return st
                }
                switch immediate {
                case .event(let e, let p):
                    p?.resume()
                    c.resume(returning: e)
                case .end(let p):
                    p?.resume()
                    c.resume(returning: nil)
                case .wait:
                    break
                }
            }
        } onCancel: {
            let (w, p): (CheckedContinuation<PulseEvent?, Never>?, CheckedContinuation<Void, Never>?) = locked {
                subscribers[id]?.cancelled = true
                let w = subscribers[id]?.waiter
                subscribers[id]?.waiter = nil
                if w != nil { subscribers[id] = nil }
                return (w, takeProducerIfRoom())
            }
            w?.resume(returning: nil)
            p?.resume()
        }
    }

    /// Whether a subscriber of the open session is at capacity. Call with the lock held.
    private func anyFull() -> Bool {
        subscribers.values.contains {
            $0.session == session && !$0.ended && !$0.cancelled && $0.queue.count >= capacity
        }
    }

    /// The waiting producer, if no subscriber is full any more. Call with the lock held.
    private func takeProducerIfRoom() -> CheckedContinuation<Void, Never>? {
        guard producer != nil, !anyFull() else { return nil }
        defer { producer = nil }
        return producer
    }
}

/// A first-in-first-out queue of events (storage reused; bounded by the hub's back-pressure).
struct EventQueue {
    private var items: [PulseEvent] = []
    private var head = 0

    var count: Int { items.count - head }

    mutating func push(_ e: PulseEvent) { items.append(e) }

    mutating func pop() -> PulseEvent? {
        guard head < items.count else { return nil }
        let e = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return e
    }
}

/// Auto-scales a waveform for drawing, like the seed's wave view: keeps the most recent values and
/// maps them to 0...1 from the window's own range, so a weak pulse fills the view and a strong one
/// stays inside it.
///
/// - Complexity: `append` O(1); `range` and `points` O(window).
public struct WaveformScaler: Sendable {
    /// Values kept (e.g. 150 = 5 s at 30 frames per second).
    public let capacity: Int
    /// Fraction of the height left empty above and below the trace, 0..<0.5.
    public let margin: Double
    private var values: RingBuffer<Double>

    /// - Parameters:
    ///   - capacity: how many recent values set the scale (>= 1).
    ///   - margin: fraction of the height kept free at the top and at the bottom, 0..<0.5.
    public init(capacity: Int = 150, margin: Double = 0.05) {
        precondition(capacity >= 1, "the window needs at least one value")
        precondition(margin >= 0 && margin < 0.5, "the margin must be in 0..<0.5")
        self.capacity = capacity
        self.margin = margin
        values = RingBuffer(capacity: capacity)
    }

    /// Adds a value (non-finite values are ignored); the oldest leaves when the window is full.
    public mutating func append(_ value: Double) {
        if value.isFinite { values.append(value) }
    }

    /// Adds a waveform sample's value.
    public mutating func append(_ sample: WaveformSample) { append(sample.value) }

    /// The number of values in the window.
    public var count: Int { values.count }

    /// The lowest and highest value in the window; nil when empty.
    public var range: ClosedRange<Double>? {
        guard var lo = values.first else { return nil }
        var hi = lo
        for v in values {
            lo = min(lo, v)
            hi = max(hi, v)
        }
        return lo...hi
    }

    /// `value` mapped to 0...1 (0 = bottom) by the window's range with the margins; values outside
    /// the range are clamped; 0.5 when the window is empty or flat.
    public func normalized(_ value: Double) -> Double {
        guard let r = range else { return 0.5 }
        return map(value, r)
    }

    /// The window's values, oldest first, mapped to 0...1.
    public var points: [Double] {
        guard let r = range else { return [] }
        return values.map { map($0, r) }
    }

    private func map(_ v: Double, _ r: ClosedRange<Double>) -> Double {
        let span = r.upperBound - r.lowerBound
        guard span > 0, v.isFinite else { return 0.5 }
        let u = (v - r.lowerBound) / span
        return margin + (1 - 2 * margin) * min(1, max(0, u))
    }
}
