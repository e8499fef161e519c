import SignalProcessing
import Foundation
import MotionAnalysis

/// Generated device-motion traces with known answers (motion tests and the documentation tests).
public enum Generate {
    /// A smooth pulse 0 → 1 → 0 over `width` seconds centred at `centre` (sin²).
    public static func pulse(_ t: Double, centre: Double, width: Double) -> Double {
        let u = (t - centre) / width + 0.5
        guard u > 0 && u < 1 else { return 0 }
        let s = sin(Double.pi * u)
        return s * s
    }

    /// Swings about gravity: each (time, signedPeak, width) is a rotation pulse about the gravity
    /// axis (negative = counter-clockwise), followed by a return swing at a third of the peak;
    /// acceleration spikes to `accelerationPeak` g at each peak. The device is held as a wrist
    /// device is in a ground stroke: its y axis (across the wrist) near vertical, pointing down.
    /// `reportedGravity` replaces the gravity the samples report (an attitude estimate gone wrong).
    public static func swings(_ swings: [(time: Double, peak: Double, width: Double)], rate: Double, seconds: Double,
                       noise: Double = 0.05, seed: UInt64 = 1, accelerationPeak: Double = 3,
                       reportedGravity: Vector3? = nil) -> [DeviceMotion] {
        var g = SplitMix64(seed: seed)
        let gravity = Vector3(x: 0.3, y: 0.9, z: -0.3).normalized
        let reported = reportedGravity?.normalized ?? gravity
        let side = gravity.cross(Vector3(x: 1, y: 0, z: 0)).normalized
        return (0..<Int(seconds * rate)).map { k in
            let t = Double(k) / rate
            var along = 0.0, across = 0.0, user = 0.0
            for s in swings {
                along += s.peak * pulse(t, centre: s.time, width: s.width)
                along -= s.peak / 3 * pulse(t, centre: s.time + s.width, width: s.width * 1.5)
                across += 0.3 * abs(s.peak) * pulse(t, centre: s.time, width: s.width)
                user += accelerationPeak * pulse(t, centre: s.time, width: s.width / 2)
            }
            let n = Vector3(x: Double.random(in: -noise...noise, using: &g), y: Double.random(in: -noise...noise, using: &g),
                            z: Double.random(in: -noise...noise, using: &g))
            let rate = along * gravity + across * side + n
            return DeviceMotion(time: t, attitude: AttitudeFilter.levelAttitude(gravity: reported), gravity: reported,
                                rotationRate: rate, userAcceleration: user * side)
        }
    }

    /// Sets of repetitions: gravity swings between two directions `reps` times per set with `period`
    /// (each rep ends with a pause of 30 % of the period, as prompted reps do),
    /// sets separated by `rest` seconds of standing with small sway.
    public static func reps(sets: [(reps: Int, period: Double)], rest: Double, rate: Double, seed: UInt64 = 3) -> [DeviceMotion] {
        var g = SplitMix64(seed: seed)
        var out: [DeviceMotion] = []
        var t = 0.0
        let stand = Vector3(x: 0, y: -1, z: 0)
        func add(_ gravity: Vector3) {
            let sway = Vector3(x: Double.random(in: -0.02...0.02, using: &g), y: 0, z: Double.random(in: -0.02...0.02, using: &g))
            let gv = (gravity + sway).normalized
            out.append(DeviceMotion(time: t, attitude: AttitudeFilter.levelAttitude(gravity: gv), gravity: gv,
                                    rotationRate: .zero, userAcceleration: .zero))
            t += 1 / rate
        }
        for _ in 0..<Int(rest * rate) { add(stand) }
        for s in sets {
            let n = Int(Double(s.reps) * s.period * rate)
            for k in 0..<n {
                let phase = Double(k) / rate / s.period
                let bend = 1.3 * pulse(phase - floor(phase), centre: 0.4, width: 0.7)  // 0 → 75° → 0, then a short pause
                add(Vector3(x: sin(bend), y: -cos(bend), z: 0))
            }
            for _ in 0..<Int(rest * rate) { add(stand) }
        }
        return out
    }
}
