/// Something the step detector noticed: a step, or a change between walking and standing still.
///
/// `time` is when it happened (a step's contact, the last step before a stop, the first step of a
/// walk); `reportedAt` is the time of the input sample at which the streaming detector emitted it,
/// so `reportedAt - time` is the latency a live app would see. Both are in seconds on the samples'
/// clock.
public struct PedometerEvent: Sendable, Equatable, Hashable {
    /// What kind of event this is, as Core Motion's `CMPedometerEventType` plus a step.
    public enum Kind: String, Sendable, Hashable {
        /// One step (one foot contact).
        case step
        /// The user stopped walking or running (`CMPedometerEventType.pause`).
        case pause
        /// The user started walking or running again (`CMPedometerEventType.resume`).
        case resume
    }

    /// The kind of event.
    public var kind: Kind
    /// When it happened, seconds.
    public var time: Double
    /// When the streaming detector emitted it (the time of the sample being processed), seconds.
    public var reportedAt: Double

    public init(kind: Kind, time: Double, reportedAt: Double) {
        self.kind = kind
        self.time = time
        self.reportedAt = reportedAt
    }
}
