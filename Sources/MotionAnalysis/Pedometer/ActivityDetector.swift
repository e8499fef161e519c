import SignalProcessing

/// Pause and resume: the moment walking stops and starts, reported with little delay.
///
/// Standing, two step-like peaks (at least `startProminence` g, sizes within `startProminenceRatio`
/// of each other, 0.3–1.2 s apart) mean walking has begun: a resume is reported at the second peak,
/// dated at the first. Walking, any peak above `relativeProminence` of the recent steps keeps the walk
/// alive (slow steps in a U-turn count), and a pause is reported once none has come for
/// `stopPeriods` (2.5) step periods, kept within `stopBounds` (1.6–2.0 s); sooner, `quietStopPeriods`
/// (1.8) periods within `quietStopBounds` (0.9–1.2 s), when the body is also still. It is dated at
/// the last step.
///
/// The constants were chosen on the IPOL lower-back trials (55 trials, 19 subjects); see the README.
struct ActivityDetector: Sendable {
    /// A standing user's first steps must be at least this prominent, g.
    static let startProminence = 0.08
    /// The two starting peaks may differ in size by at most this factor.
    static let startProminenceRatio = 3.0
    /// Interval between the two starting peaks, seconds (just over 4 steps/s, the step counter's
    /// fastest (`GaitSignal.lagRange`), down to a slow first step). At 0.3 s a run at 3.8 steps/s
    /// never started a walk: 228 steps with 0.3 s of active time.
    static let startInterval = (min: 0.24, max: 1.2)
    /// Seconds of steady carrying orientation needed before a walk can start.
    static let minimumSteadySpan = 3.0
    /// While walking, a peak keeps the walk alive when at least this fraction of the recent median...
    static let relativeProminence = 0.12
    /// A peak at least this fraction of the recent median is a step (not an echo): pauses are dated at the last one.
    static let stepProminence = 0.5
    /// ...and at least this many g.
    static let minimumProminence = 0.03
    /// Silence that means a stop, in step periods, and its bounds in seconds.
    static let stopPeriods = 2.5
    static let stopBounds = (min: 1.6, max: 2.0)
    /// A shorter silence suffices when the body is also still: the RMS of the band-passed magnitude over
    /// the last `quietWindow` seconds is below `quietLevel` × the recent median step prominence.
    static let quietStopPeriods = 1.8
    static let quietStopBounds = (min: 0.9, max: 1.2)
    static let quietLevel = 0.05
    /// Without a real step (see `stepProminence`) for this long (s), small peaks (sway, shuffling) no
    /// longer keep the walk alive.
    static let strongStepGap = 3.4
    /// Window of the stillness check, seconds.
    static let quietWindow = 0.6

    private(set) var isWalking = false
    private var lastStep: StepCandidate?
    /// The last peak big enough to be a step rather than the echo of one: what a pause is dated at.
    private var lastStrongStep: StepCandidate?
    private var recent = RingBuffer<Double>(capacity: PedometerMedian.maximumCount)

    init() {}

    private mutating func remember(_ prominence: Double) {
        recent.append(prominence)
        cachedMedian = nil
    }

    private var cachedMedian: Double?

    private mutating func recentMedian() -> Double {
        if let m = cachedMedian { return m }
        let m = computeMedian()
        cachedMedian = m
        return m
    }

    private func computeMedian() -> Double {
        PedometerMedian.of(recent)
    }

    /// One grid tick; `emit` receives (kind, time) with time not yet corrected for the filter delay.
    /// `stableSince`: the time since which the carrying orientation has been steady; a walk can only
    /// start inside that span and once it is `minimumSteadySpan` long (handling turns the phone).
    mutating func tick(now: Double, candidate: StepCandidate?, stableSince: Double, signal: inout GaitSignal,
                       emit: (PedometerEvent.Kind, Double) -> Void) {
        if let c = candidate {
            if !isWalking {
                if c.prominence >= ActivityDetector.startProminence {
                    if let l = lastStep {
                        let interval = c.time - l.time
                        let ratio = max(c.prominence, l.prominence) / min(c.prominence, l.prominence)
                        if interval >= ActivityDetector.startInterval.min
                            && l.time >= stableSince && now - stableSince >= ActivityDetector.minimumSteadySpan && interval <= ActivityDetector.startInterval.max
                            && ratio <= ActivityDetector.startProminenceRatio {
                            isWalking = true
                            emit(.resume, l.time)
                            recent.removeAll()
                            cachedMedian = nil
                            remember(l.prominence)
                            remember(c.prominence)
                            lastStrongStep = c
                        }
                    }
                    lastStep = c
                }
            } else if c.prominence >= max(ActivityDetector.minimumProminence,
                                          ActivityDetector.relativeProminence * recentMedian()) {
                if c.prominence >= ActivityDetector.stepProminence * recentMedian() { lastStrongStep = c }
                lastStep = c
                remember(c.prominence)
            }
        }
        if isWalking, let l = lastStep {
            let silence = now - l.time
            let sinceStrong = now - (lastStrongStep?.time ?? l.time)
            // Both silences below are at least `quietStopBounds.min`: until that much has passed (and the
            // strong-step gap has not), no pause can be due and the period is not needed.
            guard silence > ActivityDetector.quietStopBounds.min || sinceStrong > ActivityDetector.strongStepGap else { return }
            let period = signal.period
            let gap = min(ActivityDetector.stopBounds.max, max(ActivityDetector.stopBounds.min, ActivityDetector.stopPeriods * period))
            let quietGap = min(ActivityDetector.quietStopBounds.max, max(ActivityDetector.quietStopBounds.min, ActivityDetector.quietStopPeriods * period))
            if silence > gap || sinceStrong > ActivityDetector.strongStepGap
                || (silence > quietGap && signal.recentRMS(length: Int(ActivityDetector.quietWindow * GaitSignal.rate)) < ActivityDetector.quietLevel * recentMedian()) {
                isWalking = false
                emit(.pause, max(lastStrongStep?.time ?? l.time, l.time - period))
                lastStep = nil
                lastStrongStep = nil
            }
        }
    }
}
