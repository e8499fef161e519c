import SignalProcessing

/// Heart rate from one or more regions of skin seen by a camera, live: each region's colour goes
/// through its own ``RemotePulse``, and one ``WristRateTracker`` (no motion reference) tracks the
/// rate over the regions' pulses together, every hop.
///
/// A region that lost over ``maximumRejectedShare`` of a window's frames (jumps in colour, or no face
/// to take it from, or never a colour yet) is left out of that window's spectrum: its pulse there is
/// mostly held colours.
/// (The frames counted are the window's length of the latest frames, which the pulse, 1.6 s behind
/// them, reaches a little later.) A silence over the tracker's ``WristRateTracker/Settings/maximumGap``,
/// or a clock set back by more, starts the pulses and the tracker afresh.
/// A window where every region is left out is declined as flat. The rate of a whole recording is
/// ``RemotePulse/consensus(_:agreementBPM:minimumAgreement:minimumAnswered:)`` of the windows.
///
/// - Complexity: O(regions × window frames) per frame for the pulse, and the tracker's cost.
public struct SkinPulseTracker: Sendable {
    /// The tracker's settings for skin: the wrist defaults (8-s windows every 2 s, 40-200 bpm) with no
    /// motion reference to weigh, and windows declined below a confidence of 0.3, which white noise
    /// in place of the skin's colour reached in 1-2 % of its windows (eight generated 5-minute
    /// recordings; it reached 0.1, the wrist's threshold, in about half).
    public static var defaultTrackerSettings: WristRateTracker.Settings {
        var s = WristRateTracker.Settings()
        s.motionSuppression = 0
        s.minimumConfidence = 0.3
        return s
    }

    /// A region that lost more than this share of a window's frames is left out of that window.
    public static let maximumRejectedShare = 0.5

    public let regions: Int
    private var pulses: [RemotePulse]
    private var tracker: WristRateTracker
    /// Per region, whether each of the last window's frames was left out (1) or used (0).
    private var rejected: [RingBuffer<Double>]
    private var rejectedCounts: [Int]
    /// Per region, pulse samples not yet matched with the other regions' (by time).
    private var pending: [[RemotePulse.Sample]]
    /// Per region, windows it counted in.
    public private(set) var windowsCounted: [Int]
    private var lastTime: Double?
    /// Per region, whether it has had a colour since the start (or the last silence); until then a
    /// flat stand-in keeps its pulse in step with the other regions'.
    private var seen: [Bool]
    private var standIns: [Int]
    /// The stand-in colour of a region not yet seen: flat, so its pulse is 0.
    private static let standIn = SIMD3<Double>(repeating: 128)

    /// - Parameters:
    ///   - frameRate: frames per second (nominal; the frames' own times are kept).
    ///   - regions: skin regions per frame (1...``WristRateTracker/maximumChannels``).
    ///   - pulse: each region's remote pulse (method, window, frames left out).
    ///   - settings: the rate tracker's (``defaultTrackerSettings``: 8-s windows every 2 s).
    /// - Throws: `InvalidSettings` for settings the pulse or the tracker cannot use at this rate.
    public init(frameRate: Double, regions: Int, pulse: RemotePulse.Settings = .init(),
                tracker settings: WristRateTracker.Settings = SkinPulseTracker.defaultTrackerSettings) throws {
        guard regions >= 1 else { throw InvalidSettings("the remote pulse needs at least one skin region") }
        guard regions <= WristRateTracker.maximumChannels else {
            throw InvalidSettings("\(regions) skin regions: the rate tracker takes at most \(WristRateTracker.maximumChannels)")
        }
        self.regions = regions
        let one = try RemotePulse(frameRate: frameRate, settings: pulse)
        pulses = Array(repeating: one, count: regions)
        tracker = try WristRateTracker(sampleRate: frameRate, channels: regions, settings: settings)
        let frames = max(1, Int((tracker.windowDuration * frameRate).rounded()))
        rejected = Array(repeating: RingBuffer(capacity: frames), count: regions)
        rejectedCounts = Array(repeating: 0, count: regions)
        pending = Array(repeating: [], count: regions)
        windowsCounted = Array(repeating: 0, count: regions)
        seen = Array(repeating: false, count: regions)
        standIns = Array(repeating: 0, count: regions)
    }

    /// The window and hop as the tracker analyses them, seconds.
    public var windowDuration: Double { tracker.windowDuration }
    public var hopDuration: Double { tracker.hopDuration }
    /// Per region, frames left out: those its ``RemotePulse`` left out, and those before the region
    /// first had a colour.
    public var rejectedFrames: [Int] { (0..<regions).map { pulses[$0].rejectedFrames + standIns[$0] } }

    /// Feeds one frame: each region's mean colour (`colors.count == regions`; a colour that is not a
    /// number where the region was not seen).
    /// - Returns: the windows this frame completes (none or one).
    public mutating func process(time: Double, colors: [SIMD3<Double>]) -> [WristRateTracker.Estimate] {
        precondition(colors.count == regions, "one colour per region")
        var out: [WristRateTracker.Estimate] = []
        if time.isFinite, let last = lastTime, time - last > tracker.settings.maximumGap || time < last - tracker.settings.maximumGap {
            // A silence, or a clock set back: the pulses start afresh (the tracker does too, at the
            // next sample).
            out = finish()
        }
        if time.isFinite, lastTime.map({ time > $0 }) ?? true { lastTime = time }
        for k in 0..<regions {
            var color = colors[k]
            let usable = color.x.isFinite && color.y.isFinite && color.z.isFinite
            var standIn = false
            if !seen[k] {
                if usable {
                    seen[k] = true
                } else if time.isFinite {
                    // Not seen yet: a flat stand-in, so that the other regions' windows go on.
                    color = Self.standIn
                    standIn = true
                }
            }
            let before = pulses[k].rejectedFrames
            pending[k] += pulses[k].process(time: time, red: color.x, green: color.y, blue: color.z)
            if standIn && pulses[k].rejectedFrames == before { standIns[k] += 1 }
            if time.isFinite { record(region: k, rejected: standIn || pulses[k].rejectedFrames > before) }
        }
        return out + drain()
    }

    /// The windows the samples still held in the pulses complete (at the end of a recording, or
    /// before a silence); the pulses start afresh after it.
    public mutating func finish() -> [WristRateTracker.Estimate] {
        for k in 0..<regions { pending[k] += pulses[k].flush() }
        let out = drain()
        for k in 0..<regions {
            rejected[k].removeAll()
            rejectedCounts[k] = 0
            seen[k] = false
            pending[k].removeAll()
        }
        lastTime = nil
        return out
    }

    /// Runs a whole recording through the same code as the live path.
    /// - Parameters:
    ///   - times: seconds, increasing.
    ///   - colors: per region, one colour per time.
    ///   - frameRate: frames per second (nominal).
    ///   - pulse: each region's remote pulse.
    ///   - settings: the rate tracker's.
    /// - Throws: `InvalidSettings` for settings that cannot work, or regions of another length than `times`.
    public static func run(times: [Double], colors: [[SIMD3<Double>]], frameRate: Double, pulse: RemotePulse.Settings = .init(),
                           tracker settings: WristRateTracker.Settings = SkinPulseTracker.defaultTrackerSettings) throws
        -> (estimates: [WristRateTracker.Estimate], rejectedFrames: [Int], windowsCounted: [Int]) {
        guard colors.allSatisfy({ $0.count == times.count }) else {
            throw InvalidSettings("every region needs one colour per time")
        }
        var skin = try SkinPulseTracker(frameRate: frameRate, regions: colors.count, pulse: pulse, tracker: settings)
        var out: [WristRateTracker.Estimate] = []
        for i in times.indices { out += skin.process(time: times[i], colors: colors.map { $0[i] }) }
        out += skin.finish()
        return (out, skin.rejectedFrames, skin.windowsCounted)
    }

    private mutating func record(region k: Int, rejected isRejected: Bool) {
        if rejected[k].isFull { rejectedCounts[k] -= Int(rejected[k][0]) }
        _ = rejected[k].append(isRejected ? 1 : 0)
        if isRejected { rejectedCounts[k] += 1 }
    }

    /// Feeds the tracker every frame all regions have a pulse sample for, in time order (they are in
    /// step: a region not seen yet has a flat stand-in); a sample only some regions have is dropped.
    private mutating func drain() -> [WristRateTracker.Estimate] {
        var out: [WristRateTracker.Estimate] = []
        while pending.allSatisfy({ !$0.isEmpty }) {
            let heads = pending.map { $0[0].time }
            let latest = heads.max()!
            if heads.contains(where: { $0 < latest }) {
                for k in 0..<regions where pending[k][0].time < latest { pending[k].removeFirst() }
                continue
            }
            // The regions that kept most of the last window's frames count in a window ending now.
            let weights = (0..<regions).map { k in
                Double(rejectedCounts[k]) <= Self.maximumRejectedShare * Double(max(1, rejected[k].count)) ? 1.0 : 0
            }
            tracker.channelWeights = weights
            let values = pending.map { $0[0].value }
            for k in 0..<regions { pending[k].removeFirst() }
            let estimates = tracker.process(time: latest, ppg: values, acceleration: .zero)
            if !estimates.isEmpty { for k in 0..<regions where weights[k] > 0 { windowsCounted[k] += estimates.count } }
            out += estimates
        }
        return out
    }
}
