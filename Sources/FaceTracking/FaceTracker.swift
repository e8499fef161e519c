import SignalProcessing

/// A face the tracker follows, as it stands at one frame.
public struct TrackedFace: Sendable, Equatable {
    /// Stable identity: the same face keeps it from frame to frame; never given to another face.
    /// IDs count up from 1 in the order faces are confirmed.
    public var id: Int
    /// Smoothed box, normalised image coordinates (origin top-left, y down). While the face is
    /// coasting (not detected in this frame) the box moves on at the face's last smoothed velocity.
    public var boundingBox: NormalizedRect
    /// Smoothed roll, radians, unwrapped: it runs on continuously past ±π instead of jumping by 2π
    /// (wrap it with `roll.remainder(dividingBy: 2 * .pi)` to display it). nil until a detection
    /// gave one.
    public var roll: Double?
    /// Smoothed yaw, radians; nil until a detection gave one.
    public var yaw: Double?
    /// The confidence of the last detection matched to this face, 0...1.
    public var confidence: Double
    /// Time of the first detection of this face (before confirmation), seconds.
    public var firstSeen: Double
    /// Time of the last frame the face was detected in, seconds.
    public var lastSeen: Double
    /// Whether the face was not detected in this frame and is carried on from `lastSeen`.
    public var isCoasting: Bool

    public init(id: Int, boundingBox: NormalizedRect, roll: Double?, yaw: Double?, confidence: Double,
                firstSeen: Double, lastSeen: Double, isCoasting: Bool) {
        self.id = id
        self.boundingBox = boundingBox
        self.roll = roll
        self.yaw = yaw
        self.confidence = confidence
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.isCoasting = isCoasting
    }
}

/// What changed in the set of tracked faces.
public enum FaceTrackEvent: Sendable, Equatable, Hashable {
    /// A face was confirmed and given `id`; `time` is the frame it was confirmed in, seconds.
    case appeared(id: Int, time: Double)
    /// The face `id` went undetected for longer than ``FaceTracker/Settings/maximumCoast`` and was
    /// dropped; `time` is the frame that dropped it, seconds. Its ID is not used again.
    case lost(id: Int, time: Double)
}

/// The detections of one frame, for the batch API.
public struct FaceDetections: Sendable, Equatable {
    /// Seconds (any origin, increasing from frame to frame).
    public var time: Double
    public var observations: [FaceObservation]
    public init(time: Double, observations: [FaceObservation]) {
        self.time = time
        self.observations = observations
    }
}

/// The tracker's answer for one frame, for the batch API.
public struct TrackedFrame: Sendable, Equatable {
    /// Seconds, the frame's time.
    public var time: Double
    /// Confirmed faces in ascending ID order (empty for an ignored frame).
    public var faces: [TrackedFace]
    /// Events of this frame, lost before appeared.
    public var events: [FaceTrackEvent]
    public init(time: Double, faces: [TrackedFace], events: [FaceTrackEvent]) {
        self.time = time
        self.faces = faces
        self.events = events
    }
}

/// Follows faces across frames: gives each a stable ID, smooths its box and angles, and reports
/// faces appearing and being lost.
///
/// Each frame:
/// 1. Faces undetected for longer than `maximumCoast` are dropped (a `lost` event).
/// 2. Detections are matched to faces greedily by intersection over union (IoU), best pair first,
///    against each face's box predicted to this frame from its smoothed velocity; pairs under
///    `minimumOverlap` are never matched.
/// 3. A matched face's box (centre and size) is smoothed by a One Euro filter (Casiez et al., CHI
///    2012) whose cutoff rises with the face's speed in face widths per second, so a still face is
///    steady and a moving one is followed closely; roll is unwrapped across ±π, and roll and yaw
///    are smoothed by One Euro filters too. All steps use the frames' times, so a variable frame
///    rate is handled.
/// 4. A detection matching no face starts a candidate, unless it overlaps a followed face by
///    `minimumOverlap` (a face reported twice); a candidate is confirmed, given the next ID and
///    reported (`appeared`) once it has been matched in `confirmationFrames` frames in a row, and
///    dropped silently at its first miss before that.
///
/// Bad input is ignored and counted, never fatal: a frame whose time is not finite or not after the
/// previous frame's (``ignoredFrames``), an observation with a non-finite or empty box, or a
/// non-finite confidence or angle (``ignoredObservations``), and detections beyond `maximumFaces`
/// tracks (``ignoredObservations`` too).
///
/// - Complexity: O(F · D · min(F, D)) per frame for F faces and D detections; after the first
///   frames nothing is allocated but the returned array (its working buffers are kept and reused).
public struct FaceTracker: Sendable {
    public struct Settings: Sendable, Equatable {
        /// The least IoU at which a detection can continue a face, 0...1. Default 0.3, as in SORT
        /// (Bewley et al. 2016): two boxes of one size overlap this much when shifted by about half
        /// their width (IoU = (1 - s)/(1 + s) for a shift of s widths), far more than a face moves
        /// between frames at 10 fps or more once its velocity is predicted, while faces side by
        /// side do not overlap at all.
        public var minimumOverlap: Double = 0.3
        /// Frames in a row a new face must be detected before it gets an ID, ≥ 1. Default 3 (0.1 s
        /// at 30 fps): a cascade detector's false positives seldom repeat in the same place three
        /// frames running, and a real face waits only two frames to appear.
        public var confirmationFrames: Int = 3
        /// How long a face may go undetected and keep its ID, seconds, ≥ 0. Default 0.5 s: covers
        /// a blink, a hand passing, motion blur, a head turned for a moment or another face passing
        /// in front; beyond it the predicted box has drifted and the person has likely left.
        public var maximumCoast: Double = 0.5
        /// The most faces (confirmed and candidates) followed at once, 1...``largestMaximumFaces``;
        /// extra detections are ignored. Default 16, beyond any phone-camera use, and it bounds the
        /// work per frame.
        public var maximumFaces: Int = 16
        /// The largest `maximumFaces` taken: 1024. The tracker reserves room for 4 × n² overlaps at
        /// once (a million faces asked for 32 TB, `Int.max` trapped multiplying).
        public static let largestMaximumFaces = 1024
        /// Smoothing of the box centre and size. The speed coefficient is in Hz per face width per
        /// second (speed relative to the face's size, so a near and a far face behave alike).
        /// Defaults: 0.5 Hz at rest, +3 Hz per face width per second, speed low-passed at 0.5 Hz,
        /// chosen on synthetic boxes (the tests): a still face's jitter is cut about 3-fold, and a
        /// face moving 2 widths per second is trailed by under 0.1 width (a fixed 1-Hz low-pass,
        /// smoothing about as much, trails it by 0.32 width).
        public var boxSmoothing = OneEuroFilter.Parameters(minimumCutoff: 0.5, speedCoefficient: 3, derivativeCutoff: 0.5)
        /// Smoothing of roll and yaw; the speed coefficient is in Hz per radian per second.
        /// Defaults: 1 Hz at rest, +1 Hz per rad/s, speed low-passed at 1 Hz (not tuned on data).
        public var angleSmoothing = OneEuroFilter.Parameters(minimumCutoff: 1, speedCoefficient: 1, derivativeCutoff: 1)

        public init() {}

        func validated() throws(FaceTrackingError) -> Settings {
            func check(_ ok: Bool, _ what: String) throws(FaceTrackingError) {
                if !ok { throw FaceTrackingError(.invalidSetting, what) }
            }
            try check(minimumOverlap.isFinite && minimumOverlap > 0 && minimumOverlap <= 1,
                      "minimumOverlap must be in (0, 1] (got \(minimumOverlap))")
            try check(confirmationFrames >= 1, "confirmationFrames must be at least 1 (got \(confirmationFrames))")
            try check(maximumCoast.isFinite && maximumCoast >= 0, "maximumCoast must be a finite number of seconds ≥ 0 (got \(maximumCoast))")
            try check(maximumFaces >= 1 && maximumFaces <= Self.largestMaximumFaces,
                      "maximumFaces must be 1...\(Self.largestMaximumFaces) (got \(maximumFaces))")
            for (name, p) in [("boxSmoothing", boxSmoothing), ("angleSmoothing", angleSmoothing)] {
                try check(p.minimumCutoff.isFinite && p.minimumCutoff > 0 && p.derivativeCutoff.isFinite && p.derivativeCutoff > 0
                          && p.speedCoefficient.isFinite && p.speedCoefficient >= 0,
                          "\(name): cutoffs must be positive and the speed coefficient ≥ 0 (got \(p))")
            }
            return self
        }
    }

    public let settings: Settings
    /// Frames ignored because their time was not finite or not after the previous frame's.
    public private(set) var ignoredFrames = 0
    /// Observations ignored: invalid (see ``FaceObservation/isValid``) or beyond `maximumFaces`.
    public private(set) var ignoredObservations = 0

    private var tracks: [Track] = []
    private var nextID = 1
    private var lastTime = -Double.infinity
    // Working buffers, kept between frames so a frame allocates nothing but its output.
    private var overlaps: [Double] = []
    private var trackMatch: [Int] = []
    private var detectionUsed: [Bool] = []

    /// A tracker with the default settings.
    public init() {
        self.settings = Settings()
        reserve(settings.maximumFaces)
    }

    /// - Throws: ``FaceTrackingError`` `.invalidSetting` naming the setting outside its range.
    public init(settings: Settings) throws(FaceTrackingError) {
        self.settings = try settings.validated()
        reserve(settings.maximumFaces)
    }

    private mutating func reserve(_ n: Int) {
        tracks.reserveCapacity(n)
        trackMatch.reserveCapacity(n)
        overlaps.reserveCapacity(n * 4 * n)
        detectionUsed.reserveCapacity(4 * n)
    }

    /// Feeds the detections of the frame at `time` (seconds); returns the confirmed faces, in
    /// ascending ID order. An ignored frame (see the type's discussion) returns no faces and
    /// changes nothing.
    public mutating func process(_ observations: [FaceObservation], at time: Double) -> [TrackedFace] {
        var events: [FaceTrackEvent] = []
        return process(observations, at: time, events: &events)
    }

    /// As ``process(_:at:)``, appending this frame's events to `events` (lost faces first, then
    /// faces that appeared, each in ascending ID order).
    public mutating func process(_ observations: [FaceObservation], at time: Double,
                                 events: inout [FaceTrackEvent]) -> [TrackedFace] {
        guard time.isFinite && time > lastTime else {
            ignoredFrames += 1
            return []
        }
        lastTime = time
        dropStale(at: time, events: &events)
        match(observations, at: time)
        updateMatched(observations, at: time, events: &events)
        startCandidates(observations, at: time, events: &events)
        var faces: [TrackedFace] = []
        faces.reserveCapacity(tracks.count)
        for t in tracks where t.id > 0 { faces.append(t.face(at: time, coastHorizon: settings.maximumCoast)) }
        return faces
    }

    /// Runs over a recording, one ``TrackedFrame`` per frame (the same code as ``process(_:at:)``);
    /// feeding a recording whole or in pieces gives the same frames.
    public mutating func process<C: Collection>(_ frames: C) -> [TrackedFrame] where C.Element == FaceDetections {
        var out: [TrackedFrame] = []
        out.reserveCapacity(frames.count)
        for f in frames {
            var events: [FaceTrackEvent] = []
            let faces = process(f.observations, at: f.time, events: &events)
            out.append(TrackedFrame(time: f.time, faces: faces, events: events))
        }
        return out
    }

    // MARK: - Steps

    private mutating func dropStale(at time: Double, events: inout [FaceTrackEvent]) {
        let coast = settings.maximumCoast
        for t in tracks where t.id > 0 && time - t.lastSeen > coast {
            events.append(.lost(id: t.id, time: time))
        }
        tracks.removeAll { time - $0.lastSeen > coast }
    }

    /// Greedy best-IoU assignment: `trackMatch[i]` is the detection matched to track i, or -1.
    private mutating func match(_ observations: [FaceObservation], at time: Double) {
        let nt = tracks.count, nd = observations.count
        trackMatch.removeAll(keepingCapacity: true)
        trackMatch.append(contentsOf: repeatElement(-1, count: nt))
        detectionUsed.removeAll(keepingCapacity: true)
        for o in observations {
            detectionUsed.append(!o.isValid)
            if !o.isValid { ignoredObservations += 1 }
        }
        overlaps.removeAll(keepingCapacity: true)
        for t in tracks {
            let predicted = t.box.predicted(at: time, horizon: settings.maximumCoast)
            for o in observations { overlaps.append(o.isValid ? predicted.intersectionOverUnion(o.boundingBox) : 0) }
        }
        while true {
            var best = settings.minimumOverlap, bi = -1, bj = -1
            for i in 0..<nt where trackMatch[i] < 0 {
                for j in 0..<nd where !detectionUsed[j] && overlaps[i * nd + j] >= best {
                    if overlaps[i * nd + j] > best || bi < 0 { best = overlaps[i * nd + j]; bi = i; bj = j }
                }
            }
            guard bi >= 0 else { return }
            trackMatch[bi] = bj
            detectionUsed[bj] = true
        }
    }

    private mutating func updateMatched(_ observations: [FaceObservation], at time: Double,
                                        events: inout [FaceTrackEvent]) {
        for k in tracks.indices {
            let j = trackMatch[k]
            if j < 0 {
                // A candidate must be seen in consecutive frames; a confirmed face coasts.
                if tracks[k].id == 0 { tracks[k].lastSeen = -Double.infinity }
                continue
            }
            tracks[k].update(with: observations[j], at: time, settings: settings)
            if tracks[k].id == 0 && tracks[k].hits >= settings.confirmationFrames {
                tracks[k].id = nextID
                nextID += 1
                events.append(.appeared(id: tracks[k].id, time: time))
            }
        }
        tracks.removeAll { $0.lastSeen == -Double.infinity }
    }

    private mutating func startCandidates(_ observations: [FaceObservation], at time: Double,
                                          events: inout [FaceTrackEvent]) {
        for (j, o) in observations.enumerated() where !detectionUsed[j] && !overlapsFollowedFace(o, at: time) {
            guard tracks.count < settings.maximumFaces else {
                ignoredObservations += 1
                continue
            }
            var t = Track(o, at: time, settings: settings)
            if settings.confirmationFrames <= 1 {
                t.id = nextID
                nextID += 1
                events.append(.appeared(id: t.id, time: time))
            }
            tracks.append(t)
        }
    }

    /// Whether `o` overlaps a face already followed (confirmed or candidate, including one started
    /// from this frame) by `minimumOverlap` or more: a second box on that face (a detector reporting
    /// one face twice), not a new face.
    private func overlapsFollowedFace(_ o: FaceObservation, at time: Double) -> Bool {
        tracks.contains { $0.box.predicted(at: time, horizon: settings.maximumCoast)
            .intersectionOverUnion(o.boundingBox) >= settings.minimumOverlap }
    }
}

// MARK: - One track

/// A followed face's state; `id` is 0 while it is a candidate.
private struct Track: Sendable {
    var id = 0
    var hits = 1
    var firstSeen: Double
    var lastSeen: Double
    var confidence: Double
    var box: BoxSmoother
    var roll: AngleSmoother?
    var yaw: AngleSmoother?

    init(_ o: FaceObservation, at time: Double, settings: FaceTracker.Settings) {
        firstSeen = time
        lastSeen = time
        confidence = o.confidence
        box = BoxSmoother(o.boundingBox, at: time)
        roll = o.roll.map { AngleSmoother($0, at: time, parameters: settings.angleSmoothing, unwrapped: true) }
        yaw = o.yaw.map { AngleSmoother($0, at: time, parameters: settings.angleSmoothing, unwrapped: false) }
    }

    mutating func update(with o: FaceObservation, at time: Double, settings: FaceTracker.Settings) {
        hits += 1
        lastSeen = time
        confidence = o.confidence
        box.update(o.boundingBox, at: time, parameters: settings.boxSmoothing)
        if let r = o.roll {
            if roll == nil { roll = AngleSmoother(r, at: time, parameters: settings.angleSmoothing, unwrapped: true) } else { roll!.update(r, at: time) }
        }
        if let y = o.yaw {
            if yaw == nil { yaw = AngleSmoother(y, at: time, parameters: settings.angleSmoothing, unwrapped: false) } else { yaw!.update(y, at: time) }
        }
    }

    func face(at time: Double, coastHorizon: Double) -> TrackedFace {
        TrackedFace(id: id, boundingBox: box.predicted(at: time, horizon: coastHorizon), roll: roll?.filter.value,
                    yaw: yaw?.filter.value, confidence: confidence, firstSeen: firstSeen, lastSeen: lastSeen,
                    isCoasting: lastSeen < time)
    }
}

/// One Euro smoothing of a box's centre and size with one cutoff for all four, driven by the
/// centre's speed in face widths per second.
private struct BoxSmoother: Sendable {
    var midX, midY, width, height: Double
    /// Low-passed centre velocity (from the detected centres), normalised units per second.
    var vx = 0.0, vy = 0.0
    var time: Double
    var lastInput: (x: Double, y: Double)

    init(_ b: NormalizedRect, at time: Double) {
        midX = b.midX
        midY = b.midY
        width = b.width
        height = b.height
        self.time = time
        lastInput = (b.midX, b.midY)
    }

    mutating func update(_ b: NormalizedRect, at t: Double, parameters p: OneEuroFilter.Parameters) {
        let dt = t - time
        let ad = OneEuroFilter.smoothingFactor(cutoff: p.derivativeCutoff, interval: dt)
        vx += ad * ((b.midX - lastInput.x) / dt - vx)
        vy += ad * ((b.midY - lastInput.y) / dt - vy)
        lastInput = (b.midX, b.midY)
        let speed = (vx * vx + vy * vy).squareRoot() / width
        let a = OneEuroFilter.smoothingFactor(cutoff: p.minimumCutoff + p.speedCoefficient * speed, interval: dt)
        midX += a * (b.midX - midX)
        midY += a * (b.midY - midY)
        width += a * (b.width - width)
        height += a * (b.height - height)
        time = t
    }

    /// The box moved on at the smoothed velocity to `t`, for at most `horizon` seconds.
    func predicted(at t: Double, horizon: Double) -> NormalizedRect {
        let ahead = min(max(t - time, 0), horizon)
        return NormalizedRect(midX: midX + vx * ahead, midY: midY + vy * ahead, width: width, height: height)
    }
}

/// One Euro smoothing of an angle; roll is first unwrapped: each reading is moved by whole turns
/// to lie within π of the previous unwrapped reading.
private struct AngleSmoother: Sendable {
    var filter: OneEuroFilter
    var last: Double
    let unwrapped: Bool

    init(_ angle: Double, at time: Double, parameters: OneEuroFilter.Parameters, unwrapped: Bool) {
        filter = OneEuroFilter(parameters: parameters)
        last = angle
        self.unwrapped = unwrapped
        _ = filter.filter(angle, at: time)
    }

    mutating func update(_ angle: Double, at time: Double) {
        let a = unwrapped ? last + (angle - last).remainder(dividingBy: 2 * .pi) : angle
        last = a
        _ = filter.filter(a, at: time)
    }
}
