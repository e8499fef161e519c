import Foundation

/// Which wrist the watch is on; it decides which rotation direction is a forehand.
public enum Wrist: String, Sendable, CaseIterable, Codable {
    case left, right
}

/// The kind of a racket swing.
public enum SwingKind: String, Sendable, Codable {
    case forehand, backhand, serve
}

/// One detected swing.
public struct SwingEvent: Sendable, Equatable, Codable {
    /// Seconds, on the samples' clock (the time of the sample that completed the detection for
    /// SwingWatch; the time of peak rotation rate for the stroke detector).
    public var time: Double
    public var kind: SwingKind
    /// Rotation angle in radians: about gravity over the 1-s window for SwingWatch; total rotation
    /// over the stroke window for the stroke detector.
    public var angle: Double
    /// Peak rotation rate in rad/s (signed about gravity for SwingWatch; magnitude for strokes).
    public var peakRate: Double

    public init(time: Double, kind: SwingKind, angle: Double, peakRate: Double) {
        self.time = time
        self.kind = kind
        self.angle = angle
        self.peakRate = peakRate
    }

    /// Racket or bat head speed in m/s for a lever of `leverLength` metres (wrist to head), from the
    /// peak rotation rate. A gyroscope that clips under-reads it.
    public func headSpeed(leverLength: Double) -> Double {
        SwingSpeed.headSpeed(rotationRate: abs(peakRate), leverLength: leverLength)
    }
}

/// Apple's SwingWatch algorithm (WWDC 2016, "What's New in Core Motion") as the talk describes it:
/// the rotation rate projected on gravity goes into a running buffer of one second; a swing is an
/// accumulated angle beyond `angleThreshold` with a peak beyond `rateThreshold`, counter-clockwise
/// (negative) being a forehand on the right wrist; after a swing nothing counts until the mean of
/// the newest half of the buffer settles below `settleThreshold`, and the buffer then restarts
/// empty so the return swing is not counted.
///
/// Implemented with running sums over a ring (O(1) per sample, no allocation); `SwingWatchTranscription`
/// is the literal transcription it is checked against.
public struct SwingWatchDetector: Sendable {
    /// The published constants.
    public struct Parameters: Sendable, Equatable {
        /// Device-motion rate in Hz the buffer is sized for. Published: 50 Hz.
        public var sampleRate: Double
        /// Buffer length in seconds. Published: 1 s.
        public var bufferDuration: Double
        /// Minimum accumulated rotation about gravity, radians. Published: 1.95 rad.
        public var angleThreshold: Double
        /// Minimum peak rate about gravity, rad/s. Published: 5.5 rad/s.
        public var rateThreshold: Double
        /// The newest half-buffer mean must fall below this (rad/s) before the next swing. Published:
        /// 5.5 × 0.05 = 0.275 rad/s.
        public var settleThreshold: Double
        public init(sampleRate: Double = 50, bufferDuration: Double = 1, angleThreshold: Double = 1.95,
                    rateThreshold: Double = 5.5, settleThreshold: Double = 0.275) {
            self.sampleRate = sampleRate
            self.bufferDuration = bufferDuration
            self.angleThreshold = angleThreshold
            self.rateThreshold = rateThreshold
            self.settleThreshold = settleThreshold
        }
        /// Samples in the buffer.
        public var bufferCount: Int { max(2, Int((sampleRate * bufferDuration).rounded())) }
    }

    public let parameters: Parameters
    public let wrist: Wrist
    private var ring: [Double]
    private var head = 0          // index of the newest sample
    private var count: Int        // samples held (the published buffer starts full of zeros)
    private var sum = 0.0
    private var recentSum = 0.0   // sum of the newest n/2 samples
    private var recentDetection = false
    private var sinceExactSum = 0
    private let interval: Double       // 1 / sampleRate, s
    private let inverseHalf: Double    // 1 / (n/2)

    /// - Precondition: the parameters' `sampleRate` is a positive number up to 10 kHz (a motion
    ///   log's most) and `bufferDuration` a positive number of seconds up to 60: the buffer holds
    ///   that many samples. Other values are programming errors, stopped with a message naming them
    ///   (NaN or infinity trapped converting to Int without one).
    public init(parameters: Parameters = Parameters(), wrist: Wrist = .right) {
        precondition(parameters.sampleRate > 0 && parameters.sampleRate <= 10_000,
                     "SwingWatchDetector: sampleRate must be a positive number up to 10 kHz (got \(parameters.sampleRate))")
        precondition(parameters.bufferDuration > 0 && parameters.bufferDuration <= 60,
                     "SwingWatchDetector: bufferDuration must be a positive number up to 60 s (got \(parameters.bufferDuration))")
        self.parameters = parameters
        self.wrist = wrist
        interval = 1 / parameters.sampleRate
        inverseHalf = 1 / Double(parameters.bufferCount / 2)
        ring = [Double](repeating: 0, count: parameters.bufferCount)
        count = parameters.bufferCount
    }

    /// Back to the initial state (buffer full of zeros), as after a gap in the data.
    public mutating func restart() {
        for i in ring.indices { ring[i] = 0 }
        head = 0
        count = ring.count
        sum = 0
        recentSum = 0
        recentDetection = false
    }

    /// Feeds one device-motion sample; returns the swing it completes, if any.
    @inlinable
    public mutating func process(_ m: DeviceMotion) -> SwingEvent? {
        process(time: m.time, rateAlongGravity: m.rotationRate.dot(m.gravity))
    }

    /// Feeds one value of rotation rate · gravity (rad/s).
    public mutating func process(time: Double, rateAlongGravity r: Double) -> SwingEvent? {
        let n = ring.count
        let half = n / 2
        // addSample: newest first; the oldest falls out when full.
        let newHead = head + 1 == n ? 0 : head + 1
        if count == n {
            sum -= ring[newHead]  // the oldest sits where the newest goes
        }
        // The sample leaving the newest half is the one `half` positions back from the new head.
        if count >= half {
            var leaving = newHead - half
            if leaving < 0 { leaving += n }
            recentSum -= ring[leaving]
        }
        ring[newHead] = r
        head = newHead
        if count < n { count += 1 }
        sum += r
        recentSum += r
        sinceExactSum += 1
        if sinceExactSum >= n { resum() }
        guard count == n else { return nil }

        var event: SwingEvent?
        let dt = interval
        var accumulated = sum * dt
        if abs(abs(accumulated) - parameters.angleThreshold) < 1e-9 {
            accumulated = exactSum() * dt  // settle ties exactly as the transcription does
        }
        // While a swing is recent no swing can count, so the peak (a scan) is not needed then.
        if !recentDetection && (accumulated < -parameters.angleThreshold || accumulated > parameters.angleThreshold) {
            let peak = accumulated > 0 ? ringMax() : ringMin()
            if accumulated < -parameters.angleThreshold && peak < -parameters.rateThreshold {
                // Counter-clockwise swing.
                event = count(wrist == .left ? .backhand : .forehand, time, accumulated, peak)
            } else if accumulated > parameters.angleThreshold && peak > parameters.rateThreshold {
                event = count(wrist == .left ? .forehand : .backhand, time, accumulated, peak)
            }
        }
        if recentDetection {
            var mean = recentSum * inverseHalf
            if abs(abs(mean) - parameters.settleThreshold) < 1e-9 { mean = exactRecentMean() }
            if abs(mean) < parameters.settleThreshold {
                recentDetection = false
                // reset(): the buffer empties and must fill again.
                count = 0
                sum = 0
                recentSum = 0
                for i in ring.indices { ring[i] = 0 }
            }
        }
        return event
    }

    private mutating func count(_ kind: SwingKind, _ time: Double, _ angle: Double, _ peak: Double) -> SwingEvent? {
        guard !recentDetection else { return nil }
        recentDetection = true
        return SwingEvent(time: time, kind: kind, angle: angle, peakRate: peak)
    }

    /// Runs over a recording; the same code as `process`.
    @inlinable
    public mutating func process<C: Collection>(_ samples: C) -> [SwingEvent] where C.Element == DeviceMotion {
        var out: [SwingEvent] = []
        for m in samples { if let e = process(m) { out.append(e) } }
        return out
    }

    // Index of the k-th newest sample (0 = newest).
    @inline(__always) private func slot(_ k: Int) -> Int {
        let i = head - k
        return i < 0 ? i + ring.count : i
    }

    private func exactSum() -> Double {
        var s = 0.0
        for k in 0..<count { s += ring[slot(k)] }
        return s
    }

    private func exactRecentMean() -> Double {
        let half = ring.count / 2
        var s = 0.0
        for k in 0..<half { s += ring[slot(k)] }
        return s / Double(half)
    }

    private mutating func resum() {
        sinceExactSum = 0
        sum = exactSum()
        let half = ring.count / 2
        var s = 0.0
        for k in 0..<min(half, count) { s += ring[slot(k)] }
        recentSum = s
    }

    private func ringMax() -> Double {
        var m = -Double.infinity
        for k in 0..<count { m = max(m, ring[slot(k)]) }
        return m
    }

    private func ringMin() -> Double {
        var m = Double.infinity
        for k in 0..<count { m = min(m, ring[slot(k)]) }
        return m
    }
}

/// A literal transcription of the SwingWatch sample's detection as the talk describes it (buffer
/// as an array with the newest sample inserted first, sums and extremes recomputed every sample).
/// It exists to check `SwingWatchDetector` swing for swing; it is slow on purpose.
public struct SwingWatchTranscription: Sendable {
    let yawThreshold: Double
    let rateThreshold: Double
    let resetThreshold: Double
    let sampleInterval: Double
    let size: Int
    let wristLocationIsLeft: Bool
    var buffer: [Double]
    var recentDetection = false

    public init(parameters: SwingWatchDetector.Parameters = .init(), wrist: Wrist = .right) {
        yawThreshold = parameters.angleThreshold
        rateThreshold = parameters.rateThreshold
        resetThreshold = parameters.settleThreshold
        sampleInterval = 1 / parameters.sampleRate
        size = parameters.bufferCount
        wristLocationIsLeft = wrist == .left
        buffer = [Double](repeating: 0, count: size)
    }

    public mutating func restart() {
        buffer = [Double](repeating: 0, count: size)
        recentDetection = false
    }

    public mutating func process(time: Double, gravity: Vector3, rotationRate: Vector3) -> SwingEvent? {
        let rateAlongGravity = rotationRate.x * gravity.x + rotationRate.y * gravity.y + rotationRate.z * gravity.z
        buffer.insert(rateAlongGravity, at: 0)
        if buffer.count > size { buffer.removeLast() }
        if buffer.count != size { return nil }
        let accumulatedYawRot = buffer.reduce(0.0, +) * sampleInterval
        let peakRate = accumulatedYawRot > 0 ? buffer.max()! : buffer.min()!
        var event: SwingEvent?
        if accumulatedYawRot < -yawThreshold && peakRate < -rateThreshold {
            event = increment(wristLocationIsLeft ? .backhand : .forehand, time, accumulatedYawRot, peakRate)
        } else if accumulatedYawRot > yawThreshold && peakRate > rateThreshold {
            event = increment(wristLocationIsLeft ? .forehand : .backhand, time, accumulatedYawRot, peakRate)
        }
        if recentDetection && abs(recentMean()) < resetThreshold {
            recentDetection = false
            buffer.removeAll()
        }
        return event
    }

    mutating func increment(_ kind: SwingKind, _ time: Double, _ angle: Double, _ peak: Double) -> SwingEvent? {
        if !recentDetection {
            recentDetection = true
            return SwingEvent(time: time, kind: kind, angle: angle, peakRate: peak)
        }
        return nil
    }

    func recentMean() -> Double {
        let recentCount = size / 2
        var mean = 0.0
        if buffer.count >= recentCount {
            let recent = buffer[0..<recentCount]
            mean = recent.reduce(0.0, +) / Double(recent.count)
        }
        return mean
    }
}

/// Swing (racket, bat, club) speed from rotation rate and lever length.
public enum SwingSpeed {
    /// Head speed in m/s: |ω| × lever, for rotation rate in rad/s and lever (rotation centre to
    /// head) in metres. With the wrist-to-head lever this is the speed the wrist's rotation gives.
    public static func headSpeed(rotationRate: Double, leverLength: Double) -> Double {
        abs(rotationRate) * leverLength
    }

    /// Head speed in m/s combining the two components the talk names: rotation of the arm about the
    /// body (ω·ĝ, lever = arm + racket) and of the wrist (the rest of ω, lever = racket).
    public static func headSpeed(rotationRate: Vector3, gravity: Vector3, armLength: Double, racketLength: Double) -> Double {
        let g = gravity.normalized
        let aboutBody = rotationRate.dot(g)
        let wrist = (rotationRate - aboutBody * g).magnitude
        let v1 = abs(aboutBody) * (armLength + racketLength)
        let v2 = wrist * racketLength
        return (v1 * v1 + v2 * v2).squareRoot()
    }
}

/// Which swing detector to run.
public enum SwingMode: String, Sendable, CaseIterable, Codable {
    /// `StrokeDetector`: one event per stroke, idle rejection, serves.
    case strokes
    /// `SwingWatchDetector`: the published algorithm.
    case swingwatch
}

/// Runs a swing detector over a recording, restarting it after gaps.
public enum SwingAnalysis {
    /// Below this rate (Hz) a swing, which lasts about 0.3 s, is not resolved.
    public static let minimumSampleRate = 25.0

    /// Detects swings in `motion` (time-ordered).
    /// - Parameters:
    ///   - motion: the recording's device motion, time-ordered.
    ///   - mode: which detector runs (see ``SwingMode``).
    ///   - wrist: the wrist the watch is on (it decides forehand from backhand).
    ///   - sampleRate: the recording's rate in Hz; SwingWatch's 1-s buffer is sized for it.
    ///   - swingWatch: SwingWatch's thresholds (its published defaults).
    ///   - strokes: the stroke detector's parameters.
    ///   - maximumInterval: a longer interval between samples (s) restarts the detector (in `.strokes`
    ///     mode it replaces `strokes.maximumInterval`; the default 0.5 s is that parameter's default).
    /// - Precondition: `sampleRate` is a positive number up to 10 kHz; the detectors' parameters
    ///   as their initialisers state.
    public static func run(_ motion: [DeviceMotion], mode: SwingMode, wrist: Wrist, sampleRate: Double,
                           swingWatch: SwingWatchDetector.Parameters = .init(),
                           strokes: StrokeDetector.Parameters = .init(),
                           maximumInterval: Double = 0.5) -> [SwingEvent] {
        precondition(sampleRate > 0 && sampleRate <= 10_000,
                     "SwingAnalysis: sampleRate must be a positive number up to 10 kHz (got \(sampleRate))")
        switch mode {
        case .strokes:
            var p = strokes
            p.maximumSampleRate = max(p.maximumSampleRate, sampleRate)  // the ring holds the whole window
            p.maximumInterval = maximumInterval
            var d = StrokeDetector(parameters: p, wrist: wrist)
            var out = d.process(motion)
            if let e = d.finish() { out.append(e) }
            return out
        case .swingwatch:
            var p = swingWatch
            p.sampleRate = sampleRate
            var d = SwingWatchDetector(parameters: p, wrist: wrist)
            var out: [SwingEvent] = []
            var last = -Double.infinity
            for m in motion {
                if m.time - last > maximumInterval { d.restart() }
                last = m.time
                if let e = d.process(m) { out.append(e) }
            }
            return out
        }
    }
}
