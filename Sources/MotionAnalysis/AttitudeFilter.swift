import Foundation

/// Derives attitude, gravity and user acceleration from raw accelerometer + gyroscope samples, so
/// every detector that wants `DeviceMotion` also runs on raw IMU logs.
///
/// A complementary filter on the attitude quaternion (Mahony's form without the integral term):
/// the gyroscope is integrated exactly for a constant rate over each interval, and the gravity the
/// attitude predicts is turned toward the measured acceleration. By default the size of that turn
/// is a scalar Kalman gain (`NoiseModel`): the filter tracks the variance of its tilt error, which
/// grows with every gyro step (more when the rotation rate changed between samples, because the
/// rate's path between samples is unknown) and shrinks when it trusts the accelerometer; the
/// accelerometer's own error is modelled from how far |a| is from 1 g, how fast the acceleration
/// changes (jerk) and how fast the device turns, so fast motion is carried by the gyroscope alone
/// and a still device settles onto the accelerometer within a few samples. With `noise` nil it is
/// the plain complementary filter (`correctionGain`, `accelerationTolerance`). Yaw has no absolute
/// reference (the magnetometer is not used): it is relative to the first sample and drifts with
/// gyro bias.
///
/// - Complexity: O(1) time and memory per sample; no allocation.
public struct AttitudeFilter: Sendable {
    /// Tuning; defaults tuned on Exermote individuals 1-3 (see `vitals eval attitude`).
    public struct Parameters: Sendable, Equatable {
        /// Error model that sets the accelerometer correction per sample (a scalar Kalman gain);
        /// nil: the fixed complementary gain below. Default `NoiseModel()`.
        public var noise: NoiseModel?
        /// Without `noise`: how fast gravity is pulled toward a trusted accelerometer reading, rad/s per unit
        /// misalignment (1/time constant). Default 1/s: a 1-s time constant. Over an interval longer than
        /// 1/gain the turn is capped at the misalignment: gravity never turns past the accelerometer.
        public var correctionGain: Double
        /// Without `noise`: the pull is full when | |a| − 1 g | is 0 and zero from this many g away. Default 0.2 g
        /// (best of 0.05...0.3 on Exermote individuals 1-3).
        public var accelerationTolerance: Double
        /// An interval longer than this (s) restarts the filter from the accelerometer. Default 0.5 s.
        public var maximumInterval: Double
        public init(noise: NoiseModel? = NoiseModel(), correctionGain: Double = 1.0, accelerationTolerance: Double = 0.2,
                    maximumInterval: Double = 0.5) {
            self.noise = noise
            self.correctionGain = correctionGain
            self.accelerationTolerance = accelerationTolerance
            self.maximumInterval = maximumInterval
        }
    }

    /// Standard deviations (radians) of the two error sources the adaptive gain weighs. Defaults come
    /// from Exermote individuals 1-3 (10 Hz, upper arm): the angle between gravity predicted from the
    /// previous Core Motion gravity with the trapezoid rule and the next one, and the angle between the
    /// accelerometer and Core Motion gravity, binned by rate change, |a|, jerk and rotation rate; then
    /// a coordinate search (each term x0.5...x2) on the same individuals moved three of them (see each
    /// term). `vitals eval attitude` reports the result; individuals 4-6 are held out (1.94° -> 1.85°
    /// median of file medians with the search's values).
    public struct NoiseModel: Sendable, Equatable {
        /// Gyro prediction error variance per second, rad²/s, with a steady rate: 1° per 0.1-s step,
        /// i.e. (1°)² / 0.1 s. Measured 0.5° (the 0.01-g rounding of the logs' gravity and rate noise);
        /// the search doubled it: the error of consecutive steps is not independent.
        public var gyroVariancePerSecond: Double
        /// Extra gyro step error per radian of rate change over the step, times the step (s): the
        /// trapezoid rule is exact for a rate that changes linearly, but a 10-Hz sample says nothing
        /// of the path between; measured 1.2° per rad/s of change at 0.1 s, i.e. 0.21 rad/rad.
        public var rateChangeError: Double
        /// Accelerometer direction error of a still device, rad: 1.5° (measured median 1.3°; 3° at first
        /// for the tail from slow user acceleration, which the search found the other terms cover).
        public var accelerometerError: Double
        /// Extra accelerometer error per g that |a| is from 1 g, rad/g: 140°/g (at | |a| − 1 | ≈ 0.1 g
        /// the accelerometer is off by a median 10°, i.e. 100°/g; the search raised it to 140).
        public var magnitudeError: Double
        /// Extra accelerometer error per g/s of jerk (|Δa|/Δt), rad·s/g: 10°·s/g (user acceleration
        /// that changes fast is large; at 1 g/s the accelerometer is off by a median ~10°).
        public var jerkError: Double
        /// Extra accelerometer error per rad/s of rotation rate, rad·s/rad: 10° per rad/s (a turning
        /// arm accelerates the device: centripetal and tangential acceleration).
        public var rotationError: Double
        /// Tilt error variance after a (re)start from the accelerometer, rad²: (5°)².
        public var initialVariance: Double

        public init(gyroVariancePerSecond: Double = pow(1.0 * .pi / 180, 2) / 0.1, rateChangeError: Double = 1.2 / 0.1 * .pi / 180,
                    accelerometerError: Double = 1.5 * .pi / 180, magnitudeError: Double = 140 * .pi / 180,
                    jerkError: Double = 10 * .pi / 180, rotationError: Double = 10 * .pi / 180,
                    initialVariance: Double = pow(5 * .pi / 180, 2)) {
            self.gyroVariancePerSecond = gyroVariancePerSecond
            self.rateChangeError = rateChangeError
            self.accelerometerError = accelerometerError
            self.magnitudeError = magnitudeError
            self.jerkError = jerkError
            self.rotationError = rotationError
            self.initialVariance = initialVariance
        }
    }

    public var parameters: Parameters
    /// Current attitude: device frame -> reference frame (z up).
    public private(set) var attitude: Attitude = .identity
    private var lastTime: Double = .nan
    private var lastRate: Vector3 = .zero
    private var lastAcceleration: Vector3 = .zero
    /// Tilt error variance, rad² (adaptive gain only).
    private var variance: Double = 0
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
            variance = parameters.noise?.initialVariance ?? 0
            started = true
        } else {
            var q = attitude.quaternion
            // Predict: the interval's mean body rate (trapezoid rule; at the 10-50 Hz logs use,
            // holding either end point constant loses half the accuracy), integrated as a
            // constant rotation: q ← q ⊗ exp(ω dt / 2).
            let omega = (s.rotationRate + lastRate) * 0.5
            q = q * Quaternion(rotationVector: omega * dt)
            // Correct: turn the predicted gravity toward the measured acceleration's direction.
            let m = s.acceleration.magnitude
            if let noise = parameters.noise {
                let step = noise.rateChangeError * (s.rotationRate - lastRate).magnitude * dt
                variance += noise.gyroVariancePerSecond * dt + step * step
                if m > 0 {
                    let sigma = noise.accelerometerError + noise.magnitudeError * abs(m - 1)
                        + noise.jerkError * (s.acceleration - lastAcceleration).magnitude / dt
                        + noise.rotationError * s.rotationRate.magnitude
                    let gain = variance / (variance + sigma * sigma)
                    let a = s.acceleration / m
                    let g = q.conjugate.rotate(Vector3(x: 0, y: 0, z: -1))
                    let axis = a.cross(g)
                    let sine = axis.magnitude
                    if sine > 0 {
                        let angle = atan2(sine, a.dot(g))
                        q = q * Quaternion(rotationVector: axis * (gain * angle / sine))
                    }
                    variance *= 1 - gain
                }
            } else if m > 0 {
                let trust = max(0, 1 - abs(m - 1) / parameters.accelerationTolerance)
                if trust > 0 {
                    let g = q.conjugate.rotate(Vector3(x: 0, y: 0, z: -1))
                    let k = parameters.correctionGain * trust * dt
                    let a = s.acceleration / m
                    let axis = a.cross(g)
                    if k <= 1 {
                        // |a × g| = sin θ ≤ θ: a turn of k sin θ never passes the accelerometer.
                        q = q * Quaternion(rotationVector: ((parameters.correctionGain * trust) * axis) * dt)
                    } else {
                        // A long interval (dt > 1 / gain): k sin θ could turn gravity past the
                        // accelerometer's reading; the turn is capped at the misalignment θ itself.
                        let sine = axis.magnitude
                        if sine > 0 {
                            let angle = atan2(sine, a.dot(g))
                            q = q * Quaternion(rotationVector: axis * (min(k * sine, angle) / sine))
                        }
                    }
                }
            }
            attitude = Attitude(quaternion: q)
        }
        lastTime = s.time
        lastRate = s.rotationRate
        lastAcceleration = s.acceleration
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
    /// The fixed complementary gain, not the adaptive one (the choice predates it).
    public static let responsive = AttitudeFilter.Parameters(noise: nil, correctionGain: 6, accelerationTolerance: 0.5)
}
