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
///
/// When HealthKit ends the session itself (another app started a workout, which fails this one),
/// device motion stops and the workout stops as with ``stop()``: `onEvent` gets the stop on
/// HealthKit's queue, and `onFailure` the error.
@available(watchOS 5.0, *)
public final class MotionWorkoutAdapter: @unchecked Sendable {
    private let store = HKHealthStore()
    /// The running HealthKit session (guarded by `lock`).
    private var session: HKWorkoutSession?
    private let observer = SessionObserver()
    private let motion: MotionManagerAdapter
    private let lock = NSLock()
    private var workout: WorkoutSession
    private let onEvent: @Sendable (WorkoutEvent) -> Void
    private let onFailure: (@Sendable (any Error) -> Void)?
    private let rate: Double
    private let wrist: Wrist

    /// - Parameters:
    ///   - rate: device-motion rate in Hz.
    ///   - motion: the device-motion source. Apple asks an app for one `CMMotionManager`: an app that
    ///     already has a `MotionManagerAdapter` passes it (not started: the workout starts and stops it).
    ///   - onEvent: receives every workout event: the detectors' events on the motion queue; start,
    ///     pause, resume and stop (and the events a pause or a stop completes) on the thread that
    ///     called the command, or on HealthKit's queue when HealthKit ended the session.
    ///   - onFailure: the error when HealthKit fails the session (after `onEvent` has the stop).
    public init(rate: Double = 50, wrist: Wrist, motion: MotionManagerAdapter = MotionManagerAdapter(),
                onEvent: @escaping @Sendable (WorkoutEvent) -> Void,
                onFailure: (@Sendable (any Error) -> Void)? = nil) {
        self.rate = rate
        self.wrist = wrist
        self.motion = motion
        self.workout = WorkoutSession(sampleRate: rate, wrist: wrist)
        self.onEvent = onEvent
        self.onFailure = onFailure
        observer.adapter = self
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
        session.delegate = observer
        swapSession(session)
        session.startActivity(with: Date())
        emit(started)
        do {
            try motion.start(rate: rate) { [weak self] sample in
                guard let self else { return }
                for e in self.withWorkout({ $0.process(sample) }) { self.onEvent(e) }
            }
        } catch {
            // Only one workout session may run at a time: end this one rather than leave it open.
            swapSession(nil)
            session.end()
            for e in (try? withWorkout({ try $0.stop(at: ProcessInfo.processInfo.systemUptime) })) ?? [] { onEvent(e) }
            resetWorkout()
            throw error
        }
    }

    public func pause() throws {
        currentSession()?.pause()
        for e in try withWorkout({ try $0.pause(at: ProcessInfo.processInfo.systemUptime) }) { onEvent(e) }
    }

    public func resume() throws {
        currentSession()?.resume()
        emit(try withWorkout { try $0.resume(at: ProcessInfo.processInfo.systemUptime) })
    }

    /// Stops updates first, then ends the HealthKit session.
    public func stop() throws {
        motion.stop()
        for e in try withWorkout({ try $0.stop(at: ProcessInfo.processInfo.systemUptime) }) { onEvent(e) }
        swapSession(nil)?.end()
    }

    /// HealthKit ended `ended` (a failure, or the system's own end): if it is still this adapter's
    /// session, device motion and the workout stop as in ``stop()``.
    fileprivate func healthKitEnded(_ ended: HKWorkoutSession, error: (any Error)?) {
        let ours = withLock { () -> Bool in
            guard session === ended else { return false }
            session = nil
            return true
        }
        guard ours else { return }  // stopped by the app already, or an older session
        motion.stop()
        for e in (try? withWorkout({ try $0.stop(at: ProcessInfo.processInfo.systemUptime) })) ?? [] { onEvent(e) }
        if let error { onFailure?(error) }
    }

    @discardableResult
    private func swapSession(_ new: HKWorkoutSession?) -> HKWorkoutSession? {
        withLock {
            let old = session
            session = new
            return old
        }
    }

    private func currentSession() -> HKWorkoutSession? { withLock { session } }

    private func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func emit(_ e: WorkoutEvent) { onEvent(e) }

    /// A fresh, idle workout model (a stopped one refuses to start again), after a failed start.
    private func resetWorkout() {
        withWorkout { $0 = WorkoutSession(sampleRate: rate, wrist: wrist) }
    }

    private func withWorkout<T>(_ body: (inout WorkoutSession) throws -> T) rethrows -> T {
        try withLock { try body(&workout) }
    }
}

/// The session's delegate (HealthKit holds it weakly; the adapter keeps it). HealthKit calls it on
/// an anonymous serial background queue; on a failure, `didFailWithError` comes before the change
/// to `.ended`, so the error reaches the adapter first.
@available(watchOS 5.0, *)
private final class SessionObserver: NSObject, HKWorkoutSessionDelegate, @unchecked Sendable {
    weak var adapter: MotionWorkoutAdapter?

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {
        adapter?.healthKitEnded(workoutSession, error: error)
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
                        from fromState: HKWorkoutSessionState, date: Date) {
        if toState == .ended { adapter?.healthKitEnded(workoutSession, error: nil) }
    }
}
#endif
