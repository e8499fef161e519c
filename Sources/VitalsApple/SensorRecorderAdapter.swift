// CMSensorRecorder: iOS, watchOS, Mac Catalyst; not macOS, tvOS or visionOS.
#if canImport(CoreMotion) && !os(macOS) && !os(tvOS) && !os(visionOS)
import CoreMotion
import Foundation
import MotionAnalysis

// A thin wrapper over Core Motion's sensor recorder, producing the toolkit's `AccelerometerSample`s
// so that an app can keep them in a `VitalsStore.AccelerometerHistory` or hand them to a detector
// (`TremorDetector`, `Pedometer`). No algorithm here. Written from Apple's documentation:
// CMSensorRecorder (isAccelerometerRecordingAvailable(), authorizationStatus(),
// recordAccelerometer(forDuration:): 12 hours at most per call, accelerometerData(from:to:): 12 hours
// at most per query),
// CMSensorDataList (fast enumeration), CMRecordedAccelerometerData (startDate: the wall-clock time
// of the sample; acceleration in g).

/// Core Motion's background accelerometer recording (50 Hz, kept by the system for days), read back
/// as ``AccelerometerSample``s whose times are seconds since 1970.
///
/// ```swift
/// let recorder = SensorRecorderAdapter()
/// recorder.record(forDuration: 12 * 3600)                 // the system records while the app sleeps
/// // later, when the app runs again:
/// let history = try AccelerometerHistory(folder: folder)
/// try history.appendNewer(recorder.samples(from: Date(timeIntervalSinceNow: -36 * 3600), to: Date()))
/// ```
public final class SensorRecorderAdapter {
    private let recorder = CMSensorRecorder()

    /// Core Motion's longest span for one query, seconds.
    public static let maximumQuerySpan: TimeInterval = 12 * 3600

    public init() {}

    /// Whether this device can record its accelerometer in the background.
    public static var isAvailable: Bool { CMSensorRecorder.isAccelerometerRecordingAvailable() }

    /// Whether the user allowed motion recording (the app needs `NSMotionUsageDescription`).
    public static var isAuthorized: Bool { CMSensorRecorder.authorizationStatus() == .authorized }

    /// Core Motion's longest recording one call may ask for, seconds (`recordAccelerometer(forDuration:)`).
    private static let maximumRecordingDuration: TimeInterval = 12 * 3600

    /// Asks the system to record the accelerometer from now for `seconds`, at most 12 hours (Core
    /// Motion's limit: a longer request is shortened to it; call again later to record on). Core
    /// Motion keeps the samples for up to three days; no need to stop it.
    public func record(forDuration seconds: TimeInterval) {
        recorder.recordAccelerometer(forDuration: min(seconds, Self.maximumRecordingDuration))
    }

    /// The recorded samples from `start` through `end`, oldest first, read in spans of at most
    /// ``maximumQuerySpan``. Times are the samples' wall-clock dates as seconds since 1970;
    /// acceleration in g.
    public func samples(from start: Date, to end: Date) -> [AccelerometerSample] {
        var out: [AccelerometerSample] = []
        var from = start
        while from < end {
            let to = min(end, from.addingTimeInterval(Self.maximumQuerySpan))
            if let list = recorder.accelerometerData(from: from, to: to) {
                var items = NSFastEnumerationIterator(list)
                while let item = items.next() {
                    guard let d = item as? CMRecordedAccelerometerData else { continue }
                    // Both ends of a query are included: a sample on a span's boundary comes once.
                    let time = d.startDate.timeIntervalSince1970
                    if let last = out.last?.time, time <= last { continue }
                    out.append(AccelerometerSample(
                        time: time, acceleration: Vector3(x: d.acceleration.x, y: d.acceleration.y, z: d.acceleration.z)))
                }
            }
            from = to
        }
        return out
    }
}
#endif
