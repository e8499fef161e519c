import PulseDetection
import VitalsIO

/// One message to the dashboard page: a small JSON object with a `"type"` field, sent as one
/// Server-Sent Event (``serverSentEvent``).
///
/// Times are seconds of input (the recording's or the simulated finger's clock, from 0), rates bpm,
/// HRV in milliseconds; `null` where the pipeline declines to answer.
public enum DashboardMessage: Sendable, Equatable {
    /// First message to every viewer: what is being shown.
    case hello(Session)
    /// Points of the pulse waveform, in time order (one live, or the recent history for a late viewer).
    case waveform([WaveformSample])
    /// A live beat (`PulseEvent.beat(_:)` in PulseDetection): time and interval since the previous one.
    case beat(time: Double, intervalMs: Double?)
    /// A beat confirmed by the beat tracker (`PulseEvent.confirmedBeat(_:)`), the kind HRV uses.
    case confirmedBeat(time: Double, intervalMs: Double?)
    /// The heart rate as the page shows it.
    case rate(RateReading)
    /// Finger on the lens (`on`) or lifted, at `time`.
    case contact(time: Double, on: Bool)
    /// Signal quality of the latest analysis window.
    case quality(QualityReport)
    /// Heart-rate variability over the recent confirmed beats.
    case hrv(HRVReading)
    /// The input stopped (or its clock jumped) from `from` to `to` seconds; analysis restarted.
    case gap(from: Double, to: Double)
    /// The input ended at `time` (a recording played out, or `--seconds` reached).
    case end(time: Double)

    /// What the dashboard shows: set once, sent first to each viewer.
    public struct Session: Sendable, Equatable {
        /// A line naming the input ("simulated finger, 72 bpm", a file name).
        public var source: String
        /// Replay speed: input seconds per wall-clock second.
        public var speed: Double
        /// Whether the input can tell a finger on the lens (colour means can; a PPG column cannot).
        public var contactSensing: Bool
        /// Seconds of waveform the page shows across its width (``DashboardState`` sets it from its
        /// settings).
        public var windowSeconds: Double = 10

        /// - Parameters:
        ///   - source: a line naming the input.
        ///   - speed: input seconds per wall-clock second.
        ///   - contactSensing: whether contact found/lost events can come.
        public init(source: String, speed: Double, contactSensing: Bool) {
            self.source = source
            self.speed = speed
            self.contactSensing = contactSensing
        }
    }

    /// The heart rate shown, or why there is none.
    public struct RateReading: Sendable, Equatable {
        /// Why a rate is or is not shown.
        public enum Status: String, Sendable, Equatable {
            /// No analysis window yet (the first rate comes about 5 s after contact).
            case measuring
            /// A rate the pipeline reported.
            case answered
            /// The latest window's quality was below the pipeline's minimum confidence.
            case declined
            /// The finger is off the lens (or the input stopped).
            case noContact = "no_contact"
        }

        /// Input time of the reading, seconds (nil before any).
        public var time: Double?
        /// Beats per minute; nil unless `status` is `answered`.
        public var bpm: Double?
        /// The latest window's confidence, 0...1 (nil before the first window of a stretch).
        public var confidence: Double?
        public var status: Status

        /// A reading from its parts.
        public init(time: Double?, bpm: Double?, confidence: Double?, status: Status) {
            self.time = time
            self.bpm = bpm
            self.confidence = confidence
            self.status = status
        }
    }

    /// HRV from the confirmed beats of the last ``windowSeconds``, artefacts excluded.
    public struct HRVReading: Sendable, Equatable {
        /// Root mean square of successive differences of accepted intervals, ms (nil until `accepted`
        /// reaches `needed`).
        public var rmssd: Double?
        /// Standard deviation of the accepted intervals, ms (nil until enough).
        public var sdnn: Double?
        /// Intervals that went into the measures.
        public var accepted: Int
        /// Intervals kept out (artefacts, ectopic beats, beats of doubtful shape or found while the
        /// rate was declined).
        public var rejected: Int
        /// Accepted intervals needed before the measures are shown.
        public var needed: Int
        /// Seconds of beats the measures cover at most.
        public var windowSeconds: Double
        /// Times of the beats whose interval was kept out, seconds (for marking them).
        public var artifactTimes: [Double]

        /// A reading from its parts.
        public init(rmssd: Double?, sdnn: Double?, accepted: Int, rejected: Int, needed: Int, windowSeconds: Double,
                    artifactTimes: [Double]) {
            self.rmssd = rmssd
            self.sdnn = sdnn
            self.accepted = accepted
            self.rejected = rejected
            self.needed = needed
            self.windowSeconds = windowSeconds
            self.artifactTimes = artifactTimes
        }
    }

    /// The message as a JSON object: `{"type": ..., fields}`. Times rounded to the millisecond,
    /// waveform values to 3 decimals, rates and HRV to 0.1.
    public var json: JSON {
        func time(_ t: Double?) -> JSON { .num(t, digits: 3) }
        func ms(_ v: Double?) -> JSON { .num(v, digits: 1) }
        switch self {
        case .hello(let s):
            return .object([("type", .string("hello")), ("source", .string(s.source)), ("speed", .num(s.speed)),
                            ("contact_sensing", .bool(s.contactSensing)), ("window_s", .num(s.windowSeconds))])
        case .waveform(let points):
            return .object([("type", .string("waveform")),
                            ("t", .array(points.map { time($0.time) })),
                            ("v", .array(points.map { .num($0.value, digits: 3) }))])
        case .beat(let t, let ibi):
            return .object([("type", .string("beat")), ("t", time(t)), ("ibi_ms", ms(ibi))])
        case .confirmedBeat(let t, let ibi):
            return .object([("type", .string("confirmed_beat")), ("t", time(t)), ("ibi_ms", ms(ibi))])
        case .rate(let r):
            return .object([("type", .string("rate")), ("t", time(r.time)), ("bpm", .num(r.bpm, digits: 1)),
                            ("confidence", .num(r.confidence, digits: 2)), ("status", .string(r.status.rawValue))])
        case .contact(let t, let on):
            return .object([("type", .string("contact")), ("t", time(t)), ("on", .bool(on))])
        case .quality(let q):
            return .object([("type", .string("quality")), ("t", time(q.time)), ("index", .num(q.index, digits: 2)),
                            ("channel", .string(q.channel)), ("beat_channel", .string(q.beatChannel)),
                            ("perfusion_percent", .num(q.perfusionPercent, digits: 2)),
                            ("tracked_bpm", .num(q.trackedBPM, digits: 1))])
        case .hrv(let h):
            return .object([("type", .string("hrv")), ("rmssd_ms", ms(h.rmssd)), ("sdnn_ms", ms(h.sdnn)),
                            ("accepted", .num(Double(h.accepted))), ("rejected", .num(Double(h.rejected))),
                            ("needed", .num(Double(h.needed))), ("window_s", .num(h.windowSeconds)),
                            ("artifact_t", .array(h.artifactTimes.map { time($0) }))])
        case .gap(let from, let to):
            return .object([("type", .string("gap")), ("from", time(from)), ("to", time(to))])
        case .end(let t):
            return .object([("type", .string("end")), ("t", time(t))])
        }
    }

    /// A live beat's message (interval in ms).
    public static func beat(_ b: Beat) -> DashboardMessage {
        .beat(time: b.time, intervalMs: b.interval.map { $0 * 1000 })
    }

    /// A confirmed beat's message (interval in ms).
    public static func confirmedBeat(_ b: Beat) -> DashboardMessage {
        .confirmedBeat(time: b.time, intervalMs: b.interval.map { $0 * 1000 })
    }

    /// The message framed as one Server-Sent Event: `data: {json}` and a blank line. The JSON is on
    /// one line, so one `data:` field carries it.
    public var serverSentEvent: String {
        "data: " + json.serialized() + "\n\n"
    }
}
