import Foundation

/// One impact: a peak of user acceleration (a punch landing, a ball struck, a foot stamp).
public struct ImpactEvent: Sendable, Equatable, Codable {
    /// Seconds, time of the peak.
    public var time: Double
    /// Peak |user acceleration| in g (an accelerometer that clips under-reads it).
    public var peak: Double
    public init(time: Double, peak: Double) {
        self.time = time
        self.peak = peak
    }
}

/// Finds impacts as peaks of |user acceleration| above `threshold`, one per excursion: an impact
/// starts when the magnitude crosses `threshold` and ends when it falls below half of it; no new
/// impact starts within `refractory` of the last peak.
/// - Complexity: O(1) per sample, no allocation.
public struct ImpactDetector: Sendable {
    public struct Parameters: Sendable, Equatable {
        /// Peak user acceleration that makes an impact, g. Default 1.5 g: above arm swings and
        /// walking (under about 1 g at the wrist), below a landed punch (3-10 g).
        public var threshold = 1.5
        /// Minimum time between impacts, s.
        public var refractory = 0.2
        public init(threshold: Double = 1.5, refractory: Double = 0.2) {
            self.threshold = threshold
            self.refractory = refractory
        }
    }

    public let parameters: Parameters
    private var inside = false
    private var peak = 0.0
    private var peakTime = 0.0
    private var lastPeak = -Double.infinity

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Feeds one sample of user acceleration magnitude (g); returns an impact that ended here.
    public mutating func process(time: Double, userAcceleration a: Double) -> ImpactEvent? {
        if inside {
            if a > peak { peak = a; peakTime = time }
            if a < parameters.threshold / 2 {
                inside = false
                lastPeak = peakTime
                return ImpactEvent(time: peakTime, peak: peak)
            }
        } else if a >= parameters.threshold && time - lastPeak >= parameters.refractory {
            inside = true
            peak = a
            peakTime = time
        }
        return nil
    }

    /// Feeds one device-motion sample.
    ///
    /// Inlinable so a batch loop reads only the fields used where the sample lies, rather than
    /// copying the whole 112-byte sample for a call.
    @inlinable
    public mutating func process(_ m: DeviceMotion) -> ImpactEvent? {
        process(time: m.time, userAcceleration: m.userAcceleration.magnitude)
    }

    /// An impact still open at the end of the recording.
    public mutating func finish() -> ImpactEvent? {
        guard inside else { return nil }
        inside = false
        lastPeak = peakTime
        return ImpactEvent(time: peakTime, peak: peak)
    }

    /// Runs over a recording (the same code as `process`).
    @inlinable
    public mutating func process<C: Collection>(_ samples: C) -> [ImpactEvent] where C.Element == DeviceMotion {
        var out: [ImpactEvent] = []
        for m in samples { if let e = process(m) { out.append(e) } }
        if let e = finish() { out.append(e) }
        return out
    }
}
