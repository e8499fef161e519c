// HealthKit's heartbeat series and its Swift-concurrency queries: iOS 15.4, watchOS 8.5, macOS 13
// (within Package.swift's floors). Not visionOS (the query descriptors are unavailable there).
#if canImport(HealthKit) && !os(visionOS)
import Foundation
import HealthKit
import PulseDetection

/// HRV from the beat-to-beat series Apple Watch records (HealthKit's heartbeat series, kept with
/// its heart-rate variability readings), with Vitals' artefact correction and HeartPy's measures:
/// RMSSD, pNN50, Poincaré and LF/HF, which Health itself does not give (it stores SDNN only).
///
/// Thin by design: it asks for read access, fetches the series samples and their beats, and hands
/// them to ``HRV/measures(heartbeats:)``, which is portable and tested.
///
/// ```swift
/// let reader = HeartbeatSeriesReader()
/// try await reader.requestAuthorization()
/// if let latest = try await reader.series(from: .now.addingTimeInterval(-86_400), to: .now).first {
///     let hrv = try await reader.hrv(of: latest)
///     print(hrv.measures.rmssd)
/// }
/// ```
// HealthKit documents the store as safe to use from any thread; the reader holds nothing else.
public final class HeartbeatSeriesReader: @unchecked Sendable {
    public let store: HKHealthStore

    public init(store: HKHealthStore = HKHealthStore()) {
        self.store = store
    }

    /// Asks the person for read access to heartbeat series (the app needs the HealthKit capability
    /// and an `NSHealthShareUsageDescription`). HealthKit does not say whether reading was allowed:
    /// a refused app simply finds no samples.
    public func requestAuthorization() async throws {
        try await store.requestAuthorization(toShare: [], read: [HKSeriesType.heartbeat()])
    }

    /// The heartbeat series samples that lie between `start` and `end`, newest first, at most `limit`.
    public func series(from start: Date, to end: Date, limit: Int = 10) async throws -> [HKHeartbeatSeriesSample] {
        let inRange = HKQuery.predicateForSamples(withStart: start, end: end)
        let query = HKSampleQueryDescriptor(predicates: [.heartbeatSeries(inRange)],
                                            sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)], limit: limit)
        return try await query.result(for: store)
    }

    /// The beats of `sample` (seconds from its start, each with whether a gap came before it).
    public func heartbeats(of sample: HKHeartbeatSeriesSample) async throws -> [(time: Double, precededByGap: Bool)] {
        var beats: [(time: Double, precededByGap: Bool)] = []
        for try await beat in HKHeartbeatSeriesQueryDescriptor(sample).results(for: store) {
            beats.append((time: beat.timeIntervalSinceStart, precededByGap: beat.precededByGap))
        }
        return beats
    }

    /// HRV of one series sample: its beats through ``HRV/measures(heartbeats:)`` (the interval across
    /// each gap left out, then the artefact and ectopic-beat rules).
    public func hrv(of sample: HKHeartbeatSeriesSample) async throws -> HRVResult {
        HRV.measures(heartbeats: try await heartbeats(of: sample))
    }
}
#endif
