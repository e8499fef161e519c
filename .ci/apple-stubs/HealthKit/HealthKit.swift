// Stand-in declarations for type-checking Sources/VitalsApple on Linux (see ../README.md): the
// symbols the adapters use (MotionWorkoutAdapter), with the signatures of Apple's documentation
// (developer.apple.com/documentation/healthkit/...; availability in the comments). Not the framework.
@_exported import Foundation

/// `enum HKWorkoutActivityType` (NS_ENUM, `init?(rawValue: UInt)`); iOS 8, watchOS 2. Only the case used.
public enum HKWorkoutActivityType: UInt, Sendable {
    case tennis = 48
}

/// `enum HKWorkoutSessionLocationType` (NS_ENUM, `Int`); iOS 10, watchOS 2.
public enum HKWorkoutSessionLocationType: Int, Sendable {
    case unknown = 1, indoor, outdoor
}

/// `class HKHealthStore`; iOS 8, watchOS 2.
public final class HKHealthStore: NSObject {
    public override init() {}
}

/// `class HKWorkoutConfiguration`; iOS 10, watchOS 3.
public final class HKWorkoutConfiguration: NSObject {
    public override init() {}
    /// `var activityType: HKWorkoutActivityType { get set }`
    public var activityType: HKWorkoutActivityType = .tennis
    /// `var locationType: HKWorkoutSessionLocationType { get set }`
    public var locationType: HKWorkoutSessionLocationType = .unknown
}

/// `enum HKWorkoutSessionState` (NS_ENUM, `Int`); watchOS 2, iOS 17.
public enum HKWorkoutSessionState: Int, Sendable {
    case notStarted = 1, running, ended, paused, prepared, stopped
}

/// `protocol HKWorkoutSessionDelegate : NSObjectProtocol`; watchOS 2, iOS 17. Both methods required;
/// HealthKit calls them on an anonymous serial background queue.
public protocol HKWorkoutSessionDelegate: NSObjectProtocol {
    /// `func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date)`
    func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
                        from fromState: HKWorkoutSessionState, date: Date)
    /// `func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error)`
    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error)
}

/// `class HKWorkoutSession`; watchOS 2, iOS 17 (the class). No `init()`: Apple's is unavailable.
public final class HKWorkoutSession: NSObject {
    /// `weak var delegate: (any HKWorkoutSessionDelegate)? { get set }`; watchOS 2, iOS 17.
    public weak var delegate: (any HKWorkoutSessionDelegate)?
    /// `init(healthStore: HKHealthStore, configuration workoutConfiguration: HKWorkoutConfiguration) throws`;
    /// watchOS 5, iOS 26.
    public init(healthStore: HKHealthStore, configuration workoutConfiguration: HKWorkoutConfiguration) throws {}
    /// `func startActivity(with date: Date?)`; watchOS 5, iOS 17.
    public func startActivity(with date: Date?) {}
    /// `func pause()`; watchOS 5, iOS 17.
    public func pause() {}
    /// `func resume()`; watchOS 5, iOS 17.
    public func resume() {}
    /// `func end()`; watchOS 5, iOS 17.
    public func end() {}
}
