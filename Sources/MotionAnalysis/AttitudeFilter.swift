import Foundation

/// Derives attitude, gravity and user acceleration from raw accelerometer + gyroscope samples, so
/// every detector that wants `DeviceMotion` also runs on raw IMU logs.
///
/// A complementary filter on the attitude quaternion (Mahony's form without the integral term):
/// the gyroscope is integrated exactly for a constant rate over each interval, and the gravity the
/// attitude predicts is pulled toward the measured acceleration at a rate `correctionGain` (rad/s
/// per unit of misalignment). The pull fades out when the acceleration's magnitude is far from
/// 1 g (the user is accelerating the device, or the accelerometer clips), so fast motion is carried
/// by the gyroscope alone. Yaw has no absolute reference (the magnetometer is not used): it is
/// relative to the first sample and drifts with gyro bias.
///
/// - Complexity: O(1) time and memory per sample; no allocation.
public struct AttitudeFilter: Sendable {
    /// Tuning; defaults tuned on Exermote individuals 1-3 (see `vitals eval attitude`).
    public struct Parameters: Sendable, Equatable {
        /// How fast gravity is pulled toward a trusted accelerometer reading, rad/s per unit
        /// misalignment (1/time constant). Default 0.5/s: a 2-s time constant.
        public var correctionGain: Double
        /// The pull is full when | |a| − 1 g | is 0 and zero from this many g away. Default 0.2 g
        /// (best of 0.05...0.3 on Exermote individuals 1-3).
        public var accelerationTolerance: Double
        /// An interval longer than this (s) restarts the filter from the accelerometer. Default 0.5 s.
        public var maximumInterval: Double
        public init(correctionGain: Double = 1.0, accelerationTolerance: Double = 0.2, maximumInterval: Double = 0.5) {
            self.correctionGain = correctionGain
            self.accelerationTolerance = accelerationTolerance
            self.maximumInterval = maximumInterval
        }
    }

    public var parameters: Parameters
    /// Current attitude: device frame -> reference frame (z up).
    public private(set) var attitude: Attitude = .identity
    private var lastTime: Double = .nan
    private var lastRate: Vector3 = .zero
    private var started = false

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Forgets the state; the next sample starts from its accelerometer reading.
    public mutating func reset() {
        started = false
        lastTime = .nan
        attitude = .identity
    }

    /// Feeds one raw sample (acceleration in g including gravity, rotation rate in rad/s) and
    /// returns the device motion it implies.
    public mutating func process(_ s: IMUSample) -> DeviceMotion {
        let dt = s.time - lastTime
        if !started || !(dt > 0) || dt > parameters.maximumInterval {
            attitude = Self.levelAttitude(gravity: s.acceleration)
            started = true
        } else {
            var q = attitude.quaternion
            // Predict: the interval's mean body rate (trapezoid rule; at the 10-50 Hz logs use,
            // holding either end point constant loses half the accuracy), integrated as a
            // constant rotation: q ← q ⊗ exp(ω dt / 2).
            let omega = (s.rotationRate + lastRate) * 0.5
            let angle = omega.magnitude * dt
            if angle > 0 { q = q * Quaternion(axis: omega, angle: angle) }
            // Correct: turn the predicted gravity toward the measured acceleration's direction.
            let m = s.acceleration.magnitude
            if m > 0 {
                let trust = max(0, 1 - abs(m - 1) / parameters.accelerationTolerance)
                if trust > 0 {
                    let g = q.conjugate.rotate(Vector3(x: 0, y: 0, z: -1))
                    let correction = (parameters.correctionGain * trust) * (s.acceleration / m).cross(g)
                    let c = correction.magnitude * dt
                    if c > 0 { q = q * Quaternion(axis: correction, angle: c) }
                }
            }
            attitude = Attitude(quaternion: q)
        }
        lastTime = s.time
        lastRate = s.rotationRate
        let gravity = attitude.gravity
        return DeviceMotion(time: s.time, attitude: attitude, gravity: gravity, rotationRate: s.rotationRate,
                            userAcceleration: s.acceleration - gravity)
    }

    /// Runs the filter over a whole recording (the same code as `process`).
    public static func run(_ samples: [IMUSample], parameters: Parameters = Parameters()) -> [DeviceMotion] {
        var f = AttitudeFilter(parameters: parameters)
        return samples.map { f.process($0) }
    }

    /// The attitude with zero yaw whose gravity points along `gravity` (any length).
    public static func levelAttitude(gravity: Vector3) -> Attitude {
        let g = gravity.normalized
        guard g.magnitude > 0 else { return .identity }
        // gravity = (cos p sin r, −sin p, −cos p cos r)
        let pitch = asin(max(-1, min(1, -g.y)))
        let roll = atan2(g.x, -g.z)
        return Attitude(roll: roll, pitch: pitch, yaw: 0)
    }
}

extension AttitudeFilter.Parameters {
    /// For wrist logs with hard swings (tennis-ace): gain 6/s and tolerance 0.5 g let gravity settle
    /// between strokes that come every 2-3 s. Chosen among (1, 0.2), (3, 0.3), (6, 0.5) by how well
    /// rotation about gravity separated forehands from backhands on tennis-ace.
    public static let responsive = AttitudeFilter.Parameters(correctionGain: 6, accelerationTolerance: 0.5)
}
