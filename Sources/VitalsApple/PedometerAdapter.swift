// CMAltimeter and pedometer events: iOS, watchOS, Mac Catalyst; not macOS, tvOS or visionOS.
#if canImport(CoreMotion) && !os(macOS) && !os(tvOS) && !os(visionOS)
import CoreMotion
import Foundation
import MotionAnalysis

// Thin wrappers over Core Motion's pedometer and altimeter, producing the toolkit's own types so an app
// can use the system pedometer and `MotionAnalysis.Pedometer` interchangeably. No algorithm here.
// Written from Apple's documentation: CMPedometer (startUpdates(from:withHandler:),
// queryPedometerData(from:to:withHandler:), startEventUpdates(handler:), stopEventUpdates()),
// CMPedometerData, CMPedometerEvent / CMPedometerEventType, CMAltimeter
// (isRelativeAltitudeAvailable(), startRelativeAltitudeUpdates(to:withHandler:)), CMAltitudeData.

extension PedometerData {
    /// Core Motion's pedometer data; dates become seconds since `origin`. Core Motion gives no active
    /// time or mean cadence: the active time is its `averageActivePace` (seconds per metre, averaged
    /// over the periods of activity only) times the distance, and the mean cadence the steps over
    /// that time; both are 0 when Core Motion has no pace (no movement, or a device without pace).
    public init(_ d: CMPedometerData, origin: Date) {
        let steps = d.numberOfSteps.intValue
        let distance = d.distance?.doubleValue ?? 0
        let activeTime = (d.averageActivePace?.doubleValue).map { $0 * distance } ?? 0
        self.init(startDate: d.startDate.timeIntervalSince(origin), endDate: d.endDate.timeIntervalSince(origin),
                  numberOfSteps: steps, distance: distance,
                  floorsAscended: d.floorsAscended?.intValue, floorsDescended: d.floorsDescended?.intValue,
                  currentPace: d.currentPace?.doubleValue, currentCadence: d.currentCadence?.doubleValue,
                  activeTime: activeTime, averageCadence: activeTime > 0 ? Double(steps) / activeTime : 0)
    }
}

extension PedometerEvent {
    /// Core Motion's pause/resume event; `time` is the event's date, `reportedAt` when the handler ran,
    /// both in seconds since `origin`.
    public init(_ e: CMPedometerEvent, origin: Date, receivedAt: Date = Date()) {
        self.init(kind: e.type == .pause ? .pause : .resume, time: e.date.timeIntervalSince(origin),
                  reportedAt: receivedAt.timeIntervalSince(origin))
    }
}

extension AltitudeSample {
    /// Core Motion's relative altitude: time is the sample's timestamp (seconds since boot, the clock of
    /// every Core Motion sample; ``SystemPedometer/startAltitude(_:)`` converts it to seconds since its
    /// origin), altitude in metres, pressure in kilopascals (as Core Motion reports it).
    public init(_ a: CMAltitudeData) {
        self.init(time: a.timestamp, relativeAltitude: a.relativeAltitude.doubleValue, pressure: a.pressure.doubleValue)
    }
}

/// The system pedometer and altimeter, delivering `PedometerData`, `PedometerEvent` and `AltitudeSample`.
public final class SystemPedometer {
    private let pedometer = CMPedometer()
    private let altimeter = CMAltimeter()
    private let queue: OperationQueue
    /// Dates are reported as seconds since this moment.
    public let origin: Date

    /// - Parameters:
    ///   - origin: the moment event, data and altitude times count from.
    ///   - queue: the queue the altitude handler runs on (a serial background queue by default). The
    ///     pedometer's handlers run where Core Motion calls them: on a background thread, possibly
    ///     concurrently with one another, so handlers that share state must synchronise.
    public init(origin: Date = Date(), queue: OperationQueue? = nil) {
        self.origin = origin
        self.queue = queue ?? {
            let q = OperationQueue()
            q.name = "SystemPedometer.altitude"
            q.maxConcurrentOperationCount = 1
            return q
        }()
    }

    /// Whether pause/resume events are available on this device.
    public static var isEventTrackingAvailable: Bool { CMPedometer.isPedometerEventTrackingAvailable() }
    /// Whether relative altitude (floors) is available on this device.
    public static var isAltitudeAvailable: Bool { CMAltimeter.isRelativeAltitudeAvailable() }

    /// Live cumulative data from `origin`; errors are passed on as they come.
    public func startUpdates(_ handler: @escaping @Sendable (Result<PedometerData, any Error>) -> Void) {
        let origin = self.origin
        pedometer.startUpdates(from: origin) { data, error in
            if let data { handler(.success(PedometerData(data, origin: origin))) } else if let error { handler(.failure(error)) }
        }
    }

    /// Data over a past range (seconds since `origin`).
    public func query(from start: Double, to end: Double,
                      _ handler: @escaping @Sendable (Result<PedometerData, any Error>) -> Void) {
        let origin = self.origin
        pedometer.queryPedometerData(from: origin.addingTimeInterval(start), to: origin.addingTimeInterval(end)) { data, error in
            if let data { handler(.success(PedometerData(data, origin: origin))) } else if let error { handler(.failure(error)) }
        }
    }

    /// Pause and resume events (`startEventUpdates`).
    public func startEvents(_ handler: @escaping @Sendable (Result<PedometerEvent, any Error>) -> Void) {
        let origin = self.origin
        pedometer.startEventUpdates { event, error in
            if let event { handler(.success(PedometerEvent(event, origin: origin))) } else if let error { handler(.failure(error)) }
        }
    }

    /// Relative altitude samples, for floors, with times in seconds since `origin` like the other
    /// outputs (Core Motion stamps them in seconds since boot).
    public func startAltitude(_ handler: @escaping @Sendable (Result<AltitudeSample, any Error>) -> Void) {
        // Seconds since boot at `origin`: uptime now minus the time elapsed since `origin`.
        let bootToOrigin = ProcessInfo.processInfo.systemUptime - Date().timeIntervalSince(origin)
        altimeter.startRelativeAltitudeUpdates(to: queue) { data, error in
            if let data {
                var sample = AltitudeSample(data)
                sample.time -= bootToOrigin
                handler(.success(sample))
            } else if let error {
                handler(.failure(error))
            }
        }
    }

    /// Stops every update this object started.
    public func stop() {
        pedometer.stopUpdates()
        pedometer.stopEventUpdates()
        altimeter.stopRelativeAltitudeUpdates()
    }
}
#endif
