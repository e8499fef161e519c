import SignalProcessing

/// Pause and resume: the moment walking stops and starts, reported with little delay.
///
/// Standing, two step-like peaks (at least `startProminence` g, sizes within `startProminenceRatio`
/// of each other, 0.3–1.2 s apart) mean walking has begun: a resume is reported at the second peak,
/// dated at the first. Walking, any peak above `relativeProminence` of the recent steps keeps the walk
/// alive (slow steps in a U-turn count), and a pause is reported once none has come for
/// `2.5` step periods (kept within 1.2–1.6 s), dated at the last step.
///
/// The constants were chosen on the IPOL lower-back trials (55 trials, 19 subjects); see the README.
struct ActivityDetector: Sendable {
    /// A standing user's first steps must be at least this prominent, g.
    static let startProminence = 0.08
    /// The two starting peaks may differ in size by at most this factor.
    static let startProminenceRatio = 3.0
    /// Interval between the two starting peaks, seconds (4 steps/s down to a slow first step).
    static let startInterval = (min: 0.3, max: 1.2)
    /// Seconds of steady carrying orientation needed before a walk can start.
    static let minimumSteadySpan = 2.0
    /// While walking, a peak keeps the walk alive when at least this fraction of the recent median...
    static let relativeProminence = 0.15
    /// ...and at least this many g.
    static let minimumProminence = 0.03
    /// Silence that means a stop, in step periods, and its bounds in seconds.
    static let stopPeriods = 2.5
    static let stopBounds = (min: 1.2, max: 1.6)

    private(set) var isWalking = false
    private var lastStep: StepCandidate?
    private var recent = RingBuffer<Double>(capacity: 8)
    private var scratch: [Double] = []

    init() { scratch.reserveCapacity(8) }

    private mutating func recentMedian() -> Double {
        scratch.removeAll(keepingCapacity: true)
        for p in recent { scratch.append(p) }
        scratch.sort()
        let n = scratch.count
        guard n > 0 else { return 0 }
        return n % 2 == 1 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2])
    }

    /// One grid tick; `emit` receives (kind, time) with time not yet corrected for the filter delay.
    /// `stableSince`: the time since which the carrying orientation has been steady; a walk can only
    /// start inside that span and once it is `minimumSteadySpan` long (handling turns the phone).
    mutating func tick(now: Double, candidate: StepCandidate?, period: Double, stableSince: Double,
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
                            recent.append(l.prominence)
                            recent.append(c.prominence)
                        }
                    }
                    lastStep = c
                }
            } else if c.prominence >= max(ActivityDetector.minimumProminence,
                                          ActivityDetector.relativeProminence * recentMedian()) {
                lastStep = c
                recent.append(c.prominence)
            }
        }
        if isWalking, let l = lastStep {
            let gap = min(ActivityDetector.stopBounds.max, max(ActivityDetector.stopBounds.min, ActivityDetector.stopPeriods * period))
            if now - l.time > gap {
                isWalking = false
                emit(.pause, l.time)
                lastStep = nil
            }
        }
    }
}
