#if canImport(CoreMotion) && !os(macOS) && !os(tvOS)  // CMMotionManager: iOS, watchOS, Mac Catalyst, visionOS
import CoreMotion
import Foundation
import MotionAnalysis

/// Translates Core Motion's device motion into `DeviceMotion` and delivers it on a serial
/// background queue, never the main one (as the SwingWatch sample does). No algorithm lives here.
public final class MotionManagerAdapter: @unchecked Sendable {
    private let manager = CMMotionManager()
    private let queue: OperationQueue = {
        let q = OperationQueue()
        q.name = "vitals.motion"
        q.maxConcurrentOperationCount = 1  // serial: samples arrive in order
        return q
    }()

    public init() {}

    /// Whether the device has device motion (gyroscope + accelerometer fusion) in the reference
    /// frame the adapter uses (`xArbitraryZVertical`).
    public var isAvailable: Bool {
        manager.isDeviceMotionAvailable
            && CMMotionManager.availableAttitudeReferenceFrames().contains(.xArbitraryZVertical)
    }

    /// Starts device-motion updates at `rate` Hz (the SwingWatch sample uses 50; Core Motion allows up
    /// to 100). `handler` runs on the adapter's serial background queue.
    /// - Throws: `MotionAdapterError.unavailable` when the device has no device motion, or not in
    ///   the `xArbitraryZVertical` reference frame (Core Motion leaves checking the frame to the caller).
    public func start(rate: Double = 50, handler: @escaping @Sendable (DeviceMotion) -> Void) throws {
        guard isAvailable else { throw MotionAdapterError.unavailable }
        manager.deviceMotionUpdateInterval = 1 / rate
        manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { motion, error in
            guard error == nil, let motion else { return }
            handler(Self.deviceMotion(motion))
        }
    }

    /// Stops the updates.
    public func stop() {
        manager.stopDeviceMotionUpdates()
    }

    /// One `CMDeviceMotion` as a portable sample. The attitude is rebuilt from roll, pitch and yaw,
    /// whose composition (`Attitude`) was checked against iPhone logs' gravity.
    public static func deviceMotion(_ m: CMDeviceMotion) -> DeviceMotion {
        let a = m.attitude
        return DeviceMotion(
            time: m.timestamp,
            attitude: Attitude(roll: a.roll, pitch: a.pitch, yaw: a.yaw),
            gravity: Vector3(x: m.gravity.x, y: m.gravity.y, z: m.gravity.z),
            rotationRate: Vector3(x: m.rotationRate.x, y: m.rotationRate.y, z: m.rotationRate.z),
            userAcceleration: Vector3(x: m.userAcceleration.x, y: m.userAcceleration.y, z: m.userAcceleration.z))
    }
}

/// Why the motion adapter could not start.
public enum MotionAdapterError: Error, Sendable {
    case unavailable
}
#endif
