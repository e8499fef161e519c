import PulseDetection

/// The inputs a dashboard feeds to the pipeline, in time order: a recording (once, or looped with
/// each pass's times after the last's, so the pipeline sees one stream whose clock keeps going) or a
/// simulated finger (endless), stopped after `limit` seconds of input if one is given.
public struct LiveInputs: IteratorProtocol, Sendable {
    private enum Source: Sendable {
        case recording(inputs: [PulseInput], period: Double, loop: Bool)
        case simulated(SimulatedFinger)
    }

    private var source: Source
    private let limit: Double?
    private var index = 0
    private var offset = 0.0
    private var firstTime: Double?

    /// A recording's inputs.
    /// - Parameters:
    ///   - inputs: in time order.
    ///   - period: seconds from the first input of one pass to the first of the next when looping
    ///     (the recording's covered duration: its span plus one sampling interval).
    ///   - loop: play the recording again when it ends, for ever (or until `limit`).
    ///   - limit: seconds of input after which the inputs end; nil for no limit.
    public init(recording inputs: [PulseInput], period: Double, loop: Bool, limit: Double? = nil) {
        // A loop over nothing, or with no length, would never advance.
        source = .recording(inputs: inputs, period: period, loop: loop && !inputs.isEmpty && period > 0)
        self.limit = limit
    }

    /// A simulated finger's frames, endless unless `limit` seconds are given.
    public init(simulated settings: SimulatedFinger.Settings, limit: Double? = nil) {
        source = .simulated(SimulatedFinger(settings: settings))
        self.limit = limit
    }

    /// The next input, or nil when the recording (or the limit) is reached.
    public mutating func next() -> PulseInput? {
        let input: PulseInput
        switch source {
        case .simulated(var finger):
            input = finger.next()
            source = .simulated(finger)
        case .recording(let inputs, let period, let loop):
            if index == inputs.count {
                guard loop else { return nil }
                index = 0
                offset += period
            }
            input = inputs[index].shifted(by: offset)
            index += 1
        }
        let first = firstTime ?? input.time
        firstTime = first
        if let limit, input.time - first >= limit { return nil }
        return input
    }
}

extension PulseInput {
    /// The same input `seconds` later.
    func shifted(by seconds: Double) -> PulseInput {
        guard seconds != 0 else { return self }
        switch self {
        case .color(var c):
            c.time += seconds
            return .color(c)
        case .ppg(let t, let v):
            return .ppg(time: t + seconds, value: v)
        }
    }
}

/// When each input is due on the wall clock at a replay speed: input time t is due
/// (t - t₀) / speed seconds after the first input's wall time.
///
/// If the feeder falls more than ``maximumLag`` behind (a busy machine, a suspended laptop), the
/// schedule starts again from the late input instead of sending the backlog in a burst.
public struct ReplayPacer: Sendable {
    /// Input seconds per wall-clock second.
    public let speed: Double
    /// Wall-clock seconds an input may be late before the schedule is re-anchored.
    public static let maximumLag = 1.0
    private var origin: (input: Double, wall: Double)?

    /// - Parameter speed: input seconds per wall-clock second (positive).
    public init(speed: Double) {
        precondition(speed > 0, "speed must be positive")
        self.speed = speed
    }

    /// Wall-clock seconds from `now` until the input at `inputTime` is due: positive to wait, zero
    /// when due. `now` is any monotonic clock's reading in seconds. An input time (or a reading)
    /// that is not a finite number is due at once and leaves the schedule as it was: the pipeline
    /// skips such an input.
    public mutating func delay(until inputTime: Double, now: Double) -> Double {
        guard inputTime.isFinite, now.isFinite else { return 0 }
        guard let origin else {
            origin = (inputTime, now)
            return 0
        }
        let due = origin.wall + (inputTime - origin.input) / speed
        if now - due > Self.maximumLag {
            self.origin = (inputTime, now)
            return 0
        }
        return max(0, due - now)
    }
}
