/// One input to the pulse pipeline: a camera frame reduced to its mean colour, or one sample of a
/// photoplethysmogram recorded by another device (a pulse oximeter, a watch).
public enum PulseInput: Sendable, Equatable {
    /// A frame's mean colour (fingertip on the lens, torch on).
    case color(ColorSample)
    /// One PPG sample: `time` in seconds, `value` in the recording's own units (larger = more blood).
    case ppg(time: Double, value: Double)

    /// The sample's time, seconds.
    public var time: Double {
        switch self {
        case .color(let c): c.time
        case .ppg(let t, _): t
        }
    }
}

/// A point of the pulse waveform for drawing: the band-passed, orientation-corrected signal of the
/// channel currently used, in units of its recent robust spread (roughly -3...3).
public struct WaveformSample: Sendable, Equatable {
    /// Seconds.
    public var time: Double
    /// Dimensionless: signal divided by its recent robust standard deviation.
    public var value: Double

    /// A sample (e.g. for previews and tests of code that draws the waveform).
    public init(time: Double, value: Double) {
        self.time = time
        self.value = value
    }
}

/// A heartbeat.
public struct Beat: Sendable, Equatable {
    /// The beat's fiducial time in seconds: the steepest point of the systolic upstroke, refined to a
    /// fraction of a sample. It precedes the pulse peak by roughly 0.1 s.
    public var time: Double
    /// Seconds since the previous beat of the same uninterrupted stretch, or nil for the first.
    public var interval: Double?
    /// Upstroke steepness relative to the recent typical beat (1 = typical).
    public var strength: Double
    /// True when the interval is judged ectopic or an artefact (kept out of HRV).
    public var isArtifact: Bool = false
    /// Why the interval ending at this beat was kept out of HRV (nil when it was not, or no HRV was
    /// computed).
    public var artifactReason: IntervalRejection?
    /// True when HRV judges this beat itself ectopic or misplaced: the beat between the short and
    /// the long interval of an ``IntervalRejection/ectopicOrMisplacedBeat`` pair.
    public var isEctopic = false
    /// Correlation of the beat's waveform with the recent typical beat, -1...1 (see ``BeatShape``);
    /// nil when not graded (live beats, the first beats of a stretch).
    public var shapeQuality: Double?
    /// The beat's amplitude over the typical beat's (nil when not graded).
    public var shapeAmplitude: Double?
    /// True when the beat's shape is unlike the typical beat's (see ``BeatShape``): its time is
    /// doubtful, and it is kept out of HRV.
    public var hasDoubtfulShape = false
    /// The quality index (``QualityReport/index``) of the latest rate analysis when the beat was
    /// reported, nil before the first. A beat found while the rate is declined (index below the
    /// pipeline's minimum confidence: noise, a lost finger) is an upstroke in a signal the pipeline
    /// does not trust.
    public var rateConfidence: Double?

    public init(time: Double, interval: Double?, strength: Double, isArtifact: Bool = false) {
        self.time = time
        self.interval = interval
        self.strength = strength
        self.isArtifact = isArtifact
    }
}

/// A heart-rate estimate over an analysis window ending at `time`.
public struct RateEstimate: Sendable, Equatable {
    /// End of the analysis window, seconds.
    public var time: Double
    /// Beats per minute.
    public var bpm: Double
    /// 0...1: how much the signal supports this rate (spectral concentration, agreement of channels
    /// and of the rate history). Rates below the pipeline's minimum confidence are not reported.
    ///
    /// What a value means in practice, on the 40 MTHS fingertip recordings (5-s window answers of
    /// `vitals heart-rate --window 5 --hop 1`, after the first 10 s, against the pulse oximeter):
    /// within 5 bpm in 62 % of answers below 0.3, 78 % at 0.3-0.5, 89 % at 0.5-0.7, 92 % at 0.7-0.9
    /// and 100 % above 0.9. In 25 of the 40 recordings no 5-s window reaches 0.9; in 32 one passes 0.7.
    public var confidence: Double

    /// An estimate (e.g. for previews and tests of code that shows rates).
    public init(time: Double, bpm: Double, confidence: Double) {
        self.time = time
        self.bpm = bpm
        self.confidence = confidence
    }
}

/// Why the pipeline declined or how well the signal supports an answer, over the latest window.
public struct QualityReport: Sendable, Equatable {
    /// End of the analysis window, seconds.
    public var time: Double
    /// 0...1 overall signal quality index (the rate confidence).
    public var index: Double
    /// The tracker's rate for this window, bpm, whether or not it was confident enough to report.
    public var trackedBPM: Double
    /// Fraction of the pulse band's power at the tracked rate and its harmonic, 0...1.
    public var spectralConcentration: Double
    /// Fraction of usable channels whose own spectral peak agrees with the tracked rate, 0...1.
    public var channelAgreement: Double
    /// Skewness of the oriented pulse waveform (clean pulses are positively skewed).
    public var skewness: Double
    /// Perfusion index of the chosen channel, percent: its pulsatile amplitude (twice the robust
    /// standard deviation of the pulse band) over its mean level; nil for hue, which has no level,
    /// and for a signal whose pulse exceeds its level (a zero-mean or offset signal has none).
    public var perfusionPercent: Double?
    /// The channel the rate was read from: "red", "green", "blue", "hue" or "ppg". Beats and the
    /// waveform may come from another: `beatChannel`.
    public var channel: String
    /// Autocorrelation of the chosen channel's window at the tracked period, -1...1: how well the
    /// waveform repeats itself one beat later.
    public var periodicity: Double = .nan
    /// The channel beats are timed on and the waveform comes from, from this window on (the one whose
    /// upstrokes stand highest above its noise among those carrying the pulse).
    public var beatChannel: String = ""

    /// A report from its parts (e.g. for previews and tests of code that shows signal quality).
    public init(time: Double, index: Double, trackedBPM: Double, spectralConcentration: Double, channelAgreement: Double,
                skewness: Double, perfusionPercent: Double?, channel: String, periodicity: Double = .nan,
                beatChannel: String = "") {
        self.time = time
        self.index = index
        self.trackedBPM = trackedBPM
        self.spectralConcentration = spectralConcentration
        self.channelAgreement = channelAgreement
        self.skewness = skewness
        self.perfusionPercent = perfusionPercent
        self.channel = channel
        self.periodicity = periodicity
        self.beatChannel = beatChannel
    }
}

/// Everything the live pipeline reports, in the order it decides it: each kind of event comes in
/// time order, but a confirmed beat (decided after the beat tracker's lag, about 2.5 s) arrives after
/// waveform samples of later times.
///
/// After contact is found, the first rate takes about 5 s (the first analysis window); until then
/// there are only waveform samples, and no live beats or quality reports: an app shows
/// "measuring…" meanwhile. The beats of those first seconds arrive as `confirmedBeat` events with
/// the first rate.
public enum PulseEvent: Sendable, Equatable {
    case waveform(WaveformSample)
    /// A beat as soon as it is seen (within 250 ms of the pulse), for animation and sound; from the
    /// first rate after contact on (live beats need the rate's period).
    case beat(Beat)
    /// A beat confirmed by the beat tracker after its decision lag; these are the beats intervals and
    /// HRV are computed from.
    case confirmedBeat(Beat)
    case rate(RateEstimate)
    case contactFound(time: Double)
    case contactLost(time: Double)
    case quality(QualityReport)
    /// The input stopped for longer than the pipeline bridges, or its clock jumped back by more than
    /// that (then `to` < `from`); analysis restarted after it.
    case gap(from: Double, to: Double)
}
