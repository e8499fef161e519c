import PulseDetection

/// HRV over the confirmed beats of a sliding window, with the batch analysis's exclusions
/// (`PulseAnalysis.hrv(from:to:)` in PulseDetection: intervals across gaps, beats of doubtful shape or found while the
/// rate was declined, and the interval rules' artefacts stay out).
///
/// - Complexity: each ``add(_:)`` is O(beats in the window): the measures are recomputed from them.
public struct RunningHRV: Sendable {
    /// Seconds of beats the measures cover: the latest beat's time back this far.
    public let windowSeconds: Double
    /// Accepted intervals needed before RMSSD and SDNN are given.
    public let minimumIntervals: Int
    private let minimumConfidence: Double
    private var beats: [Beat] = []

    /// - Parameters:
    ///   - windowSeconds: seconds of beats the measures cover.
    ///   - minimumIntervals: accepted intervals needed before the measures are given.
    ///   - minimumConfidence: the pipeline's minimum rate confidence (`PulseAnalyzer.Settings.minimumConfidence`
    ///     in PulseDetection).
    /// - Precondition: `windowSeconds` is a positive finite number: with NaN or infinity no beat
    ///   ever left the window, which grew for as long as beats came (and each beat cost more).
    public init(windowSeconds: Double, minimumIntervals: Int, minimumConfidence: Double) {
        precondition(windowSeconds > 0 && windowSeconds.isFinite,
                     "RunningHRV: windowSeconds must be a positive number of seconds (got \(windowSeconds))")
        self.windowSeconds = windowSeconds
        self.minimumIntervals = minimumIntervals
        self.minimumConfidence = minimumConfidence
    }

    /// Takes a confirmed beat (time order) and returns the measures over the window ending at it.
    public mutating func add(_ beat: Beat) -> DashboardMessage.HRVReading {
        beats.append(beat)
        let start = beat.time - windowSeconds
        if let first = beats.firstIndex(where: { $0.time >= start }), first > 0 { beats.removeFirst(first) }
        let result = PulseAnalysis(beats: beats, minimumConfidence: minimumConfidence)
            .hrv(from: -.infinity, to: .infinity)
        let rejected = result?.rejected ?? []
        let accepted = (result?.intervals.count ?? 0) - rejected.count
        let enough = accepted >= minimumIntervals
        return DashboardMessage.HRVReading(
            rmssd: enough ? result?.measures.rmssd : nil, sdnn: enough ? result?.measures.sdnn : nil,
            accepted: accepted, rejected: rejected.count, needed: minimumIntervals, windowSeconds: windowSeconds,
            // Interval i ends at beat i + 1.
            artifactTimes: rejected.compactMap { $0.index + 1 < beats.count ? beats[$0.index + 1].time : nil })
    }
}
