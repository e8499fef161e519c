import Foundation

// Core Motion's model in portable Swift.
//
// Frames and conventions (checked against Core Motion's own logs, see `AttitudeTests`):
// - The device frame is Core Motion's: x to the right, y up the screen, z out of the screen.
// - An attitude rotates device-frame vectors into the reference frame, whose z axis points up
//   (away from the Earth): `v_reference = R · v_device`.
// - Euler angles follow Core Motion: pitch about x, roll about y, yaw about z, composed as
//   `R = Rz(yaw) · Rx(pitch) · Ry(roll)`. With this order, gravity in the device frame is
//   `(cos pitch · sin roll, −sin pitch, −cos pitch · cos roll)`, which is what iPhone logs record
//   next to their pitch and roll columns.
// - Gravity is a unit vector in g pointing down; user acceleration is in g; total acceleration
//   (what an accelerometer reads) is gravity + user acceleration; rotation rate is in rad/s.

/// A unit quaternion `w + xi + yj + zk` describing a rotation (Hamilton convention).
public struct Quaternion: Sendable, Equatable, Hashable {
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    /// The rotation that does nothing.
    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// The rotation by `angle` radians about `axis` (right-handed; the axis need not be unit length).
    public init(axis: Vector3, angle: Double) {
        let u = axis.normalized
        let s = sin(angle / 2)
        self.init(w: cos(angle / 2), x: u.x * s, y: u.y * s, z: u.z * s)
    }

    /// The quaternion of a rotation matrix (Shepperd's method, stable for every rotation).
    public init(_ m: RotationMatrix) {
        let trace = m.m11 + m.m22 + m.m33
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            self.init(w: s / 4, x: (m.m32 - m.m23) / s, y: (m.m13 - m.m31) / s, z: (m.m21 - m.m12) / s)
        } else if m.m11 > m.m22 && m.m11 > m.m33 {
            let s = (1 + m.m11 - m.m22 - m.m33).squareRoot() * 2
            self.init(w: (m.m32 - m.m23) / s, x: s / 4, y: (m.m12 + m.m21) / s, z: (m.m13 + m.m31) / s)
        } else if m.m22 > m.m33 {
            let s = (1 + m.m22 - m.m11 - m.m33).squareRoot() * 2
            self.init(w: (m.m13 - m.m31) / s, x: (m.m12 + m.m21) / s, y: s / 4, z: (m.m23 + m.m32) / s)
        } else {
            let s = (1 + m.m33 - m.m11 - m.m22).squareRoot() * 2
            self.init(w: (m.m21 - m.m12) / s, x: (m.m13 + m.m31) / s, y: (m.m23 + m.m32) / s, z: s / 4)
        }
        if w < 0 { self = Quaternion(w: -w, x: -x, y: -y, z: -z) }
    }

    public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }

    /// The same rotation with norm 1 (identity when the norm is zero or not finite).
    public var normalized: Quaternion {
        let n = norm
        guard n > 0, n.isFinite else { return .identity }
        return Quaternion(w: w / n, x: x / n, y: y / n, z: z / n)
    }

    /// The conjugate; for a unit quaternion, the inverse rotation.
    public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    /// The inverse (conjugate over squared norm).
    public var inverse: Quaternion {
        let n2 = w * w + x * x + y * y + z * z
        return Quaternion(w: w / n2, x: -x / n2, y: -y / n2, z: -z / n2)
    }

    /// The Hamilton product: rotate by `b`, then by `a`.
    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// `v` rotated by this (unit) quaternion: `q v q*`.
    public func rotate(_ v: Vector3) -> Vector3 {
        // t = 2 q_v × v; v' = v + w t + q_v × t  (15 multiplications, no matrix).
        let qv = Vector3(x: x, y: y, z: z)
        let t = 2 * qv.cross(v)
        return v + w * t + qv.cross(t)
    }

    /// The rotation matrix of this (unit) quaternion.
    public var rotationMatrix: RotationMatrix {
        let xx = x * x, yy = y * y, zz = z * z
        let xy = x * y, xz = x * z, yz = y * z
        let wx = w * x, wy = w * y, wz = w * z
        return RotationMatrix(
            m11: 1 - 2 * (yy + zz), m12: 2 * (xy - wz), m13: 2 * (xz + wy),
            m21: 2 * (xy + wz), m22: 1 - 2 * (xx + zz), m23: 2 * (yz - wx),
            m31: 2 * (xz - wy), m32: 2 * (yz + wx), m33: 1 - 2 * (xx + yy))
    }

    /// The rotation angle in radians (0...π).
    public var angle: Double {
        let v = (x * x + y * y + z * z).squareRoot()
        return 2 * atan2(v, abs(w))
    }
}

/// A 3×3 rotation matrix, row-major (`m12` is row 1, column 2), as `CMRotationMatrix` names its entries.
public struct RotationMatrix: Sendable, Equatable, Hashable {
    public var m11, m12, m13: Double
    public var m21, m22, m23: Double
    public var m31, m32, m33: Double

    public init(m11: Double, m12: Double, m13: Double,
                m21: Double, m22: Double, m23: Double,
                m31: Double, m32: Double, m33: Double) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13
        self.m21 = m21; self.m22 = m22; self.m23 = m23
        self.m31 = m31; self.m32 = m32; self.m33 = m33
    }

    public static let identity = RotationMatrix(m11: 1, m12: 0, m13: 0, m21: 0, m22: 1, m23: 0, m31: 0, m32: 0, m33: 1)

    /// The transpose, which for a rotation is its inverse.
    public var transposed: RotationMatrix {
        RotationMatrix(m11: m11, m12: m21, m13: m31, m21: m12, m22: m22, m23: m32, m31: m13, m32: m23, m33: m33)
    }

    /// `self · v`.
    public static func * (m: RotationMatrix, v: Vector3) -> Vector3 {
        Vector3(x: m.m11 * v.x + m.m12 * v.y + m.m13 * v.z,
                y: m.m21 * v.x + m.m22 * v.y + m.m23 * v.z,
                z: m.m31 * v.x + m.m32 * v.y + m.m33 * v.z)
    }

    /// The matrix product `a · b`.
    public static func * (a: RotationMatrix, b: RotationMatrix) -> RotationMatrix {
        RotationMatrix(
            m11: a.m11 * b.m11 + a.m12 * b.m21 + a.m13 * b.m31,
            m12: a.m11 * b.m12 + a.m12 * b.m22 + a.m13 * b.m32,
            m13: a.m11 * b.m13 + a.m12 * b.m23 + a.m13 * b.m33,
            m21: a.m21 * b.m11 + a.m22 * b.m21 + a.m23 * b.m31,
            m22: a.m21 * b.m12 + a.m22 * b.m22 + a.m23 * b.m32,
            m23: a.m21 * b.m13 + a.m22 * b.m23 + a.m23 * b.m33,
            m31: a.m31 * b.m11 + a.m32 * b.m21 + a.m33 * b.m31,
            m32: a.m31 * b.m12 + a.m32 * b.m22 + a.m33 * b.m32,
            m33: a.m31 * b.m13 + a.m32 * b.m23 + a.m33 * b.m33)
    }

    /// The largest absolute difference between corresponding entries.
    public func maxDifference(_ o: RotationMatrix) -> Double {
        let d = [m11 - o.m11, m12 - o.m12, m13 - o.m13, m21 - o.m21, m22 - o.m22, m23 - o.m23,
                 m31 - o.m31, m32 - o.m32, m33 - o.m33]
        return d.map(abs).max() ?? 0
    }
}

/// The device's orientation relative to a reference frame, as `CMAttitude`: available as a
/// quaternion, a rotation matrix and roll / pitch / yaw (radians).
public struct Attitude: Sendable, Equatable, Hashable {
    /// The unit quaternion rotating device-frame vectors into the reference frame.
    public var quaternion: Quaternion

    public init(quaternion: Quaternion) {
        self.quaternion = quaternion.normalized
    }

    /// The attitude of a rotation matrix mapping device-frame vectors into the reference frame.
    public init(rotationMatrix: RotationMatrix) {
        self.init(quaternion: Quaternion(rotationMatrix))
    }

    /// The attitude from Core Motion's Euler angles in radians: `R = Rz(yaw) · Rx(pitch) · Ry(roll)`.
    public init(roll: Double, pitch: Double, yaw: Double) {
        let qz = Quaternion(w: cos(yaw / 2), x: 0, y: 0, z: sin(yaw / 2))
        let qx = Quaternion(w: cos(pitch / 2), x: sin(pitch / 2), y: 0, z: 0)
        let qy = Quaternion(w: cos(roll / 2), x: 0, y: sin(roll / 2), z: 0)
        self.init(quaternion: qz * qx * qy)
    }

    /// The attitude that is the reference frame itself.
    public static let identity = Attitude(quaternion: .identity)

    /// The rotation matrix mapping device-frame vectors into the reference frame.
    public var rotationMatrix: RotationMatrix { quaternion.rotationMatrix }

    /// Rotation about the device's y axis, radians in −π...π.
    public var roll: Double {
        let q = quaternion
        return atan2(-2 * (q.x * q.z - q.w * q.y), 1 - 2 * (q.x * q.x + q.y * q.y))
    }

    /// Rotation about the device's x axis, radians in −π/2...π/2.
    public var pitch: Double {
        let q = quaternion
        return asin(max(-1, min(1, 2 * (q.y * q.z + q.w * q.x))))
    }

    /// Rotation about the device's z axis, radians in −π...π.
    public var yaw: Double {
        let q = quaternion
        return atan2(-2 * (q.x * q.y - q.w * q.z), 1 - 2 * (q.x * q.x + q.z * q.z))
    }

    /// Gravity in the device frame, a unit vector in g: the reference frame's down axis seen from the device.
    public var gravity: Vector3 {
        quaternion.conjugate.rotate(Vector3(x: 0, y: 0, z: -1))
    }

    /// Makes this attitude relative to `reference`, as `CMAttitude.multiply(byInverseOf:)`:
    /// afterwards it describes the device relative to the frame the device had at `reference`.
    public mutating func multiply(byInverseOf reference: Attitude) {
        quaternion = (reference.quaternion.conjugate * quaternion).normalized
    }

    /// This attitude relative to `reference` (non-mutating `multiply(byInverseOf:)`).
    public func relative(to reference: Attitude) -> Attitude {
        var a = self
        a.multiply(byInverseOf: reference)
        return a
    }

    /// The rotation angle between two attitudes in radians (0...π).
    public func angle(to o: Attitude) -> Double {
        (quaternion.conjugate * o.quaternion).angle
    }
}

/// One processed motion sample, as `CMDeviceMotion`.
public struct DeviceMotion: Sendable, Equatable {
    /// Seconds (any origin; logs use seconds from their first sample).
    public var time: Double
    /// Orientation relative to the reference frame.
    public var attitude: Attitude
    /// Gravity in the device frame, unit vector in g.
    public var gravity: Vector3
    /// Rotation rate in the device frame, rad/s (bias removed).
    public var rotationRate: Vector3
    /// Acceleration the user gives the device, in g, gravity removed.
    public var userAcceleration: Vector3

    /// A sample with every field given (gravity is normalised to unit length).
    public init(time: Double, attitude: Attitude, gravity: Vector3, rotationRate: Vector3, userAcceleration: Vector3) {
        self.time = time
        self.attitude = attitude
        self.gravity = gravity.normalized
        self.rotationRate = rotationRate
        self.userAcceleration = userAcceleration
    }

    /// A sample whose gravity follows from its attitude.
    public init(time: Double, attitude: Attitude, rotationRate: Vector3, userAcceleration: Vector3) {
        self.init(time: time, attitude: attitude, gravity: attitude.gravity,
                  rotationRate: rotationRate, userAcceleration: userAcceleration)
    }

    /// What an accelerometer would read, in g: gravity + user acceleration.
    public var totalAcceleration: Vector3 { gravity + userAcceleration }
}

/// A raw accelerometer sample, as `CMAccelerometerData`: acceleration in g, gravity included
/// (a device lying face up reads about (0, 0, −1)).
public struct AccelerometerSample: Sendable, Equatable {
    /// Seconds.
    public var time: Double
    /// Acceleration in g including gravity.
    public var acceleration: Vector3
    public init(time: Double, acceleration: Vector3) {
        self.time = time
        self.acceleration = acceleration
    }
}

/// A raw gyroscope sample, as `CMGyroData`: rotation rate in rad/s (bias not removed).
public struct GyroSample: Sendable, Equatable {
    /// Seconds.
    public var time: Double
    /// Rotation rate in rad/s, right-handed about the device axes.
    public var rotationRate: Vector3
    public init(time: Double, rotationRate: Vector3) {
        self.time = time
        self.rotationRate = rotationRate
    }
}

/// A raw magnetometer sample, as `CMMagnetometerData`: field in microtesla.
public struct MagnetometerSample: Sendable, Equatable {
    /// Seconds.
    public var time: Double
    /// Magnetic field in µT in the device frame (device bias included).
    public var magneticField: Vector3
    public init(time: Double, magneticField: Vector3) {
        self.time = time
        self.magneticField = magneticField
    }
}

/// A barometric altitude sample, as `CMAltitudeData`.
public struct AltitudeSample: Sendable, Equatable {
    /// Seconds.
    public var time: Double
    /// Change in altitude since the first sample, metres (up is positive).
    public var relativeAltitude: Double
    /// Air pressure in kilopascals.
    public var pressure: Double
    public init(time: Double, relativeAltitude: Double, pressure: Double) {
        self.time = time
        self.relativeAltitude = relativeAltitude
        self.pressure = pressure
    }
}

/// One raw inertial sample: accelerometer (g, gravity included) and gyroscope (rad/s) read together,
/// optionally with a magnetometer (µT). The input of `AttitudeFilter`.
public struct IMUSample: Sendable, Equatable {
    /// Seconds.
    public var time: Double
    /// Acceleration in g including gravity.
    public var acceleration: Vector3
    /// Rotation rate in rad/s.
    public var rotationRate: Vector3
    /// Magnetic field in µT, when the log has one.
    public var magneticField: Vector3?
    public init(time: Double, acceleration: Vector3, rotationRate: Vector3, magneticField: Vector3? = nil) {
        self.time = time
        self.acceleration = acceleration
        self.rotationRate = rotationRate
        self.magneticField = magneticField
    }
}
