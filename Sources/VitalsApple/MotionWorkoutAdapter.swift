// HKWorkoutSession(healthStore:configuration:) is watchOS 5+ but iOS 26+ only (Apple's availability),
// above this package's iOS floor, so the adapter is for watchOS only. VITALS_TYPECHECK_WATCHOS is set
// by .ci/apple-typecheck.sh alone, to type-check the file on Linux against the stubs.
#if canImport(HealthKit) && (os(watchOS) || VITALS_TYPECHECK_WATCHOS)
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
    private let wrist: Wrist

    /// - Parameters:
    ///   - rate: device-motion rate in Hz.
    ///   - onEvent: receives every workout event: the detectors' events on the motion queue; start,
    ///     pause, resume and stop (and the events a pause or a stop completes) on the thread that
    ///     called the command.
    public init(rate: Double = 50, wrist: Wrist, onEvent: @escaping @Sendable (WorkoutEvent) -> Void) {
        self.rate = rate
        self.wrist = wrist
        self.workout = WorkoutSession(sampleRate: rate, wrist: wrist)
        self.onEvent = onEvent
    }

    /// Starts a tennis workout (outdoor) and device-motion updates. Throws, with nothing left
    /// running (no HealthKit session, no updates) and the adapter ready to start again, when the
    /// workout is already started, the HealthKit session cannot be created or device motion is
    /// unavailable (then `onEvent` has seen the start and its stop).
    public func start(activity: HKWorkoutActivityType = .tennis, location: HKWorkoutSessionLocationType = .outdoor) throws {
        // The workout model first: it refuses a second start before anything is created.
        let started = try withWorkout { try $0.start(at: ProcessInfo.processInfo.systemUptime) }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = activity
        configuration.locationType = location
        let session: HKWorkoutSession
        do {
            session = try HKWorkoutSession(healthStore: store, configuration: configuration)
        } catch {
            resetWorkout()
            throw error
        }
        self.session = session
        session.startActivity(with: Date())
        emit(started)
        do {
            try motion.start(rate: rate) { [weak self] sample in
                guard let self else { return }
                for e in self.withWorkout({ $0.process(sample) }) { self.onEvent(e) }
            }
        } catch {
            // Only one workout session may run at a time: end this one rather than leave it open.
            session.end()
            self.session = nil
            for e in (try? withWorkout({ try $0.stop(at: ProcessInfo.processInfo.systemUptime) })) ?? [] { onEvent(e) }
            resetWorkout()
            throw error
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

    /// A fresh, idle workout model (a stopped one refuses to start again), after a failed start.
    private func resetWorkout() {
        withWorkout { $0 = WorkoutSession(sampleRate: rate, wrist: wrist) }
    }

    private func withWorkout<T>(_ body: (inout WorkoutSession) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&workout)
    }
}
#endif
