// Stand-in declarations for type-checking Sources/VitalsApple on Linux (see ../README.md): the
// symbols the adapters use (MotionWorkoutAdapter, HeartbeatSeriesReader), with the signatures of Apple's documentation
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
    /// `func requestAuthorization(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>) async throws`;
    /// iOS 15, watchOS 8.
    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>) async throws {}
}

/// `class HKObjectType`; iOS 8, watchOS 2.
public class HKObjectType: NSObject {}
/// `class HKSampleType : HKObjectType`; iOS 8, watchOS 2.
public class HKSampleType: HKObjectType {}
/// `class HKSeriesType : HKSampleType`; iOS 11, watchOS 4.
public final class HKSeriesType: HKSampleType {
    /// `class func heartbeat() -> Self`; iOS 13, watchOS 6.
    public class func heartbeat() -> Self { fatalError("stub") }
}

/// `class HKObject`; iOS 8, watchOS 2.
public class HKObject: NSObject {}
/// `class HKSample : HKObject`; iOS 8, watchOS 2.
public class HKSample: HKObject {
    /// `var startDate: Date { get }`
    public var startDate: Date { Date() }
    /// `var endDate: Date { get }`
    public var endDate: Date { Date() }
}
/// `class HKSeriesSample : HKSample`; iOS 11, watchOS 4.
public class HKSeriesSample: HKSample {
    /// `var count: Int { get }`
    public var count: Int { 0 }
}
/// `class HKHeartbeatSeriesSample : HKSeriesSample`; iOS 13, watchOS 6.
public final class HKHeartbeatSeriesSample: HKSeriesSample {}

/// `struct HKQueryOptions : OptionSet` (`UInt`); iOS 8, watchOS 2.
public struct HKQueryOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let strictStartDate = HKQueryOptions(rawValue: 1)
    public static let strictEndDate = HKQueryOptions(rawValue: 2)
}

/// `class HKQuery`; iOS 8, watchOS 2.
public class HKQuery: NSObject {
    /// `class func predicateForSamples(withStart startDate: Date?, end endDate: Date?, options: HKQueryOptions = []) -> NSPredicate`
    public class func predicateForSamples(withStart startDate: Date?, end endDate: Date?, options: HKQueryOptions = []) -> NSPredicate {
        fatalError("stub")
    }
}

/// `struct HKSamplePredicate<Sample> where Sample : HKSample`; iOS 15.4, watchOS 8.5, macOS 13.
public struct HKSamplePredicate<Sample: HKSample> {}

extension HKSamplePredicate where Sample == HKHeartbeatSeriesSample {
    /// `static func heartbeatSeries(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKHeartbeatSeriesSample>`
    public static func heartbeatSeries(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKHeartbeatSeriesSample> { .init() }
}

/// `struct HKSampleQueryDescriptor<Sample> where Sample : HKSample`; iOS 15.4, watchOS 8.5, macOS 13.
public struct HKSampleQueryDescriptor<Sample: HKSample> {
    /// `init(predicates: [HKSamplePredicate<Sample>], sortDescriptors: [SortDescriptor<Sample>], limit: Int? = nil)`
    public init(predicates: [HKSamplePredicate<Sample>], sortDescriptors: [SortDescriptor<Sample>], limit: Int? = nil) {}
    /// `func result(for healthStore: HKHealthStore) async throws -> [Sample]`
    public func result(for healthStore: HKHealthStore) async throws -> [Sample] { [] }
}

/// `struct HKHeartbeatSeriesQueryDescriptor`; iOS 15.4, watchOS 8.5, macOS 13.
public struct HKHeartbeatSeriesQueryDescriptor {
    /// `struct Heartbeat`: `let timeIntervalSinceStart: TimeInterval`, `let precededByGap: Bool`.
    public struct Heartbeat: Hashable, Sendable {
        public let timeIntervalSinceStart: TimeInterval
        public let precededByGap: Bool
    }
    /// `struct Results : AsyncSequence` of `Heartbeat` (its iterator's `next()` throws).
    public struct Results: AsyncSequence {
        public typealias Element = Heartbeat
        public struct AsyncIterator: AsyncIteratorProtocol {
            public mutating func next() async throws -> Heartbeat? { nil }
        }
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }
    /// `init(_ sample: HKHeartbeatSeriesSample)`
    public init(_ sample: HKHeartbeatSeriesSample) {}
    /// `func results(for healthStore: HKHealthStore) -> HKHeartbeatSeriesQueryDescriptor.Results`
    public func results(for healthStore: HKHealthStore) -> Results { Results() }
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
