import Foundation
import SignalProcessing
internal import CPrefetch

/// The live fingertip (or PPG) pipeline: inputs in, events out.
///
/// Stages, each its own value type: ``ContactDetector`` (colour input only) -> uniform resampling from
/// timestamps -> per-channel Butterworth band-passes designed for the sample rate -> ``BeatDetector``
/// (upstroke candidates) -> ``BeatTracker`` (beats chosen by dynamic programming: live `.beat`
/// events as soon as they end the best sequence, `.confirmedBeat` after its decision lag), and
/// ``RateTracker`` every hop on decimated windows, which grades the signal and whose channel scores,
/// with each channel's noise (``NoiseLevel``), choose the channel beats and the waveform come from
/// (not always the rate's). Rates are reported only when the tracker's confidence reaches
/// `minimumConfidence`.
///
/// Colour inputs give four channels: red, green, blue (inverted: more blood, less light) and hue
/// (``ColorSample/signedHue``: centred on red, so that it does not wrap at a fingertip's colour;
/// oriented by its correlation with the best colour channel). PPG inputs give one channel, taken as
/// recorded (larger = more blood).
///
/// Inputs with non-finite values or values beyond ±``maximumMagnitude``, or whose time does not
/// increase (by up to `maximumGap` back), are skipped and counted. A silence longer than
/// `maximumGap`, or a clock that jumps back by more, ends the current stretch: a `.gap` event, and
/// analysis starts afresh (batch queries by time assume times that increase).
///
/// - Complexity: O(1) per input sample (amortised); O(window) work every hop.
public struct PulseAnalyzer: Sendable {
    public struct Settings: Sendable {
        /// Band of the beat waveform, Hz: the pulse wave and its first harmonics (a common PPG band;
        /// Elgendi 2013 uses 0.5-8 Hz). Upper edge lowered to 40 % of the sample rate if needed.
        public var beatBand: ClosedRange<Double> = 0.5...5
        /// The beat band's upper edge rises with the rate so that this many harmonics of the pulse pass:
        /// it is `max(beatBand.upperBound, beatHarmonics × rate)`, at most 40 % of the sample rate,
        /// in steps of 0.25 Hz, and moves only when the rate wants it two steps away. Through a 5-Hz
        /// band a 200-bpm pulse (3.3 Hz) keeps only its fundamental, and each beat's upstroke leans
        /// toward its neighbours' (simulated RMSSD read 7.7 % low on a clean finger). Below 150 bpm
        /// the band is `beatBand` itself.
        public var beatHarmonics: Double = 2
        /// Band of the rate tracker's signal, Hz: 30-240 bpm with margin.
        public var trackerBand: ClosedRange<Double> = 0.5...4
        /// Target analysis rate of the tracker after decimation, Hz (at least 2.5x the band's top).
        public var trackerRate: Double = 10
        /// Analysis window and hop, seconds.
        public var windowSeconds: Double = 10
        public var hopSeconds: Double = 1
        /// The first rate is attempted once this much signal is in, seconds.
        public var minimumWindowSeconds: Double = 5
        /// Rates with lower confidence are not reported (declined), 0...1. Chosen on MTHS as the
        /// balance of answering and being right (`vitals eval fingertip --min-confidence`); see the
        /// README for the same value on odd- and even-numbered subjects separately.
        public var minimumConfidence: Double = 0.1
        /// Identical consecutive samples for this long (seconds) mark a clipped or flat sensor; no beat
        /// is taken for as long again after such a run, up to `clippingHoldoff` seconds (the filters
        /// ring after it). Scaled by the run, a pulse whose top alone clips keeps its next upstroke:
        /// a fixed 0.5 s blocked every upstroke within 0.5 s of the flat top before it (at 127 bpm,
        /// every beat of `PulsePipelineTests.pulsesClippedAtTheTopKeepTheirBeats`).
        public var clippingRun: Double = 0.06
        public var clippingHoldoff: Double = 0.5
        /// A live `.beat` is reported once its upstroke has ended the best beat sequence for
        /// `liveBeatDelayFraction` of the expected period, within `liveBeatDelay...maximumLiveBeatDelay`
        /// seconds: long enough at slow rates for the true upstroke to overtake the gentle rise before
        /// it, short enough that with the filter's lag the event follows the pulse peak by under 250 ms.
        public var liveBeatDelay: Double = 0.12
        public var liveBeatDelayFraction: Double = 0.14
        public var maximumLiveBeatDelay: Double = 0.18
        /// Before the beat band-pass, each channel's excursions from its running level are limited to
        /// this many times its running mean absolute deviation (`ExcursionLimiter`, level over 2 s,
        /// spread over 4 s, nothing limited in the first 3 s of a stretch, and a fresh start when
        /// most of the last half second was limited: a step, not a spike); `.infinity` turns it off.
        /// A pulse stays well inside (its systolic peak is 2-3 of them); a motion spike four pulses
        /// tall does not, and through the band-pass it rings for a second, its recovery an upstroke
        /// steeper than the next beat's: on the simulated finger at 40-50 bpm, each cost one to three
        /// live beats or put one 0.1-0.2 s early. Seeds 5-14 (170 recordings, not those the value was
        /// chosen on) missed 166 live beats instead of 218 and showed 14 false ones instead of 28 (with
        /// ``BeatTracker/Settings/maximumReward`` at 1.3); a103l found the same beats, and 3 fewer
        /// false ones. The rate tracker's band takes the channel as it is.
        public var excursionLimit: Double = 5
        /// The channel beats are taken from changes only to one whose timing quality (upstroke slope
        /// over sample-to-sample noise) is this many times the current one's.
        public var beatChannelStickiness: Double = 1.25
        /// Channels whose spectral score is at least this fraction of the rate channel's may carry
        /// the beats. 0.5 (0.3 and 0.7 gave the same simulator figures). Choosing by timing quality
        /// rather than by spectral score took the simulated RMSSD misses from 98 of 1020 to 25 (60
        /// recording sets): a channel's spectrum says the pulse is there, not how sharply it is timed,
        /// and the beat channel wandered among all four.
        public var beatChannelEligibility: Double = 0.5
        /// Whether `.waveform` events are emitted (a batch analysis that draws nothing turns them off).
        public var emitsWaveform = true
        /// Longest silence bridged by interpolation, seconds.
        public var maximumGap: Double = 1
        /// A colour channel whose level (0...255) is below this is left out of rate tracking and beat
        /// selection. Its frame mean is below one step of the sensor's scale: it comes from a few
        /// pixels above black, and what varies in it is quantisation and the camera's processing, not
        /// blood. In MTHS such channels (blue in subject 22, green in 13) carry a 1-Hz ripple, 60 bpm
        /// and its harmonics, that the tracker took for a pulse. Colour worked out from YUV plane
        /// means can sit just below 0 for a black channel (the fingertip videos' green: -0.3...-0.6);
        /// the level is compared by its magnitude.
        public var minimumChannelLevel: Double = 1
        public var tracker = RateTracker.Settings()
        public var beats = BeatDetector.Settings()
        public var beatTracker = BeatTracker.Settings()
        public var contact = ContactDetector.Settings()
        public init() {}
    }

    /// Largest input value magnitude analysed, 1e100: no light level or PPG reading comes near it, and
    /// beyond it the filters' and the window statistics' arithmetic (squares, sums) can overflow to
    /// infinities and NaNs.
    public static let maximumMagnitude = 1e100

    /// Whether `x` is a value the analysis can take: finite and within ±``maximumMagnitude`` (false
    /// for NaN). Readers use it to reject what the analyzer would skip.
    @inlinable
    public static func isUsable(_ x: Double) -> Bool { abs(x) <= maximumMagnitude }

    /// Counts of inputs the analyzer skipped, and why.
    public struct Rejections: Sendable, Equatable {
        /// Inputs with a non-finite time or value, or a value beyond ±``PulseAnalyzer/maximumMagnitude``.
        public var nonFinite = 0
        public var nonIncreasingTime = 0
        public var wrongKind = 0
        /// Runs of identical samples (``Settings/clippingRun`` or longer) on the channel beats are
        /// timed on: a clipped or disconnected sensor. Upstrokes for as long as the run after each (up
        /// to ``Settings/clippingHoldoff``) are not taken as beats, so many of them explain a rate
        /// with few beats.
        public var flatRuns = 0
    }

    public let settings: Settings
    /// Rate of the uniform grid the analysis runs on, Hz.
    public let sampleRate: Double
    public private(set) var rejections = Rejections()
    /// The channel names for the current input kind.
    public private(set) var channelNames: [String] = []

    private var isColor: Bool?
    private var contact: ContactDetector
    private var resamplers: [UniformResampler] = []
    private var beatFilters: [BiquadCascade] = []
    /// The beat filters' upper edge now, Hz.
    private var beatTop = 0.0
    private var trackerFilters: [BiquadCascade] = []
    private var detectors: [BeatDetector] = []
    /// What `detectors` holds while `flush` runs the stages on the real ones (see there).
    private var detectorStandIns: [BeatDetector] = []
    private var trackers: [BeatTracker] = []
    private var shapes: [BeatShape] = []
    /// Per channel, the next sample of the block to append to its beat-shape history.
    private var shapeCursors: [Int] = []
    /// Upstrokes seen before the first confident rate estimate, per channel (the latest ones).
    private var earlyCandidates: [RingBuffer<(time: Double, strength: Double, slope: Double)>] = []
    private var hasPeriod = false
    private var lastConfirmed: Double?
    /// Time of the last live beat shown, whichever channel's tracker showed it (each tracker only
    /// knows its own: after a change of beat channel the new one may hold the same heartbeat).
    private var lastLive: Double?
    private var lastValues: [Double] = []
    /// Slowly smoothed level of each channel (time constant 2 s), for the perfusion index.
    private var levels: [Double] = []
    private let levelSmoothing: Double
    /// Each channel's spike limiter, before the beat band-pass (`Settings.excursionLimit`).
    private var limiters: [ExcursionLimiter] = []
    private var flatRuns: [Int] = []
    /// Each channel's sample-to-sample noise (for choosing the channel beats are timed on).
    private var noise: [NoiseLevel] = []
    private var blockedUntil: [Double] = []
    private let flatSamples: Int
    private var windows: [RingBuffer<Double>] = []
    private var windowScratch: [[Double]] = []
    /// Per channel, whether the rate tracker may use it (`minimumChannelLevel`).
    private var usableChannels: [Bool] = []
    /// The same windows sorted (the tracker's median and MAD), brought up to date before each
    /// analysis from the values that arrived and left since (`windowChanges`).
    private var sortedWindows: [[Double]] = []
    private var windowChanges: [SortedWindowChanges] = []
    private var tracker: RateTracker
    private var orientation: [Double] = []
    private let decimation: Int
    private let hopSamples: Int
    private let minimumSamples: Int
    private var gridCount = 0
    private var lastTime: Double?
    private var selected = 0
    /// The waveform's divisor: the beat channel's spread once the tracker has one; before that, the
    /// root mean square of what the waveform has shown (so the first seconds are drawn in the same
    /// units whatever the signal's, a PPG in ADC counts or in volts).
    private var scale = 1.0
    private var hasSpreadScale = false
    private var earlyWaveform = (sumOfSquares: 0.0, count: 0)
    private var latestBPM: Double?
    /// Quality index of the latest rate analysis (nil before the first), stamped on every beat.
    private var latestConfidence: Double?
    /// Grid samples resampled but not yet run through the stages (see `flush`): `blockCapacity`
    /// times, then per channel the raw values, the beat-band and the tracker-band outputs, and the
    /// smoothed levels (`levels` at each sample).
    private var block = [Double](repeating: 0, count: (1 + 4 * 4) * PulseAnalyzer.blockCapacity)
    private var blockCount = 0
    /// Grid samples per block: the filters run over a block at a time (the same arithmetic as one
    /// sample at a time, without the per-sample call overhead), then the stages run sample by sample.
    private static let blockCapacity = 256

    /// The per-channel rows of `block`, after its row of times.
    private enum Lane: Int {
        case raw, beatBand, trackerBand, level
    }

    /// Row `lane` of channel `ch` in the block at `base` (`blockCapacity` values).
    @inline(__always)
    private func row(_ base: UnsafeMutablePointer<Double>, _ lane: Lane, _ ch: Int) -> UnsafeMutablePointer<Double> {
        base + (1 + lane.rawValue * channelNames.count + ch) * Self.blockCapacity
    }

    /// Longest analysis window, seconds (10 minutes): a rate over a longer window is an average,
    /// not a track, and the window's samples are held in memory.
    public static let maximumWindowSeconds = 600.0

    /// - Parameters:
    ///   - sampleRate: the rate of the uniform grid, Hz: the source's nominal frame or sample rate,
    ///     5 Hz...10 kHz.
    ///   - settings: bands, windows, thresholds (see ``Settings``).
    /// - Precondition: `sampleRate` is 5 Hz...10 kHz; the settings' `trackerRate` is at least
    ///   2.5 times the tracker band's top and finite, `windowSeconds` a positive number up to
    ///   ``maximumWindowSeconds``, `hopSeconds` and `maximumGap` numbers up to the window (the
    ///   hop positive, the gap ≥ 0), and `minimumWindowSeconds` and `clippingRun` finite numbers
    ///   ≥ 0 (the tracker's own settings as ``RateTracker/init(rate:hop:settings:)`` states).
    ///   Other values are programming errors: they stop with a message naming them (an infinite
    ///   rate or window trapped converting to Int without one).
    public init(sampleRate: Double, settings: Settings = Settings()) {
        precondition(sampleRate >= 5 && sampleRate <= 10_000, "PulseAnalyzer: sample rate must be 5 Hz...10 kHz (got \(sampleRate))")
        Self.checkPreconditions(settings)
        self.sampleRate = sampleRate
        self.settings = settings
        contact = ContactDetector(settings: settings.contact)
        decimation = max(1, Int((sampleRate / settings.trackerRate).rounded(.down)))
        let trackerRate = sampleRate / Double(decimation)
        // The tracker weighs each update by the window it is given and sizes its spectrum to hold it.
        var trackerSettings = settings.tracker
        trackerSettings.windowSeconds = settings.windowSeconds
        tracker = RateTracker(rate: trackerRate, hop: settings.hopSeconds, settings: trackerSettings)
        hopSamples = max(1, Int((settings.hopSeconds * sampleRate).rounded()))
        minimumSamples = Int((settings.minimumWindowSeconds * sampleRate).rounded())
        flatSamples = max(3, Int((settings.clippingRun * sampleRate).rounded()))
        levelSmoothing = 1 / (2 * sampleRate)
    }

    /// Stops with a message naming a setting ``init(sampleRate:settings:)`` cannot work with.
    static func checkPreconditions(_ s: Settings) {
        precondition(s.trackerRate.isFinite && s.trackerRate >= 2.5 * s.trackerBand.upperBound,
                     "PulseAnalyzer: trackerRate must be at least 2.5 times the tracker band's top, \(s.trackerBand.upperBound) Hz (got \(s.trackerRate))")
        precondition(s.windowSeconds > 0 && s.windowSeconds <= maximumWindowSeconds,
                     "PulseAnalyzer: windowSeconds must be a positive number up to \(maximumWindowSeconds) (got \(s.windowSeconds))")
        precondition(s.hopSeconds > 0 && s.hopSeconds <= s.windowSeconds,
                     "PulseAnalyzer: hopSeconds must be a positive number up to the window, \(s.windowSeconds) s (got \(s.hopSeconds))")
        for (name, value) in [("minimumWindowSeconds", s.minimumWindowSeconds), ("clippingRun", s.clippingRun)] {
            precondition(value >= 0 && value.isFinite, "PulseAnalyzer: \(name) must be a number of seconds >= 0 (got \(value))")
        }
        // A silence is bridged by interpolation, a grid sample at a time: a longer one than the
        // window is no signal to analyse, and an unbounded one never ends.
        precondition(s.maximumGap >= 0 && s.maximumGap <= s.windowSeconds,
                     "PulseAnalyzer: maximumGap must be a number of seconds from 0 to the window, \(s.windowSeconds) s (got \(s.maximumGap))")
        precondition(s.excursionLimit > 0, "PulseAnalyzer: excursionLimit must be > 0 (.infinity turns it off; got \(s.excursionLimit))")
    }

    private mutating func configure(color: Bool) {
        isColor = color
        channelNames = color ? ["red", "green", "blue", "hue"] : ["ppg"]
        let n = channelNames.count
        beatTop = beatBandTop(forPeriod: nil)
        let beat = Butterworth.bandPass(order: 2, low: settings.beatBand.lowerBound, high: beatTop, sampleRate: sampleRate)
        let trackerTop = min(settings.trackerBand.upperBound, 0.4 * sampleRate / Double(decimation))
        let track = Butterworth.bandPass(order: 2, low: settings.trackerBand.lowerBound, high: trackerTop,
                                         sampleRate: sampleRate)
        resamplers = Array(repeating: UniformResampler(rate: sampleRate), count: n)
        beatFilters = Array(repeating: beat, count: n)
        trackerFilters = Array(repeating: track, count: n)
        tracker.setInputFilter(track, sampleRate: sampleRate)
        detectors = Array(repeating: BeatDetector(rate: sampleRate, settings: settings.beats), count: n)
        detectorStandIns = detectors
        trackers = Array(repeating: BeatTracker(settings: settings.beatTracker), count: n)
        shapes = Array(repeating: BeatShape(rate: sampleRate), count: n)
        shapeCursors = Array(repeating: 0, count: n)
        // Up to 4 upstrokes a second over the first window (fast heart rate, dicrotic waves, noise).
        earlyCandidates = Array(repeating: RingBuffer(capacity: Int(4 * settings.windowSeconds) + 8), count: n)
        let capacity = max(8, Int((settings.windowSeconds * tracker.rate).rounded()))
        windows = Array(repeating: RingBuffer(capacity: capacity), count: n)
        windowScratch = Array(repeating: [], count: n)
        usableChannels = Array(repeating: true, count: n)
        sortedWindows = Array(repeating: [], count: n)
        windowChanges = []
        for i in 0..<n {
            windowScratch[i].reserveCapacity(capacity)
            sortedWindows[i].reserveCapacity(capacity)
            windowChanges.append(SortedWindowChanges(capacity: capacity))
        }
        // Colour channels fall as blood rises (absorbance); hue has no physical sign and follows the
        // best colour channel from the first analysis on (`orientHue`). Until then its beats are
        // timed on a guess: -1, the sign found in most analyses of 35 of the 40 MTHS recordings
        // (with +1, the early beats of a hue-timed recording sat on the downstroke, 0.15 s off).
        orientation = color ? [-1, -1, -1, -1] : [1]
        levels = Array(repeating: 0, count: n)
        limiters = Array(repeating: ExcursionLimiter(limit: settings.excursionLimit, sampleRate: sampleRate), count: n)
        lastValues = Array(repeating: .nan, count: n)
        flatRuns = Array(repeating: 0, count: n)
        noise = Array(repeating: NoiseLevel(samples: 10 * sampleRate), count: n)
        blockedUntil = Array(repeating: -.infinity, count: n)
        blockCount = 0
    }

    /// How far (Hz) the beat band's wanted upper edge must move before the filters follow: two of its
    /// 0.25-Hz steps, 7.5 bpm of rate at two harmonics.
    static let beatBandHysteresis = 0.5

    /// Upper edge of the beat band, Hz, for a pulse of `period` seconds (nil: none known yet).
    private func beatBandTop(forPeriod period: Double?) -> Double {
        let wanted = max(settings.beatBand.upperBound, period.map { settings.beatHarmonics / $0 } ?? 0)
        return min((wanted * 4).rounded(.up) / 4, 0.4 * sampleRate)
    }

    /// Moves the beat band's upper edge to where the rate wants it (see ``Settings/beatHarmonics``);
    /// the filters keep their state. With a known period the edge moves only when the rate wants it
    /// at least ``beatBandHysteresis`` away: a rate wobbling about a step boundary would otherwise
    /// retune the filters at almost every hop, and each retuning disturbs the beats around it (a
    /// simulated 180 bpm pulse, whose edge toggled between 6 and 6.25 Hz, read RMSSD 6 % high).
    private mutating func retuneBeatBand(forPeriod period: Double?) {
        let top = beatBandTop(forPeriod: period)
        guard top != beatTop, !beatFilters.isEmpty else { return }
        guard period == nil || abs(top - beatTop) >= Self.beatBandHysteresis else { return }
        beatTop = top
        let design = Butterworth.bandPass(order: 2, low: settings.beatBand.lowerBound, high: top, sampleRate: sampleRate)
        for ch in beatFilters.indices { beatFilters[ch].retune(to: design) }
    }

    /// Percentile of the held candidates' slopes that their strengths are relative to at release.
    static let earlyReferencePercentile = 80.0

    /// Starts a new stretch of signal: filters, detectors and the rate history start afresh.
    private mutating func restart() {
        guard let color = isColor else { return }
        let n = color ? 4 : 1
        for i in 0..<n {
            resamplers[i].reset()
            beatFilters[i].reset()
            trackerFilters[i].reset()
            detectors[i].reset()
            trackers[i].reset()
            shapes[i].reset()
            windows[i].removeAll()
            sortedWindows[i].removeAll(keepingCapacity: true)
            windowChanges[i].removeAll()
            lastValues[i] = .nan
            flatRuns[i] = 0
            noise[i].reset()
            blockedUntil[i] = -.infinity
        }
        tracker.reset()
        hasPeriod = false
        retuneBeatBand(forPeriod: nil)
        lastConfirmed = nil
        lastLive = nil
        for i in 0..<n { earlyCandidates[i].removeAll() }
        gridCount = 0
        latestBPM = nil
        latestConfidence = nil
    }

    /// Feeds one input; calls `emit` for each event it causes, in time order.
    public mutating func process(_ input: PulseInput, emit: (PulseEvent) -> Void) {
        withBlock { analyzer, block in
            analyzer.accept(input, block, emit: emit)
            analyzer.flush(block, emit: emit)
        }
    }

    /// Feeds `inputs` in order; calls `emit` for each event they cause, in time order. The same
    /// events as feeding them one at a time with ``process(_:emit:)``, with less overhead per input.
    public mutating func process<S: Sequence>(contentsOf inputs: S, emit: (PulseEvent) -> Void)
    where S.Element == PulseInput {
        withBlock { analyzer, block in
            // Contiguous inputs (an array) are read directly: no generic iteration per input.
            let done: Void? = inputs.withContiguousStorageIfAvailable { buffer in
                var i = 0
                while i < buffer.count {
                    if analyzer.isColor == false {
                        i = analyzer.acceptPPG(buffer, from: i, block, emit: emit)
                    } else {
                        analyzer.accept(buffer[i], block, emit: emit)
                        i += 1
                    }
                }
            }
            if done == nil {
                for input in inputs { analyzer.accept(input, block, emit: emit) }
            }
            analyzer.flush(block, emit: emit)
        }
    }

    /// Runs `body` with the block's storage taken out of `self` (so the stages can update `self`
    /// while it is read and written through the pointer), then puts it back.
    private mutating func withBlock(_ body: (inout PulseAnalyzer, UnsafeMutablePointer<Double>) -> Void) {
        var storage: [Double] = []
        swap(&storage, &block)
        storage.withUnsafeMutableBufferPointer { body(&self, $0.baseAddress!) }
        swap(&storage, &block)
    }

    /// Takes PPG inputs from `buffer[start...]` for as long as each is the common case (finite, after
    /// the previous one, no gap) and does with them exactly what ``accept(_:_:emit:)`` does, with the
    /// resampler and the block's fill kept in locals; an input that is not the common case goes to
    /// `accept`. Returns the index of the next input to take.
    private mutating func acceptPPG(_ buffer: UnsafeBufferPointer<PulseInput>, from start: Int,
                                    _ block: UnsafeMutablePointer<Double>, emit: (PulseEvent) -> Void) -> Int {
        guard var last = lastTime else {
            accept(buffer[start], block, emit: emit)
            return start + 1
        }
        let cap = Self.blockCapacity
        let gapLimit = settings.maximumGap
        var resampler = resamplers[0]
        var count = blockCount
        var i = start
        while i < buffer.count {
            // A hint to load the input 128 ahead (5 KB at 40 bytes an input): the inputs are read
            // once, in bursts of a block between the stages' work, and without it the loop waited on
            // memory (two fifths of its profile samples on the benchmark's hour; 32 ahead did
            // not help, 64 to 1024 did alike). Never faults, even past the end.
            vitals_prefetch(buffer.baseAddress! + i + 128)
            guard case .ppg(let t, let v) = buffer[i], t.isFinite, Self.isUsable(v), t > last, t - last <= gapLimit else { break }
            last = t
            resampler.push(time: t, value: v)
            while let (gt, g0) = resampler.next() {
                if count == cap {
                    blockCount = count
                    flush(block, emit: emit)  // touches neither the resampler nor the time
                    count = 0
                }
                block[count] = gt
                block[cap + count] = g0
                count += 1
            }
            i += 1
        }
        resamplers[0] = resampler
        lastTime = last
        blockCount = count
        if i == start {
            accept(buffer[i], block, emit: emit)
            return i + 1
        }
        return i
    }

    /// Validates one input and puts the grid samples it determines into the block; events caused
    /// before the block is run (gaps, contact) first flush the block, so events stay in time order.
    @inline(__always)
    private mutating func accept(_ input: PulseInput, _ block: UnsafeMutablePointer<Double>,
                                 emit: (PulseEvent) -> Void) {
        let color: Bool
        let t = input.time
        var v0 = 0.0, v1 = 0.0, v2 = 0.0, v3 = 0.0
        switch input {
        case .color(let c):
            color = true
            (v0, v1, v2, v3) = (c.red, c.green, c.blue, c.signedHue)
        case .ppg(_, let v):
            color = false
            v0 = v
        }
        if isColor == nil { configure(color: color) }
        guard isColor == color else {
            rejections.wrongKind += 1
            return
        }
        guard t.isFinite, Self.isUsable(v0), Self.isUsable(v1), Self.isUsable(v2), Self.isUsable(v3) else {
            rejections.nonFinite += 1
            return
        }
        if let last = lastTime {
            // A clock that jumps back by more than a gap (a source that restarted its clock) starts
            // a new stretch, as a gap does; a smaller step back or a repeat is skipped and counted.
            guard t > last || last - t > settings.maximumGap else {
                rejections.nonIncreasingTime += 1
                return
            }
            if abs(t - last) > settings.maximumGap {
                endStretch(with: .gap(from: last, to: t), confirmingBefore: .infinity, block, emit: emit)
                if t < last { contact.reset() }  // its pending change was timed on the old clock
            }
        }
        lastTime = t
        if case .color(let c) = input {
            if let event = contact.process(c) {
                if case .contactLost(let since) = event {
                    // The beats before the finger left; upstrokes after that are its leaving.
                    endStretch(with: event, confirmingBefore: since, block, emit: emit)
                } else {
                    flush(block, emit: emit)
                    emit(event)
                }
            }
            guard contact.inContact else { return }
        }
        let n = channelNames.count
        let cap = Self.blockCapacity
        if n == 1 {
            // One channel: its resampler (plain values) is worked on as a local copy.
            var resampler = resamplers[0]
            resampler.push(time: t, value: v0)
            while let (gt, g0) = resampler.next() {
                if blockCount == cap { flush(block, emit: emit) }
                block[blockCount] = gt
                block[cap + blockCount] = g0
                blockCount += 1
            }
            resamplers[0] = resampler
            return
        }
        resamplers[0].push(time: t, value: v0)
        resamplers[1].push(time: t, value: v1)
        resamplers[2].push(time: t, value: v2)
        resamplers[3].push(time: t, value: v3)
        while let (gt, g0) = resamplers[0].next() {
            if blockCount == cap { flush(block, emit: emit) }
            block[blockCount] = gt
            block[cap + blockCount] = g0
            for ch in 1..<n {
                // Every channel has the same times, so the same grid points.
                row(block, .raw, ch)[blockCount] = resamplers[ch].next()!.value
            }
            blockCount += 1
        }
    }

    /// Runs the block of grid samples through the stages, one stretch up to the next hop's analysis
    /// at a time: the band-pass filters over the stretch, then detection, beat tracking and (at the
    /// hop) rate tracking sample by sample. An analysis can retune the beat band, so a stretch is
    /// filtered only once the analyses before it have run, as sample by sample.
    private mutating func flush(_ base: UnsafeMutablePointer<Double>, emit: (PulseEvent) -> Void) {
        guard blockCount > 0 else { return }
        let n = channelNames.count
        let m = blockCount
        // Samples up to the next hop's analysis run channel by channel: only the selected channel
        // emits events and the selection changes only at an analysis, so the events come out as
        // they would sample by sample. The beat-shape histories, which a confirmed beat reads on
        // every channel, are filled up to where sample-by-sample processing would have them
        // (`catchUpShapes`).
        for ch in 0..<n { shapeCursors[ch] = 0 }
        var k = 0
        while k < m {
            let end = min(m, k + hopSamples - gridCount % hopSamples)
            for ch in 0..<n { filter(base, k..<end, channel: ch) }
            // The detectors are moved out of `self` for the run (their array swapped with stand-ins:
            // no copy), so that the per-sample loop reaches its detector through a pointer instead
            // of checking the array's uniqueness every sample. The stand-ins carry the expected
            // period, the one field read (by `confirm`) while the real ones are out.
            for ch in 0..<n { detectorStandIns[ch].expectedPeriod = detectors[ch].expectedPeriod }
            var working = detectorStandIns
            swap(&working, &detectors)
            working.withUnsafeMutableBufferPointer { d in
                for ch in 0..<n { runChannel(ch, base, k..<end, detector: d.baseAddress! + ch, emit: emit) }
            }
            swap(&working, &detectors)
            catchUpShapes(base, through: end - 1, channel: n - 1)
            gridCount += end - k
            k = end
            if gridCount >= minimumSamples, gridCount % hopSamples == 0 {
                analyseWindow(endTime: base[end - 1] + 1 / sampleRate, emit: emit)
            }
        }
        blockCount = 0
    }

    /// Band-passes the block's samples `range` of channel `ch` (beat band after the spike limiter,
    /// tracker band as they are) and works out their levels.
    private mutating func filter(_ base: UnsafeMutablePointer<Double>, _ range: Range<Int>, channel ch: Int) {
        let raw = row(base, .raw, ch) + range.lowerBound
        let beat = row(base, .beatBand, ch) + range.lowerBound
        let track = row(base, .trackerBand, ch) + range.lowerBound
        let level = row(base, .level, ch) + range.lowerBound
        let m = range.count
        if gridCount == 0 {
            // Start every filter as if the first value had always been there: no step transient
            // from the signal's level (a red channel near 250) masquerading as a slow pulse.
            beatFilters[ch].setSteadyState(input: raw[0])
            trackerFilters[ch].setSteadyState(input: raw[0])
            limiters[ch].reset(level: raw[0])
            // The level starts at the first value (the smoothing step leaves it there; only a
            // -0 would become +0, and the level is read through its magnitude).
            levels[ch] = raw[0]
        }
        // The levels are worked out with the filters (the smoothing's recursion overlaps theirs in
        // the processor); `runChannel` reads them.
        if !Self.filterTogether(&beatFilters[ch], &trackerFilters[ch], raw, beat, track, m,
                                level: level, from: levels[ch], smoothing: levelSmoothing, limiter: &limiters[ch]) {
            for k in 0..<m { beat[k] = limiters[ch].process(raw[k]) }
            track.update(from: raw, count: m)
            beatFilters[ch].process(UnsafeMutableBufferPointer(start: beat, count: m))
            trackerFilters[ch].process(UnsafeMutableBufferPointer(start: track, count: m))
            var l = levels[ch]
            for k in 0..<m {
                l += levelSmoothing * (raw[k] - l)
                level[k] = l
            }
        }
    }

    /// Ends the stream: confirms the beats still inside the beat tracker's decision lag. The
    /// analyzer does the same itself at the end of each stretch (before a `.gap` or `.contactLost`
    /// event), so no beat is lost to a restart.
    public mutating func finish(emit: (PulseEvent) -> Void) {
        finish(before: .infinity, emit: emit)
    }

    /// Ends the current stretch with `event` (a gap, a lost contact): runs the block's samples,
    /// confirms the pending beats before `time` (those after it go with the stretch), emits the
    /// event and starts the stages afresh.
    private mutating func endStretch(with event: PulseEvent, confirmingBefore time: Double,
                                     _ block: UnsafeMutablePointer<Double>, emit: (PulseEvent) -> Void) {
        flush(block, emit: emit)
        finish(before: time, emit: emit)
        emit(event)
        restart()
    }

    /// Confirms the pending beats before `time` (the end of a stretch; those after it go with it).
    private mutating func finish(before time: Double, emit: (PulseEvent) -> Void) {
        guard selected < trackers.count else { return }
        var confirmed: [Beat] = []
        trackers[selected].finish(before: time) { confirmed.append($0) }
        confirm(confirmed, emit: emit)
    }

    /// Grid samples `range` of the block at `base` (layout: see `block`, filtered already) through
    /// channel `ch`'s stages, with `detector` the channel's beat detector (moved out of `detectors`
    /// by `flush`); `gridCount` counts the samples before the range.
    private mutating func runChannel(_ ch: Int, _ base: UnsafeMutablePointer<Double>, _ range: Range<Int>,
                                     detector: UnsafeMutablePointer<BeatDetector>, emit: (PulseEvent) -> Void) {
        let raw = row(base, .raw, ch)
        let beat = row(base, .beatBand, ch)
        let track = row(base, .trackerBand, ch)
        let level = row(base, .level, ch)
        var last = lastValues[ch], run = flatRuns[ch], blocked = blockedUntil[ch]
        var noiseLevel = noise[ch]
        // Only a choice among channels needs their noise (a single PPG channel is always the one).
        let measuresNoise = channelNames.count > 1
        let orient = orientation[ch]
        let isSelected = ch == selected
        let showsLive = isSelected && latestBPM != nil
        let showsWaveform = isSelected && settings.emitsWaveform
        let holdoff = settings.clippingHoldoff
        let liveDelay = min(settings.maximumLiveBeatDelay,
                            max(settings.liveBeatDelay, settings.liveBeatDelayFraction * detector.pointee.expectedPeriod))
        // The rate tracker's window takes the range's decimated samples (those where the grid count
        // becomes a multiple of the decimation) in a loop of their own: nothing below reads it.
        for k in stride(from: range.lowerBound + decimation - 1 - gridCount % decimation, to: range.upperBound,
                        by: decimation) {
            let z = track[k]
            windowChanges[ch].record(arrival: z, departure: windows[ch].append(z))
        }
        for k in range {
            let time = base[k]
            let x = raw[k]
            if measuresNoise { noiseLevel.add(x) }
            let y = orient * beat[k]
            _ = detector.pointee.process(time: time, value: y)
            // A run of identical samples is a clipped or disconnected sensor, not a pulse: upstrokes
            // next to one are not beats.
            if x == last {
                run += 1
                if run >= flatSamples { blocked = time + min(holdoff, Double(run + 1) / sampleRate) }
                if run == flatSamples && isSelected { rejections.flatRuns += 1 }
            } else {
                run = 0
            }
            last = x
            if let c = detector.pointee.candidate, c.time >= blocked {
                if hasPeriod {
                    var confirmed: [Beat] = []
                    trackers[ch].add(time: c.time, strength: c.strength, slope: c.slope, period: detector.pointee.expectedPeriod, now: time) {
                        confirmed.append($0)
                    }
                    if isSelected && !confirmed.isEmpty {
                        catchUpShapes(base, through: k, channel: ch)
                        confirm(confirmed, emit: emit)
                    }
                } else {
                    // Held until the first confident rate gives the beat tracker a period (the
                    // latest ones, when that takes longer than the buffer holds).
                    _ = earlyCandidates[ch].append(c)
                }
            }
            if showsLive, trackers[ch].hasLiveCandidate, var beat = trackers[ch].live(now: time, delay: liveDelay),
               !(lastLive.map { beat.time - $0 < settings.beatTracker.minimumStep * detector.pointee.expectedPeriod } ?? false) {
                beat.rateConfidence = latestConfidence
                lastLive = beat.time
                emit(.beat(beat))
            }
            if showsWaveform {
                if !hasSpreadScale {
                    earlyWaveform.sumOfSquares += y * y
                    earlyWaveform.count += 1
                    let rms = (earlyWaveform.sumOfSquares / Double(earlyWaveform.count)).squareRoot()
                    if rms > 0 && rms.isFinite { scale = rms }
                }
                emit(.waveform(WaveformSample(time: time, value: y / scale)))
            }
        }
        levels[ch] = level[range.upperBound - 1]  // worked out in `flush`
        lastValues[ch] = last
        flatRuns[ch] = run
        noise[ch] = noiseLevel
        blockedUntil[ch] = blocked
    }

    private mutating func analyseWindow(endTime: Double, emit: (PulseEvent) -> Void) {
        let n = channelNames.count
        for ch in 0..<n {
            windowScratch[ch].removeAll(keepingCapacity: true)
            windows[ch].appendElements(to: &windowScratch[ch])
            windowChanges[ch].apply(to: &sortedWindows[ch])
        }
        if isColor == true {
            for ch in 0..<3 { usableChannels[ch] = abs(levels[ch]) >= settings.minimumChannelLevel }
        }
        guard let u = tracker.update(windows: windowScratch, sorted: sortedWindows, usable: usableChannels) else { return }
        latestConfidence = u.confidence
        if isColor == true { orientHue(best: u.channel) }
        selectBeatChannel(rateChannel: u.channel, at: endTime)
        let w = windowScratch[u.channel]
        // The waveform shown is the beat channel's, scaled by its own spread.
        if tracker.channelSpreads[selected] > 0 {
            scale = tracker.channelSpreads[selected]
            hasSpreadScale = true
        }
        let period = 60 / u.bpm
        for ch in 0..<n { detectors[ch].expectedPeriod = period }
        retuneBeatBand(forPeriod: period)
        // The held candidates are chosen among by the first period the tracker is confident of: a
        // declined first estimate (often twice the rate, as the window fills) would make dicrotic
        // waves into beats.
        if !hasPeriod && u.confidence >= settings.minimumConfidence {
            hasPeriod = true
            for ch in 0..<n {
                let isSelected = ch == selected
                // Their strengths were taken against whatever the detector had seen by then (the
                // first ones against nothing: strength 1, so a dicrotic wave or the filter's
                // start-up scored as high as an upstroke); they are weighed against one another
                // instead: relative to the 80th percentile of their slopes, which the upstrokes
                // (the steepest third or so of the slope maxima: one per beat, beside dicrotic waves
                // and noise) set.
                let reference = Statistics.percentile(earlyCandidates[ch].map(\.slope), Self.earlyReferencePercentile)
                for c in earlyCandidates[ch] {
                    var confirmed: [Beat] = []
                    let strength = reference > 0 ? c.slope / reference : c.strength
                    trackers[ch].add(time: c.time, strength: strength, slope: c.slope, period: period, now: c.time) { confirmed.append($0) }
                    if isSelected && !confirmed.isEmpty { confirm(confirmed, emit: emit) }
                }
                earlyCandidates[ch].removeAll()
            }
        }
        let report = QualityReport(time: endTime, index: u.confidence, trackedBPM: u.bpm, spectralConcentration: u.concentration / (1 + u.concentration),
                                   channelAgreement: u.agreement, skewness: Statistics.skewness(w) * orientation[u.channel],
                                   perfusionPercent: perfusion(channel: u.channel, spread: u.spread), channel: channelNames[u.channel],
                                   periodicity: u.periodicity, beatChannel: channelNames[selected])
        emit(.quality(report))
        if u.confidence >= settings.minimumConfidence {
            latestBPM = u.bpm
            emit(.rate(RateEstimate(time: endTime, bpm: u.bpm, confidence: u.confidence)))
        }
    }

    /// Chooses the channel beats are timed on. Before the first confident rate it is the rate's
    /// channel. After it, among the channels whose spectral score (``RateTracker/channelScores``) is
    /// at least `beatChannelEligibility` of the rate channel's (they carry the pulse), the one whose
    /// upstrokes are steepest against its sample-to-sample noise (the beat detector's typical slope
    /// over ``NoiseLevel``): a beat's timing error is about the noise over the slope. The choice
    /// changes only for a channel `beatChannelStickiness` times better, since every change moves
    /// the fiducial points a little (each channel's waveform differs), which intervals and HRV would
    /// read as variability. A channel that clipped or went flat within the last window is not
    /// eligible: upstrokes next to such runs are not taken, so its beats would be missing.
    private mutating func selectBeatChannel(rateChannel: Int, at time: Double) {
        guard hasPeriod else {
            selected = rateChannel
            return
        }
        let scores = tracker.channelScores
        let floor = settings.beatChannelEligibility * scores[rateChannel]
        let since = time - settings.windowSeconds
        func quality(_ c: Int) -> Double {
            guard scores[c] >= floor, blockedUntil[c] < since, let slope = detectors[c].typical,
                  noise[c].sigma > 0 else { return 0 }
            return slope / noise[c].sigma
        }
        // Each channel's quality once; ties keep the rate channel.
        let rateQuality = quality(rateChannel)
        var best = rateChannel, bestQuality = rateQuality, current = 0.0
        for c in scores.indices {
            let q = c == rateChannel ? rateQuality : quality(c)
            if q > bestQuality { (best, bestQuality) = (c, q) }
            if c == selected { current = q }
        }
        if current == 0 || bestQuality > settings.beatChannelStickiness * current { selected = best }
    }

    /// Appends the block's beat-band samples to the beat-shape histories up to where processing
    /// sample by sample would have them when channel `channel` is at sample `k`: through `k` for
    /// channels up to `channel`, through `k - 1` for the later ones.
    private mutating func catchUpShapes(_ base: UnsafeMutablePointer<Double>, through k: Int, channel: Int) {
        let n = channelNames.count
        for c in 0..<n {
            let target = c <= channel ? k + 1 : k
            guard shapeCursors[c] < target else { continue }
            let beat = row(base, .beatBand, c)
            let orient = orientation[c]
            shapes[c].append(beat + shapeCursors[c], count: target - shapeCursors[c], scale: orient,
                             lastTime: base[target - 1])
            shapeCursors[c] = target
        }
    }

    /// Runs two cascades of two sections each over the same `m` inputs at once (their recursions
    /// overlap in the processor), writing `a`'s outputs (of the inputs through `limiter`) to `outA`
    /// and `b`'s to `outB`: the same arithmetic as limiting and filtering each block separately. With
    /// them, the exponential smoothing `l += smoothing * (x - l)` from `start`, each step's value
    /// written to `level`. Returns false (nothing done) for other shapes.
    private static func filterTogether(_ a: inout BiquadCascade, _ b: inout BiquadCascade,
                                       _ input: UnsafeMutablePointer<Double>, _ outA: UnsafeMutablePointer<Double>,
                                       _ outB: UnsafeMutablePointer<Double>, _ m: Int,
                                       level: UnsafeMutablePointer<Double>, from start: Double,
                                       smoothing: Double, limiter: inout ExcursionLimiter) -> Bool {
        guard a.sections.count == 2, b.sections.count == 2 else { return false }
        var a0 = a.sections[0], a1 = a.sections[1], b0 = b.sections[0], b1 = b.sections[1]
        var l = start
        for k in 0..<m {
            let x = input[k]
            outA[k] = a1.process(a0.process(limiter.process(x)))
            outB[k] = b1.process(b0.process(x))
            l += smoothing * (x - l)
            level[k] = l
        }
        a.sections[0] = a0
        a.sections[1] = a1
        b.sections[0] = b0
        b.sections[1] = b1
        return true
    }

    /// Passes on confirmed beats, except an upstroke already reported: after a change of channel
    /// the new channel's tracker confirms heartbeats the previous one already did.
    private mutating func confirm(_ beats: [Beat], emit: (PulseEvent) -> Void) {
        let period = detectors[selected].expectedPeriod
        for var beat in beats {
            if let last = lastConfirmed {
                let gap = beat.time - last
                guard gap > settings.beatTracker.minimumStep * period else { continue }
                if let i = beat.interval, abs(i - gap) > 1e-9 {
                    beat.interval = gap <= settings.beatTracker.maximumStep * period ? gap : nil
                }
            }
            lastConfirmed = beat.time
            // Every channel's template learns from every confirmed beat, so a change of channel finds
            // its template ready. A channel rebuilding its template (after a run of beats unlike it)
            // cannot judge the beat; then the best-scored channel that can judges it instead: the
            // same pulse in another colour shows a misplaced beat time just as well.
            let scores = tracker.channelScores
            var own: BeatShape.Grade?, other: BeatShape.Grade?
            var otherScore = -Double.infinity
            for ch in shapes.indices {
                guard let grade = shapes[ch].grade(beatAt: beat.time, period: period) else { continue }
                let score = ch < scores.count ? scores[ch] : 0
                if ch == selected {
                    own = grade
                } else if score > otherScore {
                    other = grade
                    otherScore = score
                }
            }
            beat.rateConfidence = latestConfidence
            if let grade = own ?? other {
                beat.shapeQuality = grade.correlation
                beat.shapeAmplitude = grade.amplitude
                beat.hasDoubtfulShape = grade.isDoubtful
            }
            emit(.confirmedBeat(beat))
        }
    }

    /// Pulsatile amplitude over the mean level, percent; nil for hue (an angle, not a light level).
    private func perfusion(channel: Int, spread: Double) -> Double? {
        guard isColor != true || channel < 3 else { return nil }
        let level = abs(levels[channel])
        // A pulse larger than its level means the signal has no level to speak of (a zero-mean or
        // filtered export, an offset column): a percentage of it would be noise (617 % was seen).
        guard level > 2 * spread else { return nil }
        return 100 * 2 * spread / level
    }

    /// Hue has no physical orientation: align it with the best colour channel's oriented signal.
    private mutating func orientHue(best: Int) {
        let reference = best == 3 ? 1 : best
        let a = windowScratch[3], b = windowScratch[reference]
        guard a.count == b.count, a.count > 2 else { return }
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in a.indices {
            sab += a[i] * b[i]
            saa += a[i] * a[i]
            sbb += b[i] * b[i]
        }
        guard saa > 0, sbb > 0 else { return }
        let r = sab / (saa * sbb).squareRoot() * orientation[reference]
        guard abs(r) > 0.3 else { return }
        let sign: Double = r > 0 ? 1 : -1
        // The hue waveform the beat shapes hold was drawn with the old sign: turned over with it,
        // or every beat after the flip would be unlike the template until it was rebuilt.
        if sign != orientation[3] { shapes[3].invert() }
        orientation[3] = sign
    }
}
