import Foundation

/// An event a workout session reports.
public enum WorkoutEvent: Sendable, Equatable {
    case started(time: Double)
    case paused(time: Double)
    case resumed(time: Double)
    case stopped(time: Double)
    case swing(SwingEvent)
    case impact(ImpactEvent)
    case repSet(RepSet)
}

/// Statistics of one active stretch of a workout (between start/resume and pause/stop).
public struct WorkoutSegment: Sendable, Equatable, Codable {
    /// Seconds.
    public var start: Double
    public var end: Double
    public var samples: Int
    /// Mean |user acceleration|, g.
    public var meanUserAcceleration: Double
    /// Peak |rotation rate|, rad/s.
    public var peakRotationRate: Double
    public var swings: Int
    public var impacts: Int
    public var duration: Double { end - start }
}

/// A workout as a value-type state machine: start / pause / resume / stop with times from the
/// caller, device motion fed in while running, detectors' events out. Active time excludes pauses.
/// On Apple platforms `VitalsApple` drives it from `CMMotionManager` and `HKWorkoutSession`.
public struct WorkoutSession: Sendable {
    public enum State: String, Sendable { case idle, running, paused, ended }

    /// What went wrong with a command; `code` names it for programs.
    public struct TransitionError: Error, Equatable, CustomStringConvertible {
        public var code: String
        public var description: String
    }

    public private(set) var state = State.idle
    public private(set) var segments: [WorkoutSegment] = []
    private var swings: StrokeDetector
    private var impacts: ImpactDetector
    private var reps: RepCounter
    private var current: WorkoutSegment?
    private var userSum = 0.0

    /// - Parameters:
    ///   - sampleRate: device-motion rate in Hz (for the rep counter's windows).
    ///   - wrist: the wrist the device is on (forehand or backhand).
    ///   - strokes: the stroke detector's parameters.
    ///   - impacts: the impact detector's parameters.
    ///   - reps: the rep counter's parameters.
    /// - Precondition: `sampleRate` and `reps` are ones ``RepCounter/init(sampleRate:parameters:)``
    ///   takes, and `strokes` ones ``StrokeDetector/init(parameters:wrist:)`` takes.
    public init(sampleRate: Double, wrist: Wrist = .right, strokes: StrokeDetector.Parameters = .init(),
                impacts: ImpactDetector.Parameters = .init(), reps: RepCounter.Parameters = .init()) {
        self.swings = StrokeDetector(parameters: strokes, wrist: wrist)
        self.impacts = ImpactDetector(parameters: impacts)
        self.reps = RepCounter(sampleRate: sampleRate, parameters: reps)
    }

    /// Seconds spent running, pauses excluded.
    public var activeTime: Double { segments.reduce(0) { $0 + $1.duration } + (current?.duration ?? 0) }

    /// The time of the latest command (start, pause, resume), seconds.
    private var lastCommand = -Double.infinity

    /// Refuses a command's `time` that is not a finite number or is before the previous command's
    /// (code `invalidTime`): it would make a segment's duration NaN or negative.
    private mutating func accept(_ command: String, at time: Double) throws {
        guard time.isFinite, time >= lastCommand else {
            throw TransitionError(code: "invalidTime", description: time.isFinite
                ? "\(command): \(time) s is before the previous command's \(lastCommand) s"
                : "\(command): the time \(time) is not a number of seconds")
        }
        lastCommand = time
    }

    /// Starts the session at `time` (seconds, a finite number).
    /// - Throws: `TransitionError` `alreadyStarted` unless idle; `invalidTime` for a time that is
    ///   not a finite number.
    public mutating func start(at time: Double) throws -> WorkoutEvent {
        guard state == .idle else { throw TransitionError(code: "alreadyStarted", description: "start: the session is \(state.rawValue)") }
        try accept("start", at: time)
        state = .running
        openSegment(time)
        return .started(time: time)
    }

    /// Pauses the session at `time`.
    /// - Throws: `TransitionError` `notRunning`; `invalidTime` for a time that is not a finite
    ///   number or is before the previous command's.
    public mutating func pause(at time: Double) throws -> [WorkoutEvent] {
        guard state == .running else { throw TransitionError(code: "notRunning", description: "pause: the session is \(state.rawValue)") }
        try accept("pause", at: time)
        state = .paused
        return closeSegment(time) + [.paused(time: time)]
    }

    /// Resumes the session at `time`.
    /// - Throws: `TransitionError` `notPaused`; `invalidTime` for a time that is not a finite
    ///   number or is before the previous command's.
    public mutating func resume(at time: Double) throws -> WorkoutEvent {
        guard state == .paused else { throw TransitionError(code: "notPaused", description: "resume: the session is \(state.rawValue)") }
        try accept("resume", at: time)
        state = .running
        openSegment(time)
        return .resumed(time: time)
    }

    /// Stops the session at `time`.
    /// - Throws: `TransitionError` `notStarted`; `invalidTime` for a time that is not a finite
    ///   number or is before the previous command's.
    public mutating func stop(at time: Double) throws -> [WorkoutEvent] {
        guard state == .running || state == .paused else {
            throw TransitionError(code: "notStarted", description: "stop: the session is \(state.rawValue)")
        }
        try accept("stop", at: time)
        let closing = state == .running ? closeSegment(time) : []
        state = .ended
        return closing + [.stopped(time: time)]
    }

    /// Feeds one device-motion sample; ignored unless running. A sample's time extends the segment
    /// only forward (one that is not a number, or earlier, leaves its end where it was).
    public mutating func process(_ m: DeviceMotion) -> [WorkoutEvent] {
        guard state == .running, var seg = current else { return [] }
        var out: [WorkoutEvent] = []
        if m.time.isFinite && m.time > seg.end { seg.end = m.time }
        seg.samples += 1
        userSum += m.userAcceleration.magnitude
        seg.meanUserAcceleration = userSum / Double(seg.samples)
        seg.peakRotationRate = max(seg.peakRotationRate, m.rotationRate.magnitude)
        if let s = swings.process(m) { seg.swings += 1; out.append(.swing(s)) }
        if let i = impacts.process(m) { seg.impacts += 1; out.append(.impact(i)) }
        if let r = reps.process(m) { out.append(.repSet(r)) }
        current = seg
        return out
    }

    private mutating func openSegment(_ time: Double) {
        current = WorkoutSegment(start: time, end: time, samples: 0, meanUserAcceleration: 0, peakRotationRate: 0, swings: 0, impacts: 0)
        userSum = 0
        swings.restart()
    }

    private mutating func closeSegment(_ time: Double) -> [WorkoutEvent] {
        guard var seg = current else { return [] }
        var out: [WorkoutEvent] = []
        if let s = swings.finish() { seg.swings += 1; out.append(.swing(s)) }
        if let i = impacts.finish() { seg.impacts += 1; out.append(.impact(i)) }
        if let r = reps.finish() { out.append(.repSet(r)) }
        seg.end = max(seg.end, time)
        segments.append(seg)
        current = nil
        return out
    }
}
