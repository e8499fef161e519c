import Foundation

/// A racket-stroke detector that keeps SwingWatch's ideas (rotation about gravity tells forehand
/// from backhand with the wrist; a peak rate and an accumulated angle make a swing) and adds what
/// real wrist recordings need (see `vitals eval swings`):
///
/// 1. **One event per stroke**: an event is one fast-rotation episode, anchored at its peak rate
///    |ω| (all axes, so a gyroscope that clips on one axis still shows it), with a refractory time
///    after it, instead of a sliding-window test that can fire on the swing and the follow-through.
/// 2. **Intensity gates against an arm that keeps moving**: the total rotation around the peak
///    (± `window`) must reach `angleThreshold` and the acceleration must peak above
///    `accelerationThreshold` (a stroke drives the wrist hard; gestures and walking do not).
/// 3. **Serves as their own kind**: a serve keeps the wrist rotating fast (|ω| ≥ `serveRate`) for
///    longer (`serveDuration`) than a ground stroke, where the arm whips through once, and the fast
///    rotation builds up for a while before the peak (`serveBuildUp`: the racket drops behind the
///    back and swings up), where a ground stroke's forward swing reaches its peak within about
///    0.15 s; a ground stroke whose fast backswing runs into the forward swing is not a serve.
/// 4. **Forehand/backhand** from the sign of rotation about the device's y axis (across the wrist,
///    in the screen plane) over the forward swing only (`forwardSwing` before the peak to just after
///    it), so the follow-through does not vote. In a ground stroke the forearm is near horizontal and
///    the watch face turns from facing back (forehand) to facing the net (backhand): x (along the
///    forearm) and z (out of the screen) both flip between the two, so y = z × x keeps its direction
///    and the sweep about it changes sign with the stroke. Unlike rotation about gravity, this needs
///    no attitude estimate, which is poor while the gyroscope clips.
/// 5. **The peak is the forward swing**: `peakSearch` (0.9 s) spans the backswing-to-forward-swing
///    interval (0.6-0.7 s in the recordings), so a backswing fast enough to trigger does not anchor
///    the stroke and push the real forward swing into the refractory time. Only a stroke starts the
///    refractory time: a rejected candidate (a backswing or a gesture) does not block the stroke after it.
/// 6. **Missing data is no evidence**: logs lose samples (the tennis-ace watch drops 0.15-0.4 s every
///    2 s, so two strokes in three have a gap within 0.6 s of their peak). An interval longer than
///    `gapInterval` adds nothing to the rotation angle, the forward-swing sum or a serve's build-up:
///    one sample's rate says nothing about the time before it, and a peak found right after a gap
///    usually stands in for the real forward swing inside it. A serve needs `serveBuildUp` of fast
///    rotation *observed* before the peak.
///
/// Constants were chosen on the tennis-ace recordings (see README); the numbers are named here with
/// their units. Decisions are made `window` after the peak; memory is a fixed ring.
public struct StrokeDetector: Sendable {
    public struct Parameters: Sendable, Equatable {
        /// |ω| that starts a candidate, rad/s (SwingWatch's published peak rate, 5.5).
        public var triggerRate: Double = 5.5
        /// Half-width of the stroke window around the peak, s.
        public var window: Double = 0.6
        /// Minimum total rotation ∫|ω|dt over the window, rad.
        public var angleThreshold: Double = 3.0
        /// Minimum peak total acceleration in the window, g.
        public var accelerationThreshold: Double = 2.3
        /// No new stroke within this time after a stroke's peak, s (1.3: of 1.0, 1.3, 1.6 the one that
        /// counted the first tennis-ace session of each file best; your own strokes in a rally come
        /// 2 s or more apart).
        public var refractory: Double = 1.3
        /// Rate above which rotation counts as fast for the serve test, rad/s.
        public var serveRate: Double = 4.0
        /// A fast-rotation episode at least this long (s) is a serve ...
        public var serveDuration: Double = 0.6
        /// ... if at least this much of it (s), observed (gaps excluded), comes before the peak (0.2:
        /// ground strokes in the first session of each tennis-ace file median 0.1-0.15 s, serves 0.5 s;
        /// checked on the second).
        public var serveBuildUp: Double = 0.2
        /// Forward swing: from this long before the peak (s) ...
        public var forwardSwingBefore: Double = 0.3
        /// ... to this long after it (s).
        public var forwardSwingAfter: Double = 0.05
        /// The peak is searched this long after the trigger, s: longer than the backswing-to-forward-
        /// swing interval (0.6-0.7 s in the tennis-ace forehands), so the forward swing is the anchor.
        public var peakSearch: Double = 0.9
        /// A longer interval between samples restarts the detector, s.
        public var maximumInterval: Double = 0.5
        /// A longer interval between samples (s) is missing data: it adds nothing to the angle, the
        /// forward-swing sum or the observed build-up. 0.1 s: 2.5 intervals at the slowest rate swing
        /// detection accepts (25 Hz, `SwingAnalysis.minimumSampleRate`) and below the shortest batch
        /// gap of the tennis-ace logs (0.15 s); 0.03-0.1 s give the same strokes there (nothing was tuned).
        public var gapInterval: Double = 0.1
        /// Highest sample rate the ring is sized for, Hz (faster logs keep only the newest samples).
        public var maximumSampleRate: Double = 200
        public init() {}
    }

    struct Slot {
        var time = 0.0
        var rate = 0.0          // |ω|, rad/s
        var acrossWrist = 0.0   // ω_y (device frame), rad/s
        // |gravity + user|², g²: the square root is taken only for the slots a decision reads.
        var accelerationSquared = 0.0
    }

    enum Phase {
        case idle
        case seeking(triggerTime: Double, peakTime: Double, peakRate: Double)
        case collecting(peakTime: Double, peakRate: Double)
    }

    public let parameters: Parameters
    public let wrist: Wrist
    private var ring: [Slot]
    private var head = -1
    private var filled = 0
    private var phase = Phase.idle
    private var lastPeak = -Double.infinity
    private var lastTime = Double.nan

    /// - Precondition: the parameters' `window` and `peakSearch` are numbers of seconds from 0 to 60
    ///   and `maximumSampleRate` a positive number up to 10 kHz (a motion log's most): the ring holds
    ///   that span at that rate. Other values are programming errors, stopped with a message naming
    ///   them (NaN or infinity trapped converting to Int without one).
    public init(parameters: Parameters = Parameters(), wrist: Wrist = .right) {
        for (name, value) in [("window", parameters.window), ("peakSearch", parameters.peakSearch)] {
            precondition(value >= 0 && value <= 60, "StrokeDetector: \(name) must be 0...60 s (got \(value))")
        }
        precondition(parameters.maximumSampleRate > 0 && parameters.maximumSampleRate <= 10_000,
                     "StrokeDetector: maximumSampleRate must be a positive number up to 10 kHz (got \(parameters.maximumSampleRate))")
        self.parameters = parameters
        self.wrist = wrist
        let span = 2 * parameters.window + parameters.peakSearch + 0.2
        ring = [Slot](repeating: Slot(), count: max(8, Int((span * parameters.maximumSampleRate).rounded(.up))))
    }

    /// Decides the stroke still pending (a peak found, its window not yet complete) from the samples
    /// the ring holds; call at the end of a recording, before a pause, or let `process` call it at a
    /// gap. A serve followed within a second by a gap in the tennis-ace logs was dropped this way.
    public mutating func finish() -> SwingEvent? {
        defer { phase = .idle }
        switch phase {
        case .idle:
            return nil
        case let .seeking(_, peakTime, peakRate), let .collecting(peakTime, peakRate):
            let stroke = decide(peakTime: peakTime, peakRate: peakRate)
            if stroke != nil { lastPeak = peakTime }
            return stroke
        }
    }

    /// Forgets everything (as after a gap); a pending stroke is dropped (see `finish()`).
    public mutating func restart() {
        head = -1
        filled = 0
        phase = .idle
        lastTime = .nan
    }

    /// Feeds one device-motion sample; returns a stroke decided at this sample, if any.
    ///
    /// Inlinable so a batch loop reads only the fields used where the sample lies, rather than
    /// copying the whole 112-byte sample for a call.
    @inlinable
    public mutating func process(_ m: DeviceMotion) -> SwingEvent? {
        process(time: m.time, rotationRate: m.rotationRate, acceleration: m.totalAcceleration)
    }

    /// Feeds one sample: `time` in seconds, `rotationRate` in rad/s and total `acceleration`
    /// (gravity + user acceleration, what an accelerometer reads) in g, both in the device frame;
    /// returns a stroke decided at this sample, if any (at a gap, the stroke pending before it).
    public mutating func process(time: Double, rotationRate: Vector3, acceleration: Vector3) -> SwingEvent? {
        var pending: SwingEvent?
        if !(time - lastTime <= parameters.maximumInterval) || time <= lastTime {
            if !lastTime.isNaN {
                pending = finish()
                restart()
            }
        }
        // After a restart the sample can only start a search, never decide a stroke.
        let decided = step(time: time, rotationRate: rotationRate, acceleration: acceleration)
        return pending ?? decided
    }

    private mutating func step(time: Double, rotationRate: Vector3, acceleration: Vector3) -> SwingEvent? {
        lastTime = time
        head = head + 1 == ring.count ? 0 : head + 1
        let rate = rotationRate.magnitude
        ring[head] = Slot(time: time, rate: rate, acrossWrist: rotationRate.y,
                          accelerationSquared: acceleration.dot(acceleration))
        if filled < ring.count { filled += 1 }

        switch phase {
        case .idle:
            if rate >= parameters.triggerRate && time - lastPeak >= parameters.refractory {
                phase = .seeking(triggerTime: time, peakTime: time, peakRate: rate)
            }
        case let .seeking(trigger, peakTime, peakRate):
            var pt = peakTime, pr = peakRate
            if rate > pr { pt = time; pr = rate }
            phase = time - trigger >= parameters.peakSearch ? .collecting(peakTime: pt, peakRate: pr)
                : .seeking(triggerTime: trigger, peakTime: pt, peakRate: pr)
        case let .collecting(peakTime, peakRate):
            if time >= peakTime + parameters.window {
                phase = .idle
                let stroke = decide(peakTime: peakTime, peakRate: peakRate)
                if stroke != nil { lastPeak = peakTime }
                return stroke
            }
        }
        return nil
    }

    /// Runs over a recording or a chunk of one; the same code as `process`. Call `finish()` after
    /// the last chunk for a stroke the recording's end cut short.
    @inlinable
    public mutating func process<C: Collection>(_ samples: C) -> [SwingEvent] where C.Element == DeviceMotion {
        var out: [SwingEvent] = []
        for m in samples { if let e = process(m) { out.append(e) } }
        return out
    }

    private func decide(peakTime: Double, peakRate: Double) -> SwingEvent? {
        let p = parameters
        let (angle, maxAcc, forward) = sums(peakTime: peakTime)
        guard angle >= p.angleThreshold, maxAcc >= p.accelerationThreshold else { return nil }
        let kind: SwingKind
        let fast = fastEpisode(peakTime: peakTime)
        if fast.end - fast.start >= p.serveDuration && fast.observedBuildUp >= p.serveBuildUp {
            kind = .serve
        } else if forward < 0 {
            kind = wrist == .right ? .forehand : .backhand   // negative about the device's y axis
        } else {
            kind = wrist == .right ? .backhand : .forehand
        }
        return SwingEvent(time: peakTime, kind: kind, angle: angle, peakRate: peakRate)
    }

    @inline(__always) private func index(back k: Int) -> Int {
        let i = head - k
        return i < 0 ? i + ring.count : i
    }

    /// Start and end times (s) of the run of samples with |ω| ≥ serveRate that holds the peak, within
    /// the window, and how much of the run up to the peak was observed (s; intervals over `gapInterval`
    /// left out).
    private func fastEpisode(peakTime: Double) -> (start: Double, end: Double, observedBuildUp: Double) {
        let p = parameters
        var k = 0
        while k < filled && ring[index(back: k)].time > peakTime { k += 1 }
        guard k < filled else { return (peakTime, peakTime, 0) }
        var newest = k, oldest = k
        while newest > 0 {
            let s = ring[index(back: newest - 1)]
            guard s.rate >= p.serveRate, s.time <= peakTime + p.window else { break }
            newest -= 1
        }
        while oldest + 1 < filled {
            let s = ring[index(back: oldest + 1)]
            guard s.rate >= p.serveRate, s.time >= peakTime - p.window else { break }
            oldest += 1
        }
        var observed = 0.0
        var j = oldest
        while j > k {
            let interval = ring[index(back: j - 1)].time - ring[index(back: j)].time
            if interval <= p.gapInterval { observed += interval }
            j -= 1
        }
        return (ring[index(back: oldest)].time, ring[index(back: newest)].time, observed)
    }

    private func sums(peakTime: Double) -> (angle: Double, maxAcc: Double, forward: Double) {
        let p = parameters
        var angle = 0.0, maxAcc = 0.0, forward = 0.0
        var previousTime = Double.nan
        for k in stride(from: filled - 1, through: 0, by: -1) {
            var i = head - k
            if i < 0 { i += ring.count }
            let s = ring[i]
            guard s.time >= peakTime - p.window && s.time <= peakTime + p.window else { continue }
            let interval = s.time - previousTime
            let dt = interval <= p.gapInterval ? interval : 0  // NaN (first sample) and gaps add nothing
            previousTime = s.time
            angle += s.rate * dt
            maxAcc = max(maxAcc, s.accelerationSquared.squareRoot())  // |a|, as Vector3.magnitude
            if s.time >= peakTime - p.forwardSwingBefore && s.time <= peakTime + p.forwardSwingAfter {
                forward += s.acrossWrist * dt
            }
        }
        return (angle, maxAcc, forward)
    }
}
