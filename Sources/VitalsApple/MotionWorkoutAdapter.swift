#if canImport(HealthKit) && os(watchOS)
import Foundation
import HealthKit
import MotionAnalysis

/// Runs an `HKWorkoutSession` (which lets a watch app keep processing motion with the screen off)
/// and feeds a `WorkoutSession` from `MotionManagerAdapter`. Start, pause, resume and stop go to
/// both. Command times use the system uptime, the clock of `CMDeviceMotion.timestamp`. The app
/// must have HealthKit authorisation for workouts.
@available(watchOS 5.0, *)
public final class MotionWorkoutAdapter: @unchecked Sendable {
    private let store = HKHealthStore()
    private var session: HKWorkoutSession?
    private let motion = MotionManagerAdapter()
    private let lock = NSLock()
    private var workout: WorkoutSession
    private let onEvent: @Sendable (WorkoutEvent) -> Void
    private let rate: Double

    /// - Parameters:
    ///   - rate: device-motion rate in Hz.
    ///   - onEvent: receives every workout event, on the motion queue.
    public init(rate: Double = 50, wrist: Wrist, onEvent: @escaping @Sendable (WorkoutEvent) -> Void) {
        self.rate = rate
        self.workout = WorkoutSession(sampleRate: rate, wrist: wrist)
        self.onEvent = onEvent
    }

    /// Starts a tennis workout (outdoor) and device-motion updates.
    public func start(activity: HKWorkoutActivityType = .tennis, location: HKWorkoutSessionLocationType = .outdoor) throws {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = activity
        configuration.locationType = location
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
        self.session = session
        let now = Date()
        session.startActivity(with: now)
        emit(try withWorkout { try $0.start(at: ProcessInfo.processInfo.systemUptime) })
        try motion.start(rate: rate) { [weak self] sample in
            guard let self else { return }
            for e in self.withWorkout({ $0.process(sample) }) { self.onEvent(e) }
        }
    }

    public func pause() throws {
        session?.pause()
        for e in try withWorkout({ try $0.pause(at: ProcessInfo.processInfo.systemUptime) }) { onEvent(e) }
    }

    public func resume() throws {
        session?.resume()
        emit(try withWorkout { try $0.resume(at: ProcessInfo.processInfo.systemUptime) })
    }

    /// Stops updates first, then ends the HealthKit session.
    public func stop() throws {
        motion.stop()
        for e in try withWorkout({ try $0.stop(at: ProcessInfo.processInfo.systemUptime) }) { onEvent(e) }
        session?.end()
        session = nil
    }

    private func emit(_ e: WorkoutEvent) { onEvent(e) }

    private func withWorkout<T>(_ body: (inout WorkoutSession) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&workout)
    }
}
#endif
