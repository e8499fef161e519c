// Stand-in declarations for type-checking Sources/VitalsApple on Linux (see ../README.md): the
// symbols the adapters use, approximating the signatures in Apple's documentation. Not the framework.
@_exported import Foundation
public struct CMAcceleration { public var x = 0.0, y = 0.0, z = 0.0 }
public struct CMRotationRate { public var x = 0.0, y = 0.0, z = 0.0 }
public struct CMQuaternion { public var x = 0.0, y = 0.0, z = 0.0, w = 1.0 }
public final class CMAttitude: NSObject { public var roll = 0.0, pitch = 0.0, yaw = 0.0; public var quaternion = CMQuaternion() }
public struct CMAttitudeReferenceFrame: OptionSet, Sendable {
    public let rawValue: UInt; public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let xArbitraryZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 0)
    public static let xArbitraryCorrectedZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 1)
    public static let xMagneticNorthZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 2)
    public static let xTrueNorthZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 3)
}
public class CMLogItem: NSObject { public var timestamp: TimeInterval { 0 } }
public final class CMDeviceMotion: CMLogItem {
    public var attitude = CMAttitude(); public var gravity = CMAcceleration(); public var userAcceleration = CMAcceleration()
    public var rotationRate = CMRotationRate()
}
public typealias CMDeviceMotionHandler = (CMDeviceMotion?, (any Error)?) -> Void
public final class CMMotionManager: NSObject {
    public override init() {}
    public class func availableAttitudeReferenceFrames() -> CMAttitudeReferenceFrame { .xArbitraryZVertical }
    public var isDeviceMotionAvailable: Bool { true }
    public var deviceMotionUpdateInterval: TimeInterval = 0.01
    public func startDeviceMotionUpdates(using f: CMAttitudeReferenceFrame, to q: OperationQueue, withHandler h: @escaping CMDeviceMotionHandler) {}
    public func stopDeviceMotionUpdates() {}
}
public final class CMPedometerData: NSObject {
    public var startDate = Date(), endDate = Date(); public var numberOfSteps = NSNumber(value: 0)
    public var distance: NSNumber?; public var floorsAscended: NSNumber?; public var floorsDescended: NSNumber?
    public var currentPace: NSNumber?; public var currentCadence: NSNumber?; public var averageActivePace: NSNumber?
}
public enum CMPedometerEventType { case pause, resume }
public final class CMPedometerEvent: NSObject { public var date = Date(); public var type = CMPedometerEventType.pause }
public final class CMPedometer: NSObject {
    public override init() {}
    public static func isPedometerEventTrackingAvailable() -> Bool { true }
    public func startUpdates(from: Date, withHandler h: @escaping (CMPedometerData?, (any Error)?) -> Void) {}
    public func queryPedometerData(from: Date, to: Date, withHandler h: @escaping (CMPedometerData?, (any Error)?) -> Void) {}
    public func startEventUpdates(handler: @escaping (CMPedometerEvent?, (any Error)?) -> Void) {}
    public func stopUpdates() {}
    public func stopEventUpdates() {}
}
public final class CMAltitudeData: CMLogItem { public var relativeAltitude = NSNumber(value: 0); public var pressure = NSNumber(value: 0) }
public final class CMAltimeter: NSObject {
    public override init() {}
    public static func isRelativeAltitudeAvailable() -> Bool { true }
    public func startRelativeAltitudeUpdates(to q: OperationQueue, withHandler h: @escaping (CMAltitudeData?, (any Error)?) -> Void) {}
    public func stopRelativeAltitudeUpdates() {}
}
public enum CMAuthorizationStatus: Int { case notDetermined, restricted, denied, authorized }
public class CMAccelerometerData: CMLogItem { public var acceleration = CMAcceleration() }
public final class CMRecordedAccelerometerData: CMAccelerometerData { public var identifier: UInt64 = 0; public var startDate = Date() }
// Foundation's fast enumeration, which swift-corelibs-foundation lacks (Darwin's Foundation declares these).
public protocol NSFastEnumeration {}
public struct NSFastEnumerationIterator: IteratorProtocol {
    public init(_ enumerable: any NSFastEnumeration) {}
    public mutating func next() -> Any? { nil }
}
public final class CMSensorDataList: NSObject, NSFastEnumeration {}
public final class CMSensorRecorder: NSObject {
    public override init() {}
    public class func isAccelerometerRecordingAvailable() -> Bool { true }
    public class func authorizationStatus() -> CMAuthorizationStatus { .authorized }
    public func recordAccelerometer(forDuration duration: TimeInterval) {}
    public func accelerometerData(from fromDate: Date, to toDate: Date) -> CMSensorDataList? { nil }
}
