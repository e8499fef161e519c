import Foundation

/// A stretch of time the device held still in one orientation (a plank, a yoga pose, a phone on
/// a table), and how it ended.
public struct Hold: Sendable, Equatable, Codable {
    /// Seconds.
    public var start: Double
    public var end: Double
    /// Root-mean-square angle of gravity from the hold's mean direction, degrees: the sway.
    public var swayDegrees: Double
    /// Largest angle of gravity from the hold's first direction, degrees.
    public var maxDeviationDegrees: Double
    /// True when the hold ended in a fall: gravity turned more than `fallAngle` within `fallTime`.
    public var endedInFall: Bool

    public var duration: Double { end - start }
}

/// Measures how still the gravity vector holds: holds are stretches where gravity stays within
/// `holdAngle` of where the stretch began for at least `minimumHold`; a hold that ends with gravity
/// turning more than `fallAngle` within `fallTime` ended in a fall.
/// - Complexity: O(1) per sample, no allocation.
public struct PoseStability: Sendable {
    public struct Parameters: Sendable, Equatable {
        /// Gravity may wander this far from the hold's start and still hold, degrees.
        public var holdAngle = 8.0
        /// Shortest hold reported, s.
        public var minimumHold = 2.0
        /// A turn of gravity this large (degrees) ...
        public var fallAngle = 45.0
        /// ... within this long after the hold (s) is a fall. Keep it below `minimumHold`.
        public var fallTime = 1.0
        /// An interval between samples longer than this (s) ends the hold in progress and starts anew:
        /// nothing is known of the gap. Default 1 s, `fallTime`: after a longer gap a turn can no longer
        /// be timed, so a hold ended by a gap is never a fall.
        public var maximumInterval = 1.0
        public init() {}
    }

    public let parameters: Parameters
    private var started = false
    private var reference = Vector3.zero
    private var start = 0.0
    private var last = 0.0
    private var meanSum = Vector3.zero
    private var maxSquared = 0.0  // rad²
    private let cosHoldAngle: Double
    private let cosFallAngle: Double
    private var count = 0
    private var sumSquares = 0.0  // of angle from the reference (rad²), for sway about the mean
    // A finished hold waiting to see whether a fall follows.
    private var pending: Hold?
    private var pendingReference = Vector3.zero

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        cosHoldAngle = cos(parameters.holdAngle * .pi / 180)
        cosFallAngle = cos(parameters.fallAngle * .pi / 180)
    }

    /// Feeds one gravity sample (any length; only direction matters); returns a finished hold.
    public mutating func process(time: Double, gravity: Vector3) -> Hold? {
        var out: Hold?
        let g = gravity.normalized
        if var p = pending {
            // Later than fallTime after the hold (a gap in the samples) the turn is not a fall,
            // however large.
            if time - p.end > parameters.fallTime {
                out = p
                pending = nil
            } else if g.dot(pendingReference) < cosFallAngle {
                p.endedInFall = true
                out = p
                pending = nil
            }
        }
        if !started {
            begin(time, g)
            return out
        }
        if time - last > parameters.maximumInterval {
            // A gap: the hold ends at its last sample; it waits as pending like any other hold and
            // resolves as no fall (the gap already exceeds fallTime with the default parameters).
            if last - start >= parameters.minimumHold {
                if let p = pending, out == nil { out = p }
                pending = finishedHold()
                pendingReference = meanSum.normalized
            }
            begin(time, g)
            return out
        }
        // Small angles from the dot product: θ² ≈ 2(1 − cos θ) (0.2 % low at 8°), no trigonometry per sample.
        let cosine = g.dot(reference)
        if cosine >= cosHoldAngle {
            let theta2 = max(0, 2 * (1 - cosine))
            last = time
            count += 1
            meanSum += g
            maxSquared = max(maxSquared, theta2)
            sumSquares += theta2
        } else {
            if last - start >= parameters.minimumHold {
                // A pending hold resolves within fallTime, before another can last minimumHold.
                if let p = pending, out == nil { out = p }
                pending = finishedHold()
                pendingReference = meanSum.normalized
            }
            begin(time, g)
        }
        return out
    }

    /// Feeds one device-motion sample.
    ///
    /// Inlinable so a batch loop reads only the fields used where the sample lies, rather than
    /// copying the whole 112-byte sample for a call.
    @inlinable
    public mutating func process(_ m: DeviceMotion) -> Hold? {
        process(time: m.time, gravity: m.gravity)
    }

    /// Holds still open or waiting at the end of the recording.
    public mutating func finish() -> [Hold] {
        var out: [Hold] = []
        if let p = pending { out.append(p) }
        pending = nil
        if started && last - start >= parameters.minimumHold { out.append(finishedHold()) }
        started = false
        return out
    }

    /// Runs over a recording (the same code as `process`).
    @inlinable
    public mutating func process<C: Collection>(_ samples: C) -> [Hold] where C.Element == DeviceMotion {
        var out: [Hold] = []
        for m in samples { if let h = process(m) { out.append(h) } }
        out.append(contentsOf: finish())
        return out
    }

    private mutating func begin(_ time: Double, _ g: Vector3) {
        started = true
        reference = g
        start = time
        last = time
        meanSum = g
        count = 1
        maxSquared = 0
        sumSquares = 0
    }

    private func finishedHold() -> Hold {
        // Sway about the mean: RMS angle from the reference corrected by the mean's offset.
        let offset = meanSum.normalized.angle(to: reference)
        let rms = max(0, sumSquares / Double(max(1, count)) - offset * offset).squareRoot()
        return Hold(start: start, end: last, swayDegrees: rms * 180 / .pi, maxDeviationDegrees: maxSquared.squareRoot() * 180 / .pi,
                    endedInFall: false)
    }
}
