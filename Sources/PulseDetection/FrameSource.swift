import Foundation
import SignalProcessing

/// Why a ``HeartRateMonitor`` (or a ``FrameSource``) could not start or had to stop: a code a caller
/// can switch on and a message a person can act on.
public struct MonitorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// The device has no camera that can be used (or it is in use by another app).
        case noCamera
        /// The camera has no torch (flash) to light the fingertip.
        case noTorch
        /// The user has not granted access to the camera.
        case permissionDenied
        /// The capture session or device could not be configured as needed.
        case configurationFailed
        /// `start` was called while the monitor was already running.
        case alreadyRunning
        /// The frame source failed: it could not start, produced an unusable rate, or threw while running.
        case sourceFailed
    }

    public var code: Code
    /// A sentence for a person: what failed and, where possible, what to do.
    public var message: String

    /// - Parameters:
    ///   - code: what went wrong.
    ///   - message: a sentence for a person.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// A source of pulse inputs: the iPhone camera (frames reduced to mean colours), a video file, a
/// recording of colour means or of a PPG signal, a simulated finger.
///
/// A source is started once per measurement; `start()` returns the inputs in time order as an
/// asynchronous stream that finishes when the source runs out or is stopped, and throws if the source
/// fails while running. Consumers pull: a recording never runs ahead of the pipeline, and a live source
/// (the camera) drops frames by its own buffering policy when the pipeline falls behind. Cancelling
/// the task that iterates the stream ends it.
///
/// Conformers must be `Sendable` (use a lock or an actor for mutable state) so that a monitor can start
/// and stop them from any task.
public protocol FrameSource: Sendable {
    /// The nominal rate of the inputs, Hz: the camera's configured frame rate, a recording's sample
    /// rate. The pipeline puts inputs on a uniform grid at this rate; it must lie in 5 Hz...10 kHz.
    /// Read after `start()` returns (a camera may only know it once configured).
    var nominalRate: Double { get }

    /// Starts the source.
    ///
    /// - Returns: the inputs, in time order (times in seconds, increasing).
    /// - Throws: a ``MonitorError`` with code `noCamera`, `noTorch`, `permissionDenied` or
    ///   `configurationFailed` for capture hardware, or `sourceFailed`; any other error is reported by
    ///   the monitor as `sourceFailed` with the error's description.
    func start() async throws -> AsyncThrowingStream<PulseInput, any Error>

    /// Stops producing inputs: the stream returned by the latest `start()` finishes. Stopping a source
    /// that is not running does nothing.
    func stop() async
}

/// A recording as a frame source: colour means of fingertip frames, or samples of a PPG signal.
///
/// Inputs are delivered as fast as the consumer pulls them (no pacing to the recording's clock), so a
/// recording analysed by a ``HeartRateMonitor`` gives the same events as ``PulseAnalysis/run(_:sampleRate:settings:observe:)``.
public struct RecordingSource: FrameSource {
    /// The recorded inputs, in time order.
    public let inputs: [PulseInput]
    /// Hz: as given, or 1 / the median interval between inputs (0 when there are fewer than two).
    public let nominalRate: Double
    private let current = Protected<PullRun<IndexingIterator<[PulseInput]>>?>(nil)

    /// A recording of any inputs.
    /// - Parameters:
    ///   - inputs: the inputs in time order (times in seconds).
    ///   - nominalRate: the recording's sample rate, Hz; nil estimates it from the timestamps.
    public init(inputs: [PulseInput], nominalRate: Double? = nil) {
        self.inputs = inputs
        self.nominalRate = nominalRate ?? RecordingSource.estimatedRate(inputs.map(\.time))
    }

    /// A recording of fingertip colour means.
    /// - Parameters:
    ///   - colors: one ``ColorSample`` per frame, in time order.
    ///   - nominalRate: the frame rate, Hz; nil estimates it from the timestamps.
    public init(colors: [ColorSample], nominalRate: Double? = nil) {
        self.init(inputs: colors.map { .color($0) }, nominalRate: nominalRate)
    }

    /// A recording of a raw PPG signal.
    /// - Parameters:
    ///   - ppg: `(time in seconds, value)` pairs in time order; larger values = more blood.
    ///   - nominalRate: the sample rate, Hz; nil estimates it from the timestamps.
    public init(ppg: [(time: Double, value: Double)], nominalRate: Double? = nil) {
        self.init(inputs: ppg.map { .ppg(time: $0.time, value: $0.value) }, nominalRate: nominalRate)
    }

    /// - Throws: ``MonitorError`` `sourceFailed` when the recording has fewer than two inputs.
    public func start() async throws -> AsyncThrowingStream<PulseInput, any Error> {
        guard inputs.count >= 2 else {
            throw MonitorError(.sourceFailed, "the recording has \(inputs.count) input(s); at least two are needed")
        }
        let run = PullRun(inputs.makeIterator()) { $0.next() }
        current.withLock { $0 = run }
        return run.stream()
    }

    public func stop() async {
        current.withLock { $0?.stop() }
    }

    /// 1 / median interval of increasing `times`, Hz; 0 when no interval is positive.
    static func estimatedRate(_ times: [Double]) -> Double {
        guard times.count >= 2 else { return 0 }
        var intervals: [Double] = []
        intervals.reserveCapacity(times.count - 1)
        for i in 1..<times.count where times[i] > times[i - 1] { intervals.append(times[i] - times[i - 1]) }
        guard !intervals.isEmpty else { return 0 }
        return 1 / Statistics.median(intervals)
    }
}

/// A ``SimulatedFinger`` as a frame source: generates its frames lazily (memory does not grow with the
/// duration), as fast as the consumer pulls them.
public struct SimulatedFingerSource: FrameSource {
    /// The simulated finger's settings (seeded: every start produces the same frames).
    public let settings: SimulatedFinger.Settings
    /// Seconds of simulated input; nil runs until stopped.
    public let duration: Double?
    private let current = Protected<PullRun<SimulatedFinger>?>(nil)

    /// - Parameters:
    ///   - settings: the simulated finger (its seed makes every start produce the same frames).
    ///   - duration: seconds of input; nil runs until `stop()` or until the consuming task is cancelled.
    public init(settings: SimulatedFinger.Settings = .init(), duration: Double? = nil) {
        self.settings = settings
        self.duration = duration
    }

    /// The simulated camera's frame rate, Hz.
    public var nominalRate: Double { settings.frameRate }

    /// - Throws: ``MonitorError`` `sourceFailed` for settings the simulated finger cannot work with
    ///   (see ``SimulatedFinger/init(settings:)``), instead of stopping on its precondition.
    public func start() async throws -> AsyncThrowingStream<PulseInput, any Error> {
        if let problem = SimulatedFinger.problem(with: settings) {
            throw MonitorError(.sourceFailed, "the simulated finger cannot start: " + problem)
        }
        let end = duration ?? .infinity
        let run = PullRun(SimulatedFinger(settings: settings)) { finger -> PulseInput? in
            let input = finger.next()
            return input.time < end ? input : nil
        }
        current.withLock { $0 = run }
        return run.stream()
    }

    public func stop() async {
        current.withLock { $0?.stop() }
    }
}

/// A value protected by a lock, for the small shared state of sources and the monitor's event hub.
final class Protected<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// One run of a pull-based source: a generator stepped under a lock until it runs out or is stopped.
final class PullRun<Generator: Sendable>: @unchecked Sendable {
    private var generator: Generator
    private var stopped = false
    private let step: @Sendable (inout Generator) -> PulseInput?
    private let lock = NSLock()

    init(_ generator: Generator, step: @escaping @Sendable (inout Generator) -> PulseInput?) {
        self.generator = generator
        self.step = step
    }

    func next() -> PulseInput? {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return nil }
        guard let input = step(&generator) else {
            stopped = true
            return nil
        }
        return input
    }

    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    /// The inputs as a stream; the stream ends when the generator runs out, the run is stopped or the
    /// iterating task is cancelled.
    func stream() -> AsyncThrowingStream<PulseInput, any Error> {
        AsyncThrowingStream(unfolding: { [self] in
            if Task.isCancelled { return nil }
            return next()
        })
    }
}
