/// Steps, pauses and resumes from a raw accelerometer (g, gravity included), in any carrying position.
///
/// A value-type state machine: feed samples in time order with `process(_:)`; each call returns the
/// events that became known at that sample (often none). Steps are confirmed with a short delay
/// (about one step period; the first steps of a walk together, once the walk is certain), and carry the
/// time the foot landed. Pause and resume events carry the time of the last and first step; their
/// `reportedAt` is the time of the sample that triggered them. `detect(_:)` runs the same code over a
/// whole recording.
///
/// ```swift
/// var detector = StepDetector()
/// for sample in samples {
///     for event in detector.process(sample) where event.kind == .pause { print("stopped at", event.time) }
/// }
/// let tail = detector.finish()
/// ```
///
/// - Complexity: O(1) amortised per sample, constant memory (a few kilobytes, whatever the length).
public struct StepDetector: Sendable {
    /// Delay between a heel strike and the peak of the band-passed magnitude, seconds: the median
    /// offset on IPOL subjects 1–9 (lower back), the same (0.09 s) on subjects 10–19. Subtracted from
    /// every event time.
    public static let contactDelay = 0.09

    private var signal = GaitSignal()
    private var counter = StepCounter()
    private var activity = ActivityDetector()
    private var output: [PedometerEvent] = []
    private var finished = false

    public init() {
        output.reserveCapacity(16)
    }

    /// True while the detector believes the user is walking (between a resume and a pause).
    public var isWalking: Bool { activity.isWalking }

    /// Current step period estimate in seconds (meaningful while walking).
    public var stepPeriod: Double { signal.currentPeriod }

    /// Processes one accelerometer sample.
    /// - Parameters:
    ///   - time: seconds, increasing.
    ///   - acceleration: acceleration in g including gravity (any device orientation).
    /// - Returns: the events that became known at this sample, steps in time order.
    public mutating func process(time: Double, acceleration: Vector3) -> [PedometerEvent] {
        output.removeAll(keepingCapacity: true)
        push(time: time, acceleration: acceleration)
        return output
    }

    /// Processes one accelerometer sample (see `process(time:acceleration:)`).
    public mutating func process(_ sample: AccelerometerSample) -> [PedometerEvent] {
        process(time: sample.time, acceleration: sample.acceleration)
    }

    /// Processes a run of samples in time order (a chunk of a stream); same events as one call per sample.
    public mutating func process(contentsOf samples: some Sequence<AccelerometerSample>) -> [PedometerEvent] {
        var all: [PedometerEvent] = []
        for s in samples {
            output.removeAll(keepingCapacity: true)
            push(time: s.time, acceleration: s.acceleration)
            if !output.isEmpty { all.append(contentsOf: output) }
        }
        return all
    }

    /// Ends the recording: completes the last grid bin and takes the step of the open window, if any.
    /// Does not report a pause (the recording ending is not the user stopping).
    public mutating func finish() -> [PedometerEvent] {
        output.removeAll(keepingCapacity: true)
        guard !finished else { return output }
        finished = true
        var lastTime = 0.0
        if let done = signal.flush() {
            lastTime = run(done)
        }
        let delay = StepDetector.contactDelay
        var events = output
        output = []
        counter.finish(period: signal.period) { t in
            events.append(PedometerEvent(kind: .step, time: t - delay, reportedAt: lastTime))
        }
        output = events
        return output
    }

    /// Runs the detector over a whole recording (the same code as streaming) and finishes it.
    /// - Parameter samples: accelerometer samples in time order.
    /// - Returns: every event, in the order the streaming detector reports them.
    public static func detect(_ samples: some Sequence<AccelerometerSample>) -> [PedometerEvent] {
        var d = StepDetector()
        var all: [PedometerEvent] = []
        for s in samples { all.append(contentsOf: d.process(s)) }
        all.append(contentsOf: d.finish())
        return all
    }

    /// Runs the detector over parallel arrays of times (s) and accelerations (g), allocation-free per sample.
    public static func detect(times: [Double], accelerations: [Vector3]) -> [PedometerEvent] {
        precondition(times.count == accelerations.count, "one time per acceleration")
        var d = StepDetector()
        var all: [PedometerEvent] = []
        times.withUnsafeBufferPointer { t in
            accelerations.withUnsafeBufferPointer { a in
                guard let tp = t.baseAddress, let ap = a.baseAddress else { return }
                var i = 0
                while i < t.count {
                    let (done, next) = d.signal.bin(times: tp, accelerations: ap, from: i, to: t.count)
                    i = next
                    guard let done else { continue }
                    d.run(done, reportedAt: tp[next - 1])
                    if !d.output.isEmpty {
                        all.append(contentsOf: d.output)
                        d.output.removeAll(keepingCapacity: true)
                    }
                }
            }
        }
        all.append(contentsOf: d.finish())
        return all
    }

    private mutating func push(time: Double, acceleration: Vector3) {
        if let done = signal.bin(time: time, acceleration: acceleration) {
            run(done, reportedAt: time)
        }
    }

    /// Runs a finished bin; what it reveals is known at `time`, the sample that finished it, not at
    /// the bin's grid times (up to a bin before it, or inside a gap the grid filled: a pause dated
    /// in a 3-s gap was stamped as reported 1.6 s before the samples came back).
    private mutating func run(_ done: GaitSignal.FinishedBin, reportedAt time: Double) {
        let before = output.count
        _ = run(done)
        for k in before..<output.count where output[k].reportedAt < time { output[k].reportedAt = time }
    }

    /// Runs the grid samples of one finished bin through every stage; returns the last grid time.
    private mutating func run(_ done: GaitSignal.FinishedBin) -> Double {
        var now = 0.0
        for j in 0..<done.count {
            let (t, candidate) = signal.step(value: done.value, vector: done.vector, bin: done.first + j, origin: done.origin)
            now = t
            tick(now: t, candidate: candidate)
        }
        return now
    }

    private mutating func tick(now: Double, candidate: StepCandidate?) {
        let delay = StepDetector.contactDelay
        var events = output
        output = []
        counter.tick(now: now, candidate: candidate, signal: &signal) { t in
            events.append(PedometerEvent(kind: .step, time: t - delay, reportedAt: now))
        }
        activity.tick(now: now, candidate: candidate, stableSince: now - signal.stableDuration,
                       signal: &signal) { kind, t in
            events.append(PedometerEvent(kind: kind, time: t - delay, reportedAt: now))
        }
        output = events
    }
}
