/// Decides, frame by frame, whether a fingertip covers the lens with the torch on.
///
/// A covered, torch-lit lens shows a bright, strongly red image: the red mean is high and well above
/// green and blue (blood absorbs them), and the frame changes slowly. An uncovered lens shows the
/// scene: not red-dominant, or dark, or changing fast. The decision uses hysteresis: contact is found
/// after `onsetSeconds` of covered frames and lost after `releaseSeconds` of uncovered ones, so a
/// single odd frame neither starts nor stops a measurement.
public struct ContactDetector: Sendable {
    /// Settings, with defaults from the physiology of torch-lit tissue (see each).
    public struct Settings: Sendable {
        /// Minimum red mean (0...255) for a torch-lit fingertip. Skin under a phone torch reads well
        /// above mid-scale; a dark room without torch reads far below.
        public var minimumRed: Double = 90
        /// Red must exceed both green and blue by this factor: blood absorbs green and blue strongly.
        public var redDominance: Double = 1.6
        /// Seconds of covered frames before contact is reported.
        public var onsetSeconds: Double = 0.3
        /// Seconds of uncovered frames before loss is reported.
        public var releaseSeconds: Double = 0.25
        /// Relative change of the red mean between consecutive frames above which the frame is
        /// treated as uncovered (a finger sliding off, the scene moving): 25 % in one frame.
        public var maximumJump: Double = 0.25
        public init() {}
    }

    public var settings: Settings
    /// Whether contact is currently reported.
    public private(set) var inContact = false
    private var candidateSince: Double?
    private var previousRed: Double?

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Whether a single frame looks like a covered lens.
    public func frameLooksCovered(_ c: ColorSample, previousRed: Double?) -> Bool {
        guard c.red >= settings.minimumRed,
              c.red >= settings.redDominance * c.green,
              c.red >= settings.redDominance * c.blue else { return false }
        if let p = previousRed, p > 0, abs(c.red - p) / p > settings.maximumJump { return false }
        return true
    }

    /// Feeds one frame; returns the contact event it causes, if any. The event's time is the time of
    /// the first frame of the new state (when it happened, not when it was confirmed).
    public mutating func process(_ c: ColorSample) -> PulseEvent? {
        let covered = frameLooksCovered(c, previousRed: previousRed)
        previousRed = c.red
        if covered == inContact {
            candidateSince = nil
            return nil
        }
        let since = candidateSince ?? c.time
        candidateSince = since
        let needed = inContact ? settings.releaseSeconds : settings.onsetSeconds
        guard c.time - since >= needed else { return nil }
        inContact = covered
        candidateSince = nil
        return covered ? .contactFound(time: since) : .contactLost(time: since)
    }

    /// Forgets all state (a new measurement).
    public mutating func reset() {
        inContact = false
        candidateSince = nil
        previousRed = nil
    }
}
