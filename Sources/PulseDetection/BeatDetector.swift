import SignalProcessing

/// Finds heartbeats in real time in a band-passed pulse waveform (larger = more blood).
///
/// Each beat is timed at the steepest point of its systolic upstroke (the maximum of the first
/// difference, refined by a parabola through its neighbours): a fiducial point far less disturbed by
/// the dicrotic wave and by filtering than the pulse peak, so intervals between beats are precise.
///
/// Candidate upstrokes are held for a short decision delay; a steeper candidate arriving within that
/// time replaces the held one (a dicrotic wave or noise wiggle loses to the true upstroke). A held
/// candidate becomes a beat when it is at least `minimumStrength` times the typical recent upstroke
/// and at least `refractoryFraction` of the expected period after the previous beat.
///
/// The expected period comes from the rate tracker through `expectedPeriod`; before that, a
/// conservative default is used.
///
/// Standing alone it is a greedy real-time detector. ``PulseAnalyzer`` uses it as the candidate
/// stage: every upstroke it sees (``candidate``, scaled by the detector's own ``typical``) goes to
/// ``BeatTracker``, which chooses the beats among them by dynamic programming; the detector's own
/// decisions only keep ``typical`` current.
public struct BeatDetector: Sendable {
    public struct Settings: Sendable {
        /// Decision delay as a fraction of the expected period, capped by `maximumDelay`.
        public var delayFraction: Double = 0.35
        /// Upper bound of the decision delay, seconds (beat events must follow the pulse quickly).
        public var maximumDelay: Double = 0.22
        /// Minimum time between beats as a fraction of the expected period.
        public var refractoryFraction: Double = 0.5
        /// Minimum upstroke steepness relative to the median of recent beats.
        public var minimumStrength: Double = 0.3
        /// How many recent beats set the typical steepness.
        public var strengthMemory: Int = 8
        /// Slope maxima this soon after a (re)start are not upstrokes: the band-pass filter starts
        /// from rest while the signal is already moving, and its output needs about the rise time
        /// of its 5-Hz edge (~0.1 s) to follow (a103l's first "beat" sat 7.5 ms into the file).
        public var startupSeconds: Double = 0.1
        public init() {}
    }

    public var settings: Settings
    /// Sample rate of the waveform, Hz.
    public let rate: Double
    /// Expected beat period, seconds; set from the rate tracker.
    public var expectedPeriod: Double = 0.6

    private var index = 0
    private var d1 = 0.0  // first difference at index - 1
    private var d2 = 0.0  // first difference at index - 2
    private var previous = 0.0
    private var primed = 0
    /// Time of the stretch's first sample.
    private var startTime = 0.0
    private var held: (time: Double, slope: Double)?
    private var lastBeatTime: Double?
    private var strengths: SortedRing
    /// The upstroke found at the latest sample, if any: every local maximum of the slope, before any
    /// decision (input to ``BeatTracker``). Strength is relative to the typical recent beat (1 before
    /// the first); `slope` is the steepness itself (waveform units per sample).
    public private(set) var candidate: (time: Double, strength: Double, slope: Double)?
    /// Median steepness of recent beats (waveform units per sample), once a beat is known.
    public private(set) var typical: Double?

    /// - Precondition: `settings.strengthMemory` is 1...1000 (it sizes the window of recent beats).
    public init(rate: Double, settings: Settings = Settings()) {
        precondition(settings.strengthMemory >= 1 && settings.strengthMemory <= 1000,
                     "BeatDetector: strengthMemory must be 1...1000 beats (got \(settings.strengthMemory))")
        self.rate = rate
        self.settings = settings
        strengths = SortedRing(capacity: settings.strengthMemory)
    }

    /// Forgets all state (a new stretch of signal).
    public mutating func reset() {
        primed = 0
        held = nil
        lastBeatTime = nil
        strengths.removeAll()
        typical = nil
        candidate = nil
    }

    /// Feeds one waveform sample at time `time` (seconds); returns a beat when one is decided.
    @inline(__always)
    public mutating func process(time: Double, value: Double) -> Beat? {
        let d0 = value - previous
        previous = value
        defer {
            d2 = d1
            d1 = d0
        }
        candidate = nil
        // The first sample has no previous one: its difference is not a slope, so a slope maximum
        // needs three real differences (d2, d1, d0), i.e. four samples. Counted up to 4 only (all
        // it is read for), so the steady state tests it once.
        if primed < 4 {
            primed += 1
            if primed == 1 { startTime = time }
            guard primed >= 4 else { return nil }
        }
        var decided: Beat?
        // The decision delay is worked out only while a candidate is held (most samples hold none).
        if let h = held, time - h.time >= min(settings.maximumDelay, settings.delayFraction * expectedPeriod) {
            decided = decide(h)
            held = nil
        }
        // d1 is a local maximum of the slope: an upstroke's steepest point.
        if d1 > 0, d1 > d2, d1 >= d0 {
            let v = Peaks.parabolicVertex(d2, d1, d0)
            // d1 is centred half a sample before index n - 1, i.e. 1.5 samples before `time`.
            let t = time - (1.5 - max(-0.5, min(0.5, v.offset))) / rate
            guard t >= startTime + settings.startupSeconds else { return decided }
            let slope = v.value
            candidate = (t, typical.map { slope / $0 } ?? 1, slope)
            if let h = held {
                if slope > h.slope { held = (t, slope) }
            } else {
                held = (t, slope)
            }
        }
        return decided
    }

    private mutating func decide(_ h: (time: Double, slope: Double)) -> Beat? {
        if let last = lastBeatTime, h.time - last < settings.refractoryFraction * expectedPeriod {
            return nil
        }
        // Weaker than the typical upstroke allows: not a beat, unless no beat has been taken for
        // two expected periods (then the typical, not the pulse, is what is off: a motion spike among
        // the recent beats can hold it above every upstroke, and only taken beats bring it down).
        if let typical, h.slope < settings.minimumStrength * typical,
           !(lastBeatTime.map { h.time - $0 > 2 * expectedPeriod } ?? false) {
            return nil
        }
        strengths.append(h.slope)
        typical = Statistics.percentile(sorted: strengths.sorted, 50)
        let interval = lastBeatTime.map { h.time - $0 }
        lastBeatTime = h.time
        return Beat(time: h.time, interval: interval, strength: typical.map { h.slope / $0 } ?? 1)
    }
}
