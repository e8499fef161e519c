import PulseDetection
import SignalProcessing

/// What the dashboard shows, kept from the pipeline's events: the state machine between
/// `PulseAnalyzer` (PulseDetection) and the viewers.
///
/// ``process(_:)`` turns each `PulseEvent` into the messages to send to every viewer (the
/// waveform thinned to at most ``Settings/waveformRate``; a declined window becomes a rate of "—");
/// ``snapshot`` is what a viewer who connects late gets at once: the session, contact, rate,
/// quality, HRV and the recent waveform and beats.
public struct DashboardState: Sendable {
    /// Display settings.
    public struct Settings: Sendable {
        /// Most waveform points sent per second of input, Hz: enough for a smooth line on a page
        /// (a 200-bpm pulse's second harmonic is 6.7 Hz), a third of what a 125-Hz PPG would send.
        public var waveformRate: Double = 50
        /// Seconds of waveform across the page, and of waveform and beats a late viewer is sent.
        public var windowSeconds: Double = 10
        /// HRV covers the confirmed beats of this many seconds: a minute, the usual "ultra-short"
        /// recording for RMSSD.
        public var hrvWindowSeconds: Double = 60
        /// Accepted intervals before RMSSD and SDNN are shown: about 20 s of beats at 60 bpm. A
        /// judgement: with fewer, one interval moves RMSSD by tens of percent.
        public var minimumHRVIntervals = 20
        /// Rates below this confidence are declined (the pipeline's setting).
        public var minimumConfidence = PulseAnalyzer.Settings().minimumConfidence
        public init() {}
    }

    public let settings: Settings
    /// What is shown (sent first to every viewer).
    public let session: DashboardMessage.Session
    /// The rate as the page shows it now.
    public private(set) var rate = DashboardMessage.RateReading(time: nil, bpm: nil, confidence: nil, status: .measuring)
    /// The latest contact change (nil before the first, and always for an input without contact sensing).
    public private(set) var contact: (time: Double, on: Bool)?
    /// The latest quality report (nil before the first, and after contact is lost).
    public private(set) var quality: QualityReport?
    /// The latest HRV reading (nil before the first confirmed beat).
    public private(set) var hrv: DashboardMessage.HRVReading?
    /// The time the input ended, once it has.
    public private(set) var endTime: Double?
    private var hrvTracker: RunningHRV
    private var waveform: RingBuffer<WaveformSample>
    private var beats: RingBuffer<Beat>
    private var confirmed: RingBuffer<Beat>
    private var lastWaveformTime = -Double.infinity
    private var lastWaveformSlot = -Double.infinity

    /// - Parameters:
    ///   - session: what is shown (its `windowSeconds` is taken from `settings`).
    ///   - settings: display settings.
    /// - Precondition: `settings.windowSeconds` is a positive number up to
    ///   `PulseAnalyzer.maximumWindowSeconds` (PulseDetection), `waveformRate` a positive number up to 10 kHz, and
    ///   `hrvWindowSeconds` as ``RunningHRV`` takes it: the waveform and beats kept are sized by
    ///   them (NaN or infinite values trapped converting to Int without a word).
    public init(session: DashboardMessage.Session, settings: Settings = Settings()) {
        precondition(settings.windowSeconds > 0 && settings.windowSeconds <= PulseAnalyzer.maximumWindowSeconds,
                     "DashboardState: windowSeconds must be a positive number up to \(PulseAnalyzer.maximumWindowSeconds) (got \(settings.windowSeconds))")
        precondition(settings.waveformRate > 0 && settings.waveformRate <= 10_000,
                     "DashboardState: waveformRate must be a positive number up to 10 kHz (got \(settings.waveformRate))")
        self.settings = settings
        var session = session
        session.windowSeconds = settings.windowSeconds
        self.session = session
        hrvTracker = RunningHRV(windowSeconds: settings.hrvWindowSeconds, minimumIntervals: settings.minimumHRVIntervals,
                                minimumConfidence: settings.minimumConfidence)
        waveform = RingBuffer(capacity: Int((settings.windowSeconds * settings.waveformRate).rounded(.up)) + 1)
        // Room for a window of beats at 240 bpm, the fastest the pipeline reports.
        let beatCapacity = Int((settings.windowSeconds * 4).rounded(.up)) + 1
        beats = RingBuffer(capacity: beatCapacity)
        confirmed = RingBuffer(capacity: beatCapacity)
    }

    /// Takes one pipeline event; returns the messages it gives every viewer (often none: a waveform
    /// sample between the thinned ones, a quality report that changes nothing shown but itself).
    public mutating func process(_ event: PulseEvent) -> [DashboardMessage] {
        switch event {
        case .waveform(let w):
            // Thinned by time: the first point in each 1/waveformRate slot (all of them from a
            // slower input).
            let slot = (w.time * settings.waveformRate).rounded(.down)
            guard slot > lastWaveformSlot else { return [] }
            lastWaveformSlot = slot
            lastWaveformTime = w.time
            _ = waveform.append(w)
            return [.waveform([w])]
        case .beat(let b):
            _ = beats.append(b)
            return [.beat(b)]
        case .confirmedBeat(let b):
            _ = confirmed.append(b)
            let reading = hrvTracker.add(b)
            hrv = reading
            return [.confirmedBeat(b), .hrv(reading)]
        case .rate(let r):
            rate = .init(time: r.time, bpm: r.bpm, confidence: r.confidence, status: .answered)
            return [.rate(rate)]
        case .quality(let q):
            quality = q
            var messages: [DashboardMessage] = [.quality(q)]
            // A confident window is followed by its `.rate` event; a declined one has none.
            if !(q.index >= settings.minimumConfidence) {
                rate = .init(time: q.time, bpm: nil, confidence: q.index, status: .declined)
                messages.append(.rate(rate))
            }
            return messages
        case .contactFound(let t):
            contact = (t, true)
            rate = .init(time: t, bpm: nil, confidence: nil, status: .measuring)
            return [.contact(time: t, on: true), .rate(rate)]
        case .contactLost(let t):
            contact = (t, false)
            quality = nil   // the last window's quality speaks of a finger no longer there
            rate = .init(time: t, bpm: nil, confidence: nil, status: .noContact)
            return [.contact(time: t, on: false), .rate(rate)]
        case .gap(let from, let to):
            // Analysis starts afresh after a gap: no rate until its first window (and a clock
            // that went back starts the waveform's slots again).
            lastWaveformSlot = -.infinity
            rate = .init(time: to, bpm: nil, confidence: nil, status: .measuring)
            return [.gap(from: from, to: to), .rate(rate)]
        }
    }

    /// Marks the input as ended at `time` (input seconds); returns the message for the viewers.
    public mutating func end(at time: Double) -> DashboardMessage {
        endTime = time
        return .end(time: time)
    }

    /// The messages a viewer who connects now gets first, so the page shows the current state at
    /// once: the session, contact, rate, quality and HRV, then the waveform and beats of the last
    /// ``Settings/windowSeconds`` (and the end, if the input has ended).
    public var snapshot: [DashboardMessage] {
        var messages: [DashboardMessage] = [.hello(session)]
        if let contact { messages.append(.contact(time: contact.time, on: contact.on)) }
        messages.append(.rate(rate))
        if let quality { messages.append(.quality(quality)) }
        if let hrv { messages.append(.hrv(hrv)) }
        let start = lastWaveformTime - settings.windowSeconds
        let recent = waveform.filter { $0.time >= start }
        if !recent.isEmpty { messages.append(.waveform(recent)) }
        messages += beats.filter { $0.time >= start }.map { .beat($0) }
        messages += confirmed.filter { $0.time >= start }.map { .confirmedBeat($0) }
        if let endTime { messages.append(.end(time: endTime)) }
        return messages
    }
}
