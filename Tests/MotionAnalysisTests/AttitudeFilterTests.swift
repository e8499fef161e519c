import Foundation
import SignalProcessing
import Testing
@testable import MotionAnalysis

@Suite struct AttitudeFilterTests {
    /// A device tumbling at known body rates; the accelerometer reads true gravity plus bursts of user
    /// acceleration and noise.
    static func tumble(rate: Double, seconds: Double, userBursts: Bool) -> (imu: [IMUSample], truth: [Vector3]) {
        var g = SplitMix64(seed: 7)
        var q = Attitude(roll: 0.3, pitch: -0.4, yaw: 0).quaternion
        var imu: [IMUSample] = []
        var truth: [Vector3] = []
        let n = Int(seconds * rate)
        for k in 0..<n {
            let t = Double(k) / rate
            let w = Self.rate(t)
            let gravity = q.conjugate.rotate(Vector3(x: 0, y: 0, z: -1))
            var user = Vector3.zero
            if userBursts && Int(t) % 3 == 0 { user = Vector3(x: 0.5 * sin(9 * t), y: 0.3, z: -0.4 * cos(7 * t)) }
            let noise = Vector3(x: Double.random(in: -0.01...0.01, using: &g), y: Double.random(in: -0.01...0.01, using: &g),
                                z: Double.random(in: -0.01...0.01, using: &g))
            imu.append(IMUSample(time: t, acceleration: gravity + user + noise, rotationRate: w))
            truth.append(gravity)
            // Advance the true attitude through the continuously varying rate (fine sub-steps).
            for s in 0..<20 {
                let ws = Self.rate(t + (Double(s) + 0.5) / (20 * rate))
                q = q * Quaternion(axis: ws, angle: ws.magnitude / (20 * rate))
            }
        }
        return (imu, truth)
    }

    static func rate(_ t: Double) -> Vector3 {
        Vector3(x: 2 * sin(1.3 * t), y: 1.5 * cos(0.7 * t), z: 1.0 * sin(2.1 * t + 1))
    }

    @Test("the fixed gain never turns gravity past the accelerometer, even after an interval longer than 1/gain")
    func fixedGainCorrectionDoesNotOvershoot() throws {
        // The gyro reads 0.3 rad/s about x while the accelerometer stays level (a gyro bias): gravity
        // drifts off the accelerometer by the same amount between samples and is pulled back.
        var imu: [IMUSample] = []
        let level = Vector3(x: 0, y: 0, z: -1), bias = Vector3(x: 0.3, y: 0, z: 0)
        for k in 0..<100 { imu.append(IMUSample(time: Double(k) * 0.02, acceleration: level, rotationRate: bias)) }
        // An interval of 0.45 s (under maximumInterval, so no restart): gain 6/s × 0.45 s = 2.7.
        for k in 0..<20 { imu.append(IMUSample(time: 2.43 + Double(k) * 0.02, acceleration: level, rotationRate: bias)) }
        let out = AttitudeFilter.run(imu, parameters: .responsive)
        let before = out[99].gravity.angle(to: level) * 180 / .pi
        let after = out[100].gravity.angle(to: level) * 180 / .pi
        // Steady state before the gap: the pull 6 sin e balances the 0.3 rad/s drift, e ≈ 3°.
        #expect(before > 2 && before < 4)
        // The predicted misalignment before the correction is about e + 0.3 × 0.45 rad ≈ 11°; a turn
        // of 2.7 sin θ would leave gravity 18° beyond the accelerometer; capped, it lands on it.
        #expect(after < 0.01, "gravity \(after)° from the accelerometer after the long interval")
        // The gyro bias keeps turning gravity the same way afterwards, never across the accelerometer.
        let side = out[99].gravity.y
        #expect(abs(side) > 0.01)
        for m in out[101...] {
            #expect(m.gravity.angle(to: level) * 180 / .pi < 3.0)
            #expect(m.gravity.y * side >= -1e-12)
        }
    }

    @Test func tracksGravityThroughRotationWithinHalfADegree() {
        let (imu, truth) = Self.tumble(rate: 100, seconds: 30, userBursts: false)
        let out = AttitudeFilter.run(imu)
        let errors = zip(out, truth).map { $0.gravity.angle(to: $1) * 180 / .pi }.sorted()
        #expect(errors[errors.count / 2] < 0.5)
        for m in out { #expect(abs(m.gravity.magnitude - 1) < 1e-6) }
    }

    @Test func userAccelerationBurstsDisturbGravityLessThanTheAccelerometerDirection() {
        let (imu, truth) = Self.tumble(rate: 100, seconds: 30, userBursts: true)
        let out = AttitudeFilter.run(imu)
        let errors = zip(out, truth).map { $0.gravity.angle(to: $1) * 180 / .pi }.sorted()
        let raw = zip(imu, truth).map { $0.acceleration.angle(to: $1) * 180 / .pi }.sorted()
        #expect(errors[errors.count / 2] < 2)
        #expect(errors[errors.count * 9 / 10] < raw[raw.count * 9 / 10] / 2)
        #expect(errors.last! < 10)
    }

    @Test func fixedGainFilterStillTracksGravityThroughRotation() {
        let (imu, truth) = Self.tumble(rate: 100, seconds: 30, userBursts: true)
        let out = AttitudeFilter.run(imu, parameters: AttitudeFilter.Parameters(noise: nil))
        let errors = zip(out, truth).map { $0.gravity.angle(to: $1) * 180 / .pi }.sorted()
        #expect(errors[errors.count / 2] < 2)
    }

    /// A still device whose gyro reads a 0.05-rad/s bias (3°/s): the fixed 1/s gain settles where
    /// 0.005 rad × 0.9 / 0.1 ≈ 2.6° at 10 Hz; the adaptive gain trusts a still accelerometer (|a| = 1 g, no
    /// jerk, slow rotation) more: its steady Kalman gain at 10 Hz is about 0.13 per sample, so it
    /// settles near 0.29° × 0.87 / 0.13 ≈ 1.9°.
    @Test func adaptiveGainHoldsAStillDeviceCloserToItsAccelerometerDespiteGyroBias() {
        let down = Vector3(x: 0, y: 0, z: -1)
        let imu = (0..<200).map { k in
            IMUSample(time: Double(k) / 10, acceleration: down, rotationRate: Vector3(x: 0.05, y: 0, z: 0))
        }
        let adaptive = AttitudeFilter.run(imu).last!.gravity.angle(to: down) * 180 / .pi
        let fixed = AttitudeFilter.run(imu, parameters: AttitudeFilter.Parameters(noise: nil)).last!.gravity.angle(to: down) * 180 / .pi
        #expect(adaptive < 2.1)
        #expect(fixed > 2.4)
        #expect(adaptive < fixed - 0.5)
    }

    /// While the device turns fast and the accelerometer jumps, the adaptive gain leaves gravity to the
    /// gyroscope: a 0.5-g sideways shake during a 3-rad/s turn moves gravity less than 1° per sample.
    @Test func adaptiveGainIgnoresTheAccelerometerDuringFastMotion() {
        var f = AttitudeFilter()
        let down = Vector3(x: 0, y: 0, z: -1)
        for k in 0..<20 { _ = f.process(IMUSample(time: Double(k) / 10, acceleration: down, rotationRate: .zero)) }
        let before = f.attitude.gravity
        // A turn about the gravity axis (z) leaves gravity in the device frame unchanged.
        let m = f.process(IMUSample(time: 2.0, acceleration: down + Vector3(x: 0.5, y: 0, z: 0), rotationRate: Vector3(x: 0, y: 0, z: 3)))
        #expect(m.gravity.angle(to: before) * 180 / .pi < 1)
    }

    @Test func streamingInChunksEqualsBatch() {
        let (imu, _) = Self.tumble(rate: 10, seconds: 20, userBursts: true)
        let batch = AttitudeFilter.run(imu)
        var f = AttitudeFilter()
        let streamed = imu.map { f.process($0) }
        #expect(zip(batch, streamed).allSatisfy { $0.gravity == $1.gravity && $0.userAcceleration == $1.userAcceleration })
    }

    @Test func userAccelerationIsTotalMinusGravity() {
        let (imu, _) = Self.tumble(rate: 50, seconds: 5, userBursts: true)
        for (s, m) in zip(imu, AttitudeFilter.run(imu)) {
            #expect((m.totalAcceleration - s.acceleration).magnitude < 1e-12)
        }
    }

    @Test func restartsFromTheAccelerometerAfterAGap() {
        var f = AttitudeFilter()
        _ = f.process(IMUSample(time: 0, acceleration: Vector3(x: 0, y: 0, z: -1), rotationRate: Vector3(x: 3, y: 0, z: 0)))
        let m = f.process(IMUSample(time: 5, acceleration: Vector3(x: 0, y: -1, z: 0), rotationRate: .zero))
        #expect(m.gravity.angle(to: Vector3(x: 0, y: -1, z: 0)) < 1e-9)
    }

    @Test func levelAttitudeReproducesGravity() {
        for v in [Vector3(x: 0.2, y: -0.9, z: 0.3), Vector3(x: 0, y: 0, z: 1), Vector3(x: -1, y: 0, z: 0)] {
            #expect(AttitudeFilter.levelAttitude(gravity: v).gravity.angle(to: v) < 1e-9)
        }
    }
}
