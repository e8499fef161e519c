import PulseDetection

/// Heart rate from a face seen by a camera, live: frame by frame, the faces a detector reports
/// (Vision's, or ``FaceDetector``'s) are followed by ``FaceTracker``; the largest face's forehead
/// and cheeks (``SkinRegions``) are averaged in the frame, and `SkinPulseTracker` (PulseDetection)
/// reads the pulse of the three regions together.
///
/// Detection need not run on every frame: pass `nil` for a frame nothing looked at, and the followed
/// face's box stands. A frame without a followed face gives the regions no colour (the remote pulse
/// holds the last one and counts the frame as left out; a region that lost most of a window's
/// frames is left out of that window). After each window, the rate the recent windows agree on is
/// reported (`RemotePulse.consensus`); when the face read changes (another face, or none), the
/// pulses start afresh and the earlier windows no longer count.
///
/// ```swift
/// var pulse = try FacePulse(frameRate: 30)
/// for (frame, faces) in camera {                     // a Frame and the detector's faces (or nil)
///     for case .rate(let bpm, _, _) in pulse.process(frame, faces: faces) { print(bpm) }
/// }
/// ```
public struct FacePulse: Sendable {
    public struct Settings: Sendable {
        /// Where the forehead and cheeks lie in a face's box.
        public var layout = SkinRegions.Layout()
        public var tracker = FaceTracker.Settings()
        public var pulse = RemotePulse.Settings()
        public var rate = SkinPulseTracker.defaultTrackerSettings
        /// The rate reported after each window is the consensus of this many latest windows (10
        /// windows every 2 s: the last 26 s; at least 2).
        public var recentWindows = 10
        public init() {}
    }

    /// What a frame brought.
    public enum Event: Sendable, Equatable {
        /// A face is followed from now on (its third detection in a row), or no longer (missed for
        /// over the tracker's coasting time).
        case faceFound(id: Int, time: Double)
        case faceLost(id: Int, time: Double)
        /// A window of the rate tracker: its rate, or why it was declined.
        case window(WristRateTracker.Estimate)
        /// The rate the recent windows agree on, bpm, with the share of them that agree; after a
        /// window, when they do.
        case rate(bpm: Double, agreement: Double, time: Double)
    }

    public let settings: Settings
    /// The face whose skin is read (the largest followed), or nil.
    public private(set) var face: TrackedFace?
    /// The forehead's, left and right cheek's mean colour in the last frame (not a number where
    /// there was no face or the region fell outside the frame).
    public private(set) var lastColors: [SIMD3<Double>] = Array(repeating: SIMD3(repeating: .nan), count: 3)
    private var faces: FaceTracker
    private var skin: SkinPulseTracker
    private var recent: [WristRateTracker.Estimate] = []

    /// - Throws: `InvalidSettings` for pulse or rate settings that cannot work at this frame rate,
    ///   ``FaceTrackingError`` for tracker settings out of range, or a `recentWindows` under 1.
    public init(frameRate: Double, settings: Settings = Settings()) throws {
        guard settings.recentWindows >= 2 else {
            throw InvalidSettings("the rate needs at least two recent windows (a rate takes two answered windows)")
        }
        self.settings = settings
        faces = try FaceTracker(settings: settings.tracker)
        skin = try SkinPulseTracker(frameRate: frameRate, regions: 3, pulse: settings.pulse, tracker: settings.rate)
    }

    /// Per region (forehead, left cheek, right cheek), frames left out, and windows it counted in.
    public var rejectedFrames: [Int] { skin.rejectedFrames }
    public var windowsCounted: [Int] { skin.windowsCounted }

    /// Feeds one frame and the faces found in it (`nil`: no detection ran on this frame).
    /// - Returns: what the frame brought, in order.
    public mutating func process(_ frame: Frame, faces observations: [FaceObservation]?) -> [Event] {
        var events: [Event] = []
        if let observations {
            var trackEvents: [FaceTrackEvent] = []
            let followed = faces.process(observations, at: frame.time, events: &trackEvents)
            for e in trackEvents {
                switch e {
                case let .appeared(id, time): events.append(.faceFound(id: id, time: time))
                case let .lost(id, time): events.append(.faceLost(id: id, time: time))
                }
            }
            let next = followed.max { $0.boundingBox.area < $1.boundingBox.area }
            if next?.id != face?.id {
                // Another face, or none: its skin is another signal, and the old rate no longer stands.
                events += windows(skin.finish())
                recent.removeAll()
            }
            face = next
        }
        if let face {
            let regions = SkinRegions(face: face.boundingBox, layout: settings.layout)
            for (k, r) in [regions.forehead, regions.leftCheek, regions.rightCheek].enumerated() {
                let sampler = try? FrameSampler(region: .fraction(x: r.x, y: r.y, width: r.width, height: r.height))
                let c = sampler.flatMap { try? $0.sample(frame) }
                lastColors[k] = c.map { SIMD3($0.red, $0.green, $0.blue) } ?? SIMD3(repeating: .nan)
            }
        } else {
            lastColors = Array(repeating: SIMD3(repeating: .nan), count: 3)
        }
        return events + windows(skin.process(time: frame.time, colors: lastColors))
    }

    /// The windows the samples still held complete (at the end of a recording).
    public mutating func finish() -> [Event] {
        windows(skin.finish())
    }

    /// The windows as events, each followed by the recent windows' rate when they agree on one
    /// (not after a flat window: with no skin to read, no rate is current).
    private mutating func windows(_ estimates: [WristRateTracker.Estimate]) -> [Event] {
        var events: [Event] = []
        for e in estimates {
            events.append(.window(e))
            recent.append(e)
            if recent.count > settings.recentWindows { recent.removeFirst() }
            guard e.declined != .flatSignal else { continue }
            let consensus = RemotePulse.consensus(recent)
            if let bpm = consensus.bpm { events.append(.rate(bpm: bpm, agreement: consensus.agreement, time: e.end)) }
        }
        return events
    }
}
