import Foundation
import SignalProcessing

/// Tracks the heart rate from the spectra of recent signal windows, and grades how far the signal
/// supports it.
///
/// Every hop it takes the latest window of each channel (band-passed and decimated to a low analysis
/// rate), clips it at three robust standard deviations and drops artefacts that stand far past the
/// pulse's own peaks (see `Settings.outlierPeakRatio`), and computes a Hann-windowed,
/// zero-padded power spectrum normalised to the pulse band's power. The channel that scores highest
/// (its spectrum's concentration at its peak times how well its window repeats one peak period later)
/// is used. A forward Viterbi pass over a grid of rates then combines the
/// spectrum with the rate history (heart rate changes smoothly: a random walk of `driftBPMPerSqrtSecond`),
/// so that a window dominated by a motion artefact does not throw the estimate to a spurious peak.
///
/// Confidence combines three views: the mean of how concentrated the chosen spectrum is at the
/// tracked rate and its harmonic (`c / (1 + c)` for concentration ratio `c`) and the fraction of
/// usable channels whose own spectral peak agrees with the tracked rate, scaled by the square root of
/// how well the window repeats itself one beat period later (its autocorrelation; below
/// `Settings.minimumPeriodicity` the update is declined): a slow drift or motion shared by all
/// channels can be concentrated and agreed on, but it does not repeat beat after beat, so it is
/// declined. So is a track whose spectral peak the windows' band-pass made out of a slow drift
/// (see ``Settings/minimumPeakShare``). A track that no channel's own peak supports while most
/// channels peak at twice or half of it is a half- or double-rate answer: confidence 0. When, on top
/// of that, the window's autocorrelation says the other octave is the pulse's period for three
/// updates in a row, the track moves there (see `octaveCorrection`): otherwise the low-rate prior
/// and the cost of leaving the random walk could hold a track at twice a slow pulse for as long as
/// the pulse lasts.
public struct RateTracker: Sendable {
    /// Settings for the tracker.
    public struct Settings: Sendable {
        /// Slowest and fastest plausible heart rates, bpm (sinus bradycardia in athletes to maximal
        /// exercise).
        public var minBPM: Double = 38
        public var maxBPM: Double = 220
        /// How fast the heart rate may drift, bpm per square root of a second: 4 bpm over 5 s
        /// (a random walk), in line with heart-rate change at rest and in light activity.
        public var driftBPMPerSqrtSecond: Double = 1.79
        /// Half-width of the band counted as "at the peak" for concentration, Hz.
        public var peakHalfWidthHz: Double = 0.12
        /// A channel agrees with the tracked rate when its own peak is within this many bpm.
        public var agreementBPM: Double = 6
        /// When no channel's peak agrees with the tracked rate and most sit within this fraction of
        /// twice or half of it, the track has landed on a half or a double of the pulse the spectra
        /// show: the update's confidence is 0 (declined) until the track and the spectra agree
        /// again. 0.1: the same ±10 % `vitals eval` counts as a half/double answer.
        public var harmonicTolerance: Double = 0.1
        /// Window length over which spectra are weighed per update, seconds (evidence weight of one
        /// update is hop / (window / 2), so overlapping windows are not counted many times over);
        /// windows given to `update` hold at most this many seconds of samples. ``PulseAnalyzer``
        /// sets it to its own `windowSeconds`.
        public var windowSeconds: Double = 10
        /// Resting heart rates below about 50 bpm are uncommon outside trained athletes, while
        /// respiration and slow motion put power there: rates below `lowRatePriorBPM` need stronger
        /// spectral evidence, by a Gaussian log prior of width `lowRatePriorWidthBPM` (bpm).
        public var lowRatePriorBPM: Double = 50
        public var lowRatePriorWidthBPM: Double = 8
        /// Largest spacing of the spectral grid, bpm (zero padding); parabolic interpolation refines
        /// the peak between bins.
        public var binBPM: Double = 2.5
        /// Log-probability cost of leaving the random walk for any rate at all (the forward values are
        /// normalised so that the best state is 0 after every update, so this is the score a state
        /// reached by such a jump starts from). Without it, a tracker that locked onto a wrong rate
        /// (motion at the start of a recording) could follow the true pulse only at the random walk's
        /// pace, tens of seconds for a jump of tens of bpm. -5 (a jump every e^5 = 150 hops a priori)
        /// lets a peak 3x stronger than the track's take over in about 20 s. Of -8, -5, -3 and -2 tried on
        /// MTHS, -8 and -5 changed nothing on the odd-numbered subjects and helped the even ones; -3 and
        /// -2 began to hurt (MAE, a103l sensitivity).
        public var reacquirePenalty: Double = -5
        /// Least periodicity (the window's autocorrelation one tracked period later) for an answer:
        /// below it the pulse at that period carries under a tenth of the window's power, and the
        /// update is declined however concentrated and agreed its spectrum. Without it, a single
        /// channel agrees with itself and a transient concentrates the spectrum: the first update
        /// on 10 s of white noise was confident for 233 of 400 seeds (112 with the floor), and
        /// 10-s windows of white or drifting noise got a rate in 19 of 220 (11 with it). It does not
        /// stop a transient that repeats well enough: a simulated 150-bpm finger whose first second
        /// held a motion spike was still first reported at 77 bpm, at 10.3 s instead of 8.3 s (until
        /// `outlierEdge` dropped the spike's flanks too).
        public var minimumPeriodicity: Double = 0.1
        /// Outliers in a window (see `outlierPeakRatio`) are dropped, and with each the rest of its
        /// excursion, out to where the signal is back within this many robust standard deviations.
        /// A motion spike's flanks otherwise stay in the window as a smooth bump whose spectrum can
        /// outweigh a few seconds of pulse. `.infinity` drops only the outliers themselves. 1.5: of
        /// 1, 1.5 and 2 tried on 60 simulator sets (`vitals eval simulated --sets 60`, 1020 first
        /// rates after contact), 1.5 cut the recordings whose first rate was wrong from 15 to 8 and
        /// those where it came after 6 s but right from 11 to 4 (1: 10 and 3; 2: 15 and 7). MTHS and
        /// a103l were unchanged by each.
        public var outlierEdge: Double = 1.5
        /// Which samples are outliers. In the first window after a (re)start, nothing outvotes an
        /// artefact, and every sample more than three robust standard deviations from the median is
        /// one. In later windows an outlier lies more than this many times the pulse's typical peak
        /// from the median: the median, over stretches one period of the slowest plausible pulse long
        /// (`minBPM`: each holds a peak of any pulse in range), of each stretch's largest deviation.
        /// Other samples past three deviations are clipped to them. A narrow pulse's own peaks lie
        /// far past three deviations (its median absolute deviation is set by the diastole) and are
        /// kept; a motion spike four pulse heights tall is dropped.
        ///
        /// Later windows used to clip every sample at three deviations. A clipped spike is a plateau
        /// whose broad spectrum leans to a slow pulse's second harmonic: a simulated 40-bpm finger
        /// was tracked at 80 bpm for up to 16 s, until the spike left the window. Against that, on
        /// seeds 0-59 and four fresh 30-set runs (3060 recordings): half/double-rate reports in 7
        /// recordings -> 0, wrong first rates 14 -> 12; MTHS 86.4 % answered, 87.9 % within 5 bpm,
        /// MAE 3.60 bpm, 2.0 % half/double -> 87.1 %, 88.5 %, 3.52, 2.0 %; the simulated RMSSD error
        /// 0.07 % larger on average (1.87 -> 1.94 %). Dropping every sample past three deviations in
        /// every window too took the half/double reports to 0, but cut out narrow pulses' peaks:
        /// three tests of narrow pulses lost half their beats or more. 1.5 and 2 read alike (one
        /// half/double report each when the periodicity still read the window clipped).
        public var outlierPeakRatio: Double = 1.5
        /// Outliers are dropped only when the samples past three deviations are at most this
        /// fraction of the window; past it they are all clipped. Outliers are rare by definition: when a fifth of
        /// the window lies past the limit, the scale (the median absolute deviation), not those
        /// samples, is off. A 200-bpm pulse in the tracker's 10-Hz window is sampled at about three
        /// phases a beat, so its median absolute deviation spans only two of them and the third, a
        /// third of all samples, lay past the limit: dropping it bent the spectrum and gave wrong
        /// first rates (190-220 bpm) in 8 of 120 first rates at 200 bpm over 60 simulator sets.
        /// 0.2: 0.1 also clipped windows with a real spike (recordings with a wrong or late first rate
        /// rose from 12 to 14); 0.2 took them to 6. MTHS and a103l unchanged.
        public var outlierFraction: Double = 0.2
        /// Autocorrelation at twice (or half) the tracked period above which a declined track is
        /// moved an octave (see `update`): the window clearly repeats there.
        public var octavePeriodicity: Double = 0.5
        /// Consecutive updates that must say so before the track moves (a motion spike can make
        /// one window repeat oddly).
        public var octaveUpdates: Int = 3
        /// Least share of the power just below it that a tracked peak must hold, both read before
        /// the band-pass the windows went through (see ``RateTracker/setInputFilter(_:sampleRate:)``):
        /// the chosen spectrum, divided by that filter's power gain, must hold at the tracked rate at
        /// least this fraction of its largest value in `peakShareBand` below it, or the update is
        /// declined. A slow drift's spectrum falls steeply with frequency and the band-pass's lower
        /// edge rises steeply, so their product peaks near the edge: through a 0.5-Hz edge, a cubic
        /// trend or a 0.02-0.13 Hz sine read 38-43 bpm at confidence 0.5, its band-passed window a
        /// smooth swell that repeats well enough one "period" later. Before the filter, the drift
        /// still falls steeply there (a cubic trend's window: 22 dB from 0.4 to 0.7 Hz). A pulse is a
        /// peak of its own, beside whatever wander lies further below.
        ///
        /// 0.01 (20 dB): on `bench/noise_answers.sh` (60 pulseless minutes) answered recordings
        /// went from 20 to 2, and every real evaluation (MTHS, a103l, v102s, 60 simulator sets, the
        /// fingertip videos) read the same. A first version compared with the largest power anywhere
        /// from `slowestComponentHz` up, at 1e-4 (3 of 60): it declined real pulses under wander
        /// 50 times the pulse's RMS (a103l with a 0.22-Hz sine so large: 61 windows of 65 answered
        /// -> 8), which this band leaves as they were (61), as it leaves MTHS with a 0.15-0.35 Hz sine
        /// of 25 and 50 times the pulse (answered 62.9 -> 62.7 % and 57.4 -> 57.4 %).
        public var minimumPeakShare: Double = 0.01
        /// Where below the tracked rate `minimumPeakShare` looks, in units of one over the window's
        /// length: from 4/T to 2/T below it (10-s windows: 0.4-0.2 Hz below). 2/T is the edge of
        /// the Hann window's main lobe, so the peak's own lobe is not compared with itself.
        public var peakShareBand: ClosedRange<Double> = 2...4
        /// The farthest below the tracked rate `minimumPeakShare` looks, Hz (at least one bin past
        /// `peakShareBand`'s lower end). The first updates after a start read 5-s windows, whose
        /// 4/T is 0.8 Hz: that reached a slow pulse's breathing, and 23 of 300 generated 45-100
        /// bpm pulses under 0.1-0.3 Hz wander (1-30 times their size) answered about 5 s later than
        /// without the rule. With 0.5 none does, and the pulseless sets read the same; 0.4 let a
        /// 0.1-Hz sine's start-up through at confidence 0.45, and 0.6 still declined a 45-bpm pulse
        /// under 0.3-Hz wander three times its size.
        public var peakShareReachHz: Double = 0.5
        /// Lowest frequency `minimumPeakShare` compares with, Hz: below it the filter's gain is so
        /// small that dividing by it mostly magnifies the window's edges and clipping.
        public var slowestComponentHz: Double = 0.15
        public init() {}
    }

    public let settings: Settings
    /// Analysis sample rate, Hz.
    public let rate: Double
    /// Seconds between updates.
    public let hop: Double
    private let fftLength: Int
    private var fft: RealFFT
    private var frame: [Double]
    private let lowBin: Int
    private let highBin: Int
    private let totalLowBin: Int
    private let totalHighBin: Int
    private var forward: [Double]
    private var scratchForward: [Double]
    private var hasHistory = false
    /// Consecutive updates whose window says the track is an octave off (see `octaveCorrection`).
    private var octaveVotes = 0
    /// Each channel's score at the last update (spectral concentration x periodicity; 0 = unusable):
    /// the channel with the highest is the one used.
    public private(set) var channelScores: [Double] = []
    /// Each channel's robust standard deviation (1.4826 MAD) of its window at the last update (0 =
    /// unusable).
    public private(set) var channelSpreads: [Double] = []
    private var re: [Double]
    private var im: [Double]
    private var best: [Double]
    private var spectrum: [Double]
    private var selectionScratch: [Double]
    /// Each usable channel's spectral peak of the latest update, bpm (scratch).
    private var peaks: [Double] = []
    private var hann: [Double] = []
    private var lastSpread = 0.0
    /// Scratch: each stretch's largest deviation (see `clipAndDropOutliers`).
    private var stretchPeaks: [Double] = []
    /// The latest window after clipping, outlier removal and mean removal, and the chosen channel's.
    private var cleaned: [Double] = []
    private var bestCleaned: [Double] = []
    private let transitionReach: Int
    private let transition: [Double]
    /// Log prior of each rate state: flat, except below `lowRatePriorBPM` (see Settings).
    private let prior: [Double]
    /// The power gain |H|² at each spectral bin of the filter the windows went through before they
    /// reached the tracker (see ``setInputFilter(_:sampleRate:)``); empty when unknown.
    private var inputGain: [Double] = []

    /// Largest spectrum the tracker sizes (2^24 points, 128 MB per buffer): at most this many
    /// samples of `windowSeconds` at `rate`, and at least `rate × 60 / binBPM`.
    public static let maximumSpectrumLength = 1 << 24

    /// - Parameters:
    ///   - rate: the analysis sample rate of the windows it will be given, Hz (1...10 000).
    ///   - hop: seconds between calls to `update` (a positive number up to 600).
    ///   - settings: the rate range, priors and smoothing (see ``Settings``).
    /// - Precondition: `rate` is 1 Hz...10 kHz and `hop` a positive number up to 600 s; the settings'
    ///   rate range satisfies 0 < `minBPM` < `maxBPM` ≤ 10 000 with `minBPM` under the Nyquist rate
    ///   (30 × `rate` bpm), `binBPM` and `driftBPMPerSqrtSecond`
    ///   are positive finite numbers, `windowSeconds` a finite number ≥ 0, and the spectrum they
    ///   ask for holds at most ``maximumSpectrumLength`` points. Other values are programming errors
    ///   (they made the spectrum loop forever, or trapped converting NaN to Int without a word).
    public init(rate: Double, hop: Double, settings: Settings = Settings()) {
        precondition(rate >= 1 && rate <= 10_000, "RateTracker: rate must be 1 Hz...10 kHz (got \(rate))")
        precondition(hop > 0 && hop <= 600, "RateTracker: hop must be a positive number of seconds up to 600 (got \(hop))")
        precondition(settings.minBPM > 0 && settings.minBPM < settings.maxBPM && settings.maxBPM <= 10_000,
                     "RateTracker: the rate range must satisfy 0 < minBPM < maxBPM <= 10000 (got \(settings.minBPM)...\(settings.maxBPM))")
        precondition(settings.binBPM > 0 && settings.binBPM.isFinite && settings.driftBPMPerSqrtSecond > 0
                     && settings.driftBPMPerSqrtSecond.isFinite,
                     "RateTracker: binBPM and driftBPMPerSqrtSecond must be positive numbers (got \(settings.binBPM), \(settings.driftBPMPerSqrtSecond))")
        precondition(settings.windowSeconds >= 0 && settings.windowSeconds.isFinite,
                     "RateTracker: windowSeconds must be a number of seconds >= 0 (got \(settings.windowSeconds))")
        precondition(max(rate * 60 / settings.binBPM, settings.windowSeconds * rate) <= Double(Self.maximumSpectrumLength),
                     "RateTracker: a \(settings.windowSeconds)-s window at \(rate) Hz in bins of \(settings.binBPM) bpm needs a spectrum over \(Self.maximumSpectrumLength) points")
        self.settings = settings
        self.rate = rate
        self.hop = hop
        // Fine enough for `binBPM`, and long enough to hold a whole window.
        var n = 16
        while Double(n) < max(rate * 60 / settings.binBPM, settings.windowSeconds * rate) { n *= 2 }
        fftLength = n
        fft = RealFFT(count: n)
        frame = [Double](repeating: 0, count: n)
        let binHz = rate / Double(n)
        lowBin = max(1, Int((settings.minBPM / 60 / binHz).rounded(.down)))
        highBin = min(n / 2 - 1, Int((settings.maxBPM / 60 / binHz).rounded(.up)))
        totalLowBin = max(1, Int((0.5 / binHz).rounded(.down)))
        totalHighBin = min(n / 2, Int((5.0 / binHz).rounded(.up)))
        precondition(highBin >= lowBin, "RateTracker: no spectral bin holds \(settings.minBPM)...\(settings.maxBPM) bpm at \(rate) Hz (minBPM must be under the Nyquist rate, \(30 * rate) bpm)")
        let states = highBin - lowBin + 1
        forward = [Double](repeating: 0, count: states)
        scratchForward = forward
        re = [Double](repeating: 0, count: n)
        im = [Double](repeating: 0, count: n)
        best = [Double](repeating: 0, count: n / 2 + 1)
        spectrum = best
        selectionScratch = []
        let firstBin = lowBin
        prior = (0..<states).map { i in
            let bpm = Double(firstBin + i) * binHz * 60
            let d = max(0, settings.lowRatePriorBPM - bpm) / settings.lowRatePriorWidthBPM
            return -0.5 * d * d
        }
        let sigmaBins = settings.driftBPMPerSqrtSecond * hop.squareRoot() / (binHz * 60)
        transitionReach = max(1, Int((4 * sigmaBins).rounded(.up)))
        transition = (0...transitionReach).map { d in -0.5 * (Double(d) / sigmaBins) * (Double(d) / sigmaBins) }
    }

    /// Tells the tracker which filter its windows went through (running at `sampleRate`, Hz), so that
    /// it can read their spectrum as it was before the filter: a peak the filter's lower edge made
    /// out of a falling spectrum is not a pulse (see `update`).
    public mutating func setInputFilter(_ filter: BiquadCascade, sampleRate: Double) {
        let binHz = rate / Double(fftLength)
        inputGain = (0...(fftLength / 2)).map { k in
            let g = filter.magnitude(atFrequency: Double(k) * binHz, sampleRate: sampleRate)
            return max(1e-12, g * g)
        }
    }

    /// Forgets the rate history (after a gap or loss of contact).
    public mutating func reset() {
        hasHistory = false
        octaveVotes = 0
    }

    /// The result of one update.
    public struct Update: Sendable, Equatable {
        public var bpm: Double
        public var confidence: Double
        /// Index of the channel used.
        public var channel: Int
        public var concentration: Double
        public var agreement: Double
        /// Robust standard deviation (1.4826 MAD) of the chosen channel's window.
        public var spread: Double
        /// Normalised autocorrelation of the chosen window at one beat period, -1...1: a pulse repeats
        /// itself beat after beat; motion and noise do not.
        public var periodicity: Double
        /// The track sits at half or twice the rate most channels' spectra show (see
        /// `Settings.harmonicTolerance`); the confidence is then 0.
        public var atHarmonic = false
    }

    /// Analyses the latest window of each channel (equal lengths, oldest first) and advances the
    /// tracker one hop. Channels that are flat (no variation) are ignored.
    /// - Parameters:
    ///   - windows: the latest window of each channel (equal lengths, oldest sample first).
    ///   - sorted: optionally, the same windows sorted ascending (a caller that keeps them sorted as
    ///     samples arrive saves the selection of the median and MAD; same results).
    ///   - usable: optionally, per channel, false to leave it out (as if flat).
    /// - Returns: nil when no channel is usable and has any variation.
    /// - Precondition: no window longer than `Settings.windowSeconds` at `rate` (the spectrum's
    ///   length); `sorted` and `usable`, when given, hold one entry per window (each sorted window
    ///   as long as its window).
    /// - Complexity: O(window + fftLength log fftLength) per channel; allocates nothing once warm.
    public mutating func update(windows: [[Double]], sorted: [[Double]]? = nil, usable: [Bool]? = nil) -> Update? {
        precondition(windows.allSatisfy { $0.count <= fftLength },
                     "a window is longer than the tracker's \(settings.windowSeconds) s at \(rate) Hz (\(fftLength) samples)")
        precondition(sorted.map { $0.count == windows.count && zip($0, windows).allSatisfy { $0.count == $1.count } } ?? true,
                     "RateTracker.update: sorted must hold each window sorted, one per window")
        precondition(usable.map { $0.count == windows.count } ?? true, "RateTracker.update: usable must hold one flag per window")
        guard let chosen = scoreChannels(windows, sorted: sorted, usable: usable) else { return nil }
        let first = !hasHistory
        let top = advanceForward(first: first)
        hasHistory = true
        let trackedBin = trackedPeakBin(fromState: top, first: first, windowLength: windows[chosen.channel].count)
        let f = refinedFrequency(best, trackedBin)
        let bpm = min(settings.maxBPM, max(settings.minBPM, f * 60))
        let conc = concentration(best, atHz: f)
        let (agreement, atHarmonic) = agreementAndHarmonic(bpm: bpm)
        // At the tracked rate's period; when that is the chosen channel's own peak's period to the
        // bit (the tracked rate is usually that peak), the same computation was already done.
        let period = 60 / bpm
        let periodicity = period == chosen.lag ? chosen.autocorrelation : autocorrelation(bestCleaned, lagSeconds: period)
        let declined = atHarmonic || !(periodicity >= settings.minimumPeriodicity) || !standsOutBeforeFilter(trackedBin)
        voteOctave(declined: declined, bpm: bpm, periodicity: periodicity, atHarmonic: atHarmonic)
        let confidence = declined ? 0 : Self.combinedConfidence(agreement: agreement, concentration: conc, periodicity: periodicity)
        return Update(bpm: bpm, confidence: confidence, channel: chosen.channel, concentration: conc, agreement: agreement,
                      spread: chosen.spread, periodicity: periodicity, atHarmonic: atHarmonic)
    }

    /// Computes each usable channel's spectrum, peak and score; keeps the best-scoring channel's spectrum in `best`
    /// and its cleaned window in `bestCleaned`. Nil when no channel is usable.
    private mutating func scoreChannels(_ windows: [[Double]], sorted: [[Double]]?, usable: [Bool]?)
        -> (channel: Int, spread: Double, autocorrelation: Double, lag: Double)? {
        var bestChannel = -1
        var bestScore = -1.0
        var bestSpread = 0.0
        // The chosen channel's autocorrelation at its own peak's period, and that period (s).
        var bestAutocorrelation = 0.0, bestLag = Double.nan
        peaks.removeAll(keepingCapacity: true)
        channelScores.removeAll(keepingCapacity: true)
        channelScores.append(contentsOf: repeatElement(0, count: windows.count))
        channelSpreads.removeAll(keepingCapacity: true)
        channelSpreads.append(contentsOf: repeatElement(0, count: windows.count))
        for (c, w) in windows.enumerated() {
            guard usable?[c] ?? true, computeSpectrum(w, sorted: sorted?[c]) else { continue }
            let k = peakBin(spectrum)
            let f = refinedFrequency(spectrum, k)
            peaks.append(f * 60)
            // A channel is as good as its spectrum is concentrated and its window repeats at its own
            // peak's period (a drift can be concentrated at a low frequency, but does not repeat).
            let conc = concentration(spectrum, atHz: f)
            let lag = 1 / f
            let repetition = autocorrelation(cleaned, lagSeconds: lag)
            let score = conc * max(0.05, repetition)
            channelScores[c] = score
            channelSpreads[c] = lastSpread
            if score > bestScore {
                bestScore = score
                bestChannel = c
                bestSpread = lastSpread
                bestAutocorrelation = repetition
                bestLag = lag
                swap(&best, &spectrum)
                swap(&bestCleaned, &cleaned)
            }
        }
        guard bestChannel >= 0 else { return nil }
        return (bestChannel, bestSpread, bestAutocorrelation, bestLag)
    }

    /// Advances the forward (Viterbi-like) values one hop on the chosen spectrum `best`; returns the best state.
    private mutating func advanceForward(first: Bool) -> Int {
        // Emission of each rate state: the chosen spectrum's log power plus the low-rate prior.
        // (Adding the window's autocorrelation at each rate's period was tried and made half-rate
        // errors more frequent: a signal also repeats after two periods.)
        let weight = hop / (settings.windowSeconds / 2)
        let states = forward.count
        let reach = transitionReach
        let reacquire = settings.reacquirePenalty
        var top = 0
        var topValue = -Double.infinity
        forward.withUnsafeMutableBufferPointer { fw in
            scratchForward.withUnsafeMutableBufferPointer { next in
                best.withUnsafeBufferPointer { b in
                    prior.withUnsafeBufferPointer { pr in
                        transition.withUnsafeBufferPointer { tr in
                            let low = lowBin
                            if first {
                                for i in 0..<states { next[i] = weight * (log(b[low + i] + 1e-6) + pr[i]) }
                            } else {
                                // next[i] = max over |i - j| <= reach of fw[j] + tr[|i - j|], taken one
                                // offset d = j - i at a time (a pass over all states per offset, no
                                // loop-carried dependency): the same maximum as over j for each i.
                                for i in 0..<states { next[i] = -Double.infinity }
                                for d in -reach...reach {
                                    let c = tr[abs(d)]
                                    let from = max(0, -d), to = min(states, states - d)
                                    guard from < to else { continue }
                                    let source = fw.baseAddress! + (from + d), target = next.baseAddress! + from
                                    for t in 0..<(to - from) {
                                        let v = source[t] + c
                                        let m = target[t]
                                        target[t] = v > m ? v : m
                                    }
                                }
                                for i in 0..<states {
                                    next[i] = max(next[i], reacquire) + weight * (log(b[low + i] + 1e-6) + pr[i])
                                }
                            }
                            for i in 0..<states where next[i] > topValue {
                                topValue = next[i]
                                top = i
                            }
                            for i in 0..<states { next[i] -= topValue }
                        }
                    }
                }
            }
        }
        swap(&forward, &scratchForward)
        return top
    }

    /// The spectral bin the track sits on: the peak of `best` nearest forward state `top`.
    private func trackedPeakBin(fromState top: Int, first: Bool, windowLength: Int) -> Int {
        // The first update after (re)start, on a window shorter than the spectrum's length (the
        // first seconds after contact), has a wider peak, which the low-rate prior pulls the track
        // further along: the climb may go as far as the zero padding's bins per one over the
        // window's length (2 at a full 10-s window). Later updates keep 2: with a history, a track
        // on the flank of a broad low hump (a motion spike's) should not slide down it.
        let peakReach = first ? max(2, fftLength / max(1, windowLength)) : 2
        return nearbyPeak(best, from: lowBin + top, reach: peakReach)
    }

    /// The fraction of channels whose own peak agrees with `bpm`, and whether the track sits at a half or double of them.
    private func agreementAndHarmonic(bpm: Double) -> (agreement: Double, atHarmonic: Bool) {
        var agreeing = 0, harmonic = 0
        let tolerance = settings.harmonicTolerance
        for p in peaks {
            if abs(p - bpm) <= settings.agreementBPM { agreeing += 1 }
            if abs(p - 2 * bpm) <= tolerance * 2 * bpm || abs(p - bpm / 2) <= tolerance * bpm / 2 { harmonic += 1 }
        }
        let agreement = Double(agreeing) / Double(max(1, peaks.count))
        let atHarmonic = agreeing == 0 && 2 * harmonic > peaks.count
        return (agreement, atHarmonic)
    }

    /// Counts a declined update's vote for moving the track an octave, and moves it after `octaveUpdates` in a row.
    private mutating func voteOctave(declined: Bool, bpm: Double, periodicity: Double, atHarmonic: Bool) {
        if declined, let target = octaveCorrection(bpm: bpm, periodicity: periodicity, atHarmonic: atHarmonic) {
            octaveVotes += 1
            if octaveVotes >= settings.octaveUpdates {
                reseed(atBin: target)
                octaveVotes = 0
            }
        } else {
            octaveVotes = 0
        }
    }

    /// An answered update's confidence: the mean of agreement and concentration, scaled by the square root of periodicity.
    private static func combinedConfidence(agreement: Double, concentration conc: Double, periodicity: Double) -> Double {
        (agreement + conc / (1 + conc)) / 2 * max(0, periodicity).squareRoot()
    }

    /// The rate bin the track should move to when it sits an octave off the pulse, else nil. The
    /// window's autocorrelation tells the octaves apart where the spectrum cannot: a pulse repeats
    /// after one period and after two, so a track at the pulse's double does not repeat at its own
    /// period but does at twice it, and a track at half the pulse repeats at half its period.
    /// Either way most channels' own spectral peaks already sit at the other octave (`atHarmonic`):
    /// - Track at double: the window does not repeat at the tracked period (below
    ///   `minimumPeriodicity`) but does at twice it (at least `octavePeriodicity`).
    /// - Track at half: the window repeats at half the tracked period (at least `octavePeriodicity`).
    private func octaveCorrection(bpm: Double, periodicity: Double, atHarmonic: Bool) -> Int? {
        guard atHarmonic else { return nil }
        let period = 60 / bpm
        var target: Double?
        if !(periodicity >= settings.minimumPeriodicity), bpm / 2 >= settings.minBPM,
           autocorrelation(bestCleaned, lagSeconds: 2 * period) >= settings.octavePeriodicity {
            target = bpm / 2
        } else if 2 * bpm <= settings.maxBPM,
                  autocorrelation(bestCleaned, lagSeconds: period / 2) >= settings.octavePeriodicity {
            target = 2 * bpm
        }
        guard let target else { return nil }
        let binHz = rate / Double(fftLength)
        let k = min(highBin, max(lowBin, Int((target / 60 / binHz).rounded())))
        return nearbyPeak(best, from: k)
    }

    /// Restarts the rate history at spectral bin `k`: the states near it score as if the track had
    /// been there, every other state as a reacquisition.
    private mutating func reseed(atBin k: Int) {
        for i in forward.indices {
            let d = abs(lowBin + i - k)
            forward[i] = d <= transitionReach ? max(transition[d], settings.reacquirePenalty) : settings.reacquirePenalty
        }
    }

    /// Median and median absolute deviation of `w`: read from `sorted` (the same values ascending)
    /// when given, else by selection on scratch storage. The same values either way.
    private mutating func medianAndMAD(_ w: [Double], sorted: [Double]?) -> (median: Double, mad: Double) {
        let n = w.count
        if let s = sorted, s.count == n {
            return s.withUnsafeBufferPointer { s in
                let p = n / 2
                let median = n % 2 == 1 ? s[p] : (s[p - 1] + s[p]) / 2
                // Deviations below the median grow leftwards from p - 1 (run L, p values), those
                // above rightwards from p (run R, n - p values). The (n/2)-th smallest deviation
                // (0-based) is the largest of the first K = p + 1 values of the merged runs: binary
                // search for how many of them come from L (the k-th element of two sorted arrays).
                @inline(__always) func left(_ a: Int) -> Double {
                    a < 0 ? -.infinity : (a >= p ? .infinity : abs(s[p - 1 - a] - median))
                }
                @inline(__always) func right(_ b: Int) -> Double {
                    b < 0 ? -.infinity : (b >= n - p ? .infinity : abs(s[p + b] - median))
                }
                let k = p + 1
                var lo = max(0, k - (n - p)), hi = min(k, p)
                while lo < hi {
                    let a = (lo + hi) / 2
                    if left(a) < right(k - a - 1) { lo = a + 1 } else { hi = a }
                }
                let a = lo, b = k - lo
                let lastLeft = left(a - 1), lastRight = right(b - 1)
                let current = max(lastLeft, lastRight)
                let previous = lastLeft >= lastRight ? max(left(a - 2), lastRight) : max(lastLeft, right(b - 2))
                return (median, n % 2 == 1 ? current : (previous + current) / 2)
            }
        }
        selectionScratch.removeAll(keepingCapacity: true)
        selectionScratch.append(contentsOf: w)
        let median = selectionScratch.withUnsafeMutableBufferPointer { Statistics.selectMedian($0) }
        for i in 0..<n { selectionScratch[i] = abs(w[i] - median) }
        let mad = selectionScratch.withUnsafeMutableBufferPointer { Statistics.selectMedian($0) }
        return (median, mad)
    }

    /// Fills `spectrum` with the robustly normalised, Hann-windowed power spectrum of `w`, divided by
    /// its 0.5-5 Hz power. Returns false for a window too short or without variation.
    private mutating func computeSpectrum(_ w: [Double], sorted: [Double]?) -> Bool {
        let n = w.count
        guard n >= 8 else { return false }
        let (median, mad) = medianAndMAD(w, sorted: sorted)
        let spread = 1.4826 * mad
        guard spread > 0, spread.isFinite else { return false }
        lastSpread = spread
        if hann.count != n {
            hann = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n - 1)) }
        }
        if cleaned.count != n { cleaned = [Double](repeating: 0, count: n) }
        let mean = clipAndDropOutliers(w, median: median, spread: spread)
        removeMeanAndWindow(mean, count: n)
        transformFrame()
        return normalisedPower() > 0
    }

    /// Writes `w` into `frame` in robust standard deviations from `median`, clipped at three, with
    /// outliers and their excursions dropped; returns the mean of what it wrote.
    private mutating func clipAndDropOutliers(_ w: [Double], median: Double, spread: Double) -> Double {
        let n = w.count
        let limit = 3.0
        // Samples past the limit are clipped to it, except outliers (see `Settings.outlierPeakRatio`):
        // those are dropped (set to the median) with the rest of their excursion (see
        // `Settings.outlierEdge`). The spectrum and the periodicity read the same cleaned window.
        let first = !hasHistory
        // Stretches one period of the slowest plausible pulse long: each holds a peak of any pulse.
        let stretch = Int((rate * 60 / settings.minBPM).rounded(.up))
        var peaks: [Double] = []
        swap(&peaks, &stretchPeaks)
        defer { swap(&peaks, &stretchPeaks) }
        peaks.removeAll(keepingCapacity: true)
        return w.withUnsafeBufferPointer { w in
            frame.withUnsafeMutableBufferPointer { frame in
                let clipped = Self.clip(w, median: median, spread: spread, limit: limit, stretch: stretch,
                                        into: frame, peaks: &peaks)
                var mean = clipped.mean
                // Too many samples past the limit are all clipped (`outlierFraction`).
                if clipped.beyond > 0, Double(clipped.beyond) <= settings.outlierFraction * Double(n) {
                    var threshold = limit
                    if !first, !peaks.isEmpty {
                        // The median of the stretches' peaks: the pulse's typical peak.
                        peaks.sort()
                        threshold = max(limit, settings.outlierPeakRatio * peaks[(peaks.count - 1) / 2])
                    }
                    if clipped.largest > threshold {
                        mean = Self.dropExcursions(w, median: median, spread: spread, limit: limit,
                                                   threshold: threshold, edge: settings.outlierEdge, into: frame)
                    }
                }
                return mean
            }
        }
    }

    /// Writes `w` in robust standard deviations from `median` into `frame`, clipped at `limit` (a missing
    /// value is the median), and appends each complete stretch's largest deviation to `peaks`; returns the
    /// mean, the count past the limit and the largest deviation.
    private static func clip(_ w: UnsafeBufferPointer<Double>, median: Double, spread: Double, limit: Double,
                             stretch: Int, into frame: UnsafeMutableBufferPointer<Double>,
                             peaks: inout [Double]) -> (mean: Double, beyond: Int, largest: Double) {
        let n = w.count
        // Clipped in one pass with the sum, the count past the limit, the largest
        // deviation and each complete stretch's largest.
        var beyond = 0
        var mean = 0.0, largest = 0.0
        var start = 0
        while start < n {
            let end = min(n, start + stretch)
            var peak = 0.0
            for i in start..<end {
                let u = (w[i] - median) / spread
                if abs(u) > limit { beyond += 1 }
                if abs(u) > peak { peak = abs(u) }
                let z = u.isNaN ? 0 : min(limit, max(-limit, u))  // a missing value is the median
                frame[i] = z
                mean += z
            }
            if end - start == stretch { peaks.append(peak) }
            largest = max(largest, peak)
            start = end
        }
        mean /= Double(n)
        return (mean, beyond, largest)
    }

    /// Writes the first `n` values of `frame` less `mean` into `cleaned`, and Hann-windowed and zero-padded
    /// to the spectrum's length into `frame`.
    private mutating func removeMeanAndWindow(_ mean: Double, count n: Int) {
        let m = fftLength
        frame.withUnsafeMutableBufferPointer { frame in
            cleaned.withUnsafeMutableBufferPointer { cleaned in
                hann.withUnsafeBufferPointer { hann in
                    for i in 0..<n {
                        cleaned[i] = frame[i] - mean
                        frame[i] = (frame[i] - mean) * hann[i]
                    }
                    for i in n..<m { frame[i] = 0 }
                }
            }
        }
    }

    /// The FFT of `frame` into `re` and `im`.
    private mutating func transformFrame() {
        frame.withUnsafeBufferPointer { x in
            re.withUnsafeMutableBufferPointer { r in
                im.withUnsafeMutableBufferPointer { i in fft.forward(x, re: r, im: i) }
            }
        }
    }

    /// Fills `spectrum` with the power of `re` and `im` divided by its 0.5-5 Hz total (when positive);
    /// returns that total.
    private mutating func normalisedPower() -> Double {
        let m = fftLength
        let lo = totalLowBin, hi = totalHighBin
        return re.withUnsafeBufferPointer { re in
            im.withUnsafeBufferPointer { im in
                spectrum.withUnsafeMutableBufferPointer { spectrum in
                    // The band's power summed in bin order, as one loop with a test per bin would.
                    var total = 0.0
                    let half = m / 2
                    for k in 0...half { spectrum[k] = re[k] * re[k] + im[k] * im[k] }
                    if lo <= hi { for k in lo...hi { total += spectrum[k] } }
                    if total > 0 {
                        let inv = 1 / total
                        for k in 0...(m / 2) { spectrum[k] *= inv }
                    }
                    return total
                }
            }
        }
    }

    /// Writes `w` in robust standard deviations from its median into `frame`, clipped at `limit`,
    /// with every sample past `threshold` (at least `limit`) dropped (0, the median) together with the
    /// rest of its excursion, out to where the signal is back within `edge`; a missing (NaN) value is
    /// the median. Returns the mean.
    private static func dropExcursions(_ w: UnsafeBufferPointer<Double>, median: Double, spread: Double, limit: Double,
                                       threshold: Double, edge: Double,
                                       into frame: UnsafeMutableBufferPointer<Double>) -> Double {
        let n = w.count
        // Dropped samples are marked NaN, then each one's excursion is dropped; the marks become 0.
        for i in 0..<n {
            let u = (w[i] - median) / spread
            frame[i] = abs(u) > threshold ? .nan : (u.isNaN ? 0 : min(limit, max(-limit, u)))
        }
        for i in 0..<n where frame[i].isNaN {
            var j = i - 1
            while j >= 0, abs(frame[j]) > edge { frame[j] = 0; j -= 1 }
            j = i + 1
            while j < n, abs(frame[j]) > edge { frame[j] = 0; j += 1 }
        }
        var mean = 0.0
        for i in 0..<n {
            if frame[i].isNaN { frame[i] = 0 }
            mean += frame[i]
        }
        return mean / Double(n)
    }

    /// Normalised autocorrelation of `x` at a lag of `lagSeconds`: x against itself delayed by the
    /// lag, the delayed copy interpolated between samples by a Catmull-Rom cubic (interpolating the
    /// correlation itself between whole lags, i.e. the signal linearly, loses a third of a 3-Hz
    /// pulse's correlation at a 10-Hz analysis rate).
    private func autocorrelation(_ x: [Double], lagSeconds: Double) -> Double {
        let lag = lagSeconds * rate
        let l0 = Int(lag.rounded(.down))
        let n = x.count
        guard l0 >= 1, l0 + 2 < n else { return 0 }
        return x.withUnsafeBufferPointer { x in
            let f = lag - Double(l0)
            // Catmull-Rom weights of x[j-1], x[j], x[j+1], x[j+2] at j + f.
            let f2 = f * f, f3 = f2 * f
            let w0 = 0.5 * (-f3 + 2 * f2 - f)
            let w1 = 0.5 * (3 * f3 - 5 * f2 + 2)
            let w2 = 0.5 * (-3 * f3 + 4 * f2 + f)
            let w3 = 0.5 * (f3 - f2)
            // j = i + l0 >= 1 for every i (l0 >= 1): every term counts. The energy (sum of squares,
            // in index order) is summed in the same pass: two independent sums overlap in the
            // processor, each added in the order a loop of its own would.
            var s = 0.0, energy = 0.0
            let count = n - l0 - 2
            for i in 0..<count {
                let j = i + l0
                energy += x[i] * x[i]
                s += x[i] * (w0 * x[j - 1] + w1 * x[j] + w2 * x[j + 1] + w3 * x[j + 2])
            }
            for i in count..<n { energy += x[i] * x[i] }
            guard energy > 0, count > 0 else { return 0 }
            // Scaled up for the lags that overlap; capped at 1 (a window whose energy sits in its
            // middle, away from the unmatched ends, could otherwise exceed it).
            return min(1, s / energy * Double(n) / Double(count))
        }
    }

    /// Whether the chosen spectrum's power at bin `k`, divided by the input filter's gain (the
    /// window's spectrum before the filter), is at least `minimumPeakShare` of the most it holds,
    /// so divided, in `peakShareBand` below bin `k` (not farther than `peakShareReachHz`, nor below
    /// `slowestComponentHz`; see ``Settings/minimumPeakShare``). True when no input filter is known.
    private func standsOutBeforeFilter(_ k: Int) -> Bool {
        guard inputGain.count == best.count, !bestCleaned.isEmpty else { return true }
        let binHz = rate / Double(fftLength)
        let lobe = rate / Double(bestCleaned.count) / binHz  // bins per 1/T
        let highest = k - Int((settings.peakShareBand.lowerBound * lobe).rounded(.up))
        let reach = min(settings.peakShareBand.upperBound * lobe, settings.peakShareReachHz / binHz)
        let lowest = max(1, Int((settings.slowestComponentHz / binHz).rounded(.up)),
                         min(highest, k - Int(reach.rounded(.down))))
        guard lowest <= highest else { return true }
        var below = 0.0
        for p in lowest...highest { below = max(below, best[p] / inputGain[p]) }
        return best[k] / inputGain[k] >= settings.minimumPeakShare * below
    }

    private func peakBin(_ s: [Double]) -> Int {
        var k = lowBin
        for i in lowBin...highBin where s[i] > s[k] { k = i }
        return k
    }

    /// The local maximum of `s` reached by climbing from bin `k`, when it lies within `reach` bins
    /// (2: about 5 bpm); else `k`. The prior and the rate history choose which peak the track is on,
    /// but they also pull the chosen state off the top of it (the low-rate prior pushes a 40-bpm
    /// track up a bin in a 10-s window, three in the first 5-s one): the spectrum alone should
    /// place the peak.
    private func nearbyPeak(_ s: [Double], from k: Int, reach: Int = 2) -> Int {
        var p = k
        while p < highBin, s[p + 1] > s[p] { p += 1 }
        while p > lowBin, s[p - 1] > s[p] { p -= 1 }
        return abs(p - k) <= reach ? p : k
    }

    private func refinedFrequency(_ s: [Double], _ k: Int) -> Double {
        let binHz = rate / Double(fftLength)
        guard k > 0, k < s.count - 1 else { return Double(k) * binHz }
        let v = Peaks.parabolicVertex(s[k - 1], s[k], s[k + 1])
        return (Double(k) + max(-0.5, min(0.5, v.offset))) * binHz
    }

    /// Power within ±peakHalfWidth of `f` and of `2f`, over the rest of the 0.5-5 Hz power.
    private func concentration(_ s: [Double], atHz f: Double) -> Double {
        let binHz = rate / Double(fftLength)
        var at = 0.0
        for harmonic in 1...2 {
            let h = Double(harmonic) * f
            let lo = max(totalLowBin, Int(((h - settings.peakHalfWidthHz) / binHz).rounded(.up)))
            let hi = min(totalHighBin, Int(((h + settings.peakHalfWidthHz) / binHz).rounded(.down)))
            if lo <= hi { for k in lo...hi { at += s[k] } }
        }
        return at / max(1e-12, 1 - at)
    }
}
