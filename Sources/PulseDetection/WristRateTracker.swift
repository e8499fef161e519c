import Foundation
import SignalProcessing

/// Heart rate from a PPG worn on a moving body (a watch on a running wrist), with the accelerometer
/// beside the PPG sensor as the motion reference.
///
/// On a moving wrist the PPG holds the arm's swing and the steps (and their harmonics) as well as the
/// pulse, often stronger than the pulse, and the fingertip pipeline (``PulseAnalyzer``) then follows
/// the cadence. The accelerometer sees the same movement but no pulse, so its spectrum says which
/// PPG frequencies to distrust. Every hop, over the last ``Settings/windowSeconds``:
/// - each PPG channel and each accelerometer axis is band-passed (a causal Butterworth,
///   ``Settings/band``), taken at about ``Settings/analysisRate``, Hann-windowed and zero-padded to a
///   power spectrum normalised to its power in the rate range; the PPG channels' spectra are
///   averaged (`P`), the axes' summed and scaled to their largest bin (`A`, 0...1);
/// - the motion-weighted spectrum `P / (1 + motionSuppression × A)` keeps the pulse where the
///   accelerometer is quiet and damps it where the accelerometer moves;
/// - a forward Viterbi pass over a grid of rates combines it with the rate history (a random walk
///   of ``Settings/driftBPMPerSqrtSecond``, and any rate reachable at ``Settings/reacquirePenalty``),
///   so that a window where the cadence sits on the pulse does not throw the rate away;
/// - the answer is the unweighted PPG spectrum's peak within ``Settings/refineBPM`` of the tracked
///   rate (the weighting bends peaks near a motion line), refined by a parabola.
///
/// Samples are put on a uniform grid at the sample rate from their times. Each estimate covers one
/// window and is ready with the window's last analysis sample: the first about `windowSeconds`
/// after the first sample, then one every `hopSeconds` (both rounded to analysis samples:
/// ``windowDuration``, ``hopDuration``). A gap in the samples (over
/// ``Settings/maximumGap``) starts afresh. On the IEEE Signal Processing Cup 2015 recordings (wrist
/// PPG while running on a treadmill, ECG truth; `vitals eval wrist`) the error per recording is
/// given in the README, with the settings' choice.
///
/// - Complexity: O(channels) per sample; O(channels × n log n) per hop for an n-point spectrum.
public struct WristRateTracker: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Analysis window and hop, seconds (the SPC 2015 truth's 8-s windows every 2 s).
        public var windowSeconds: Double = 8
        public var hopSeconds: Double = 2
        /// Band of every channel's filter, Hz.
        public var band: ClosedRange<Double> = 0.5...4
        /// Range of plausible rates, bpm.
        public var minBPM: Double = 40
        public var maxBPM: Double = 200
        /// Samples are taken at about this rate after filtering, Hz (the sample rate divided by a whole
        /// number, at least 2.5 times the band's top).
        public var analysisRate: Double = 25
        /// Spectrum length (zero-padded), samples; longer windows use the next power of two that holds them.
        public var spectrumLength: Int = 2048
        /// How strongly the accelerometer's spectrum damps the PPG's: a PPG bin where the movement is
        /// strongest keeps `1 / (1 + motionSuppression)` of its power. 0 ignores the accelerometer.
        public var motionSuppression: Double = 20
        /// How fast the rate may drift, bpm per square root of a second (4 bpm per 2-s hop).
        public var driftBPMPerSqrtSecond: Double = 2.83
        /// Log-probability of leaving the random walk for any rate (see ``RateTracker/Settings/reacquirePenalty``).
        public var reacquirePenalty: Double = -8
        /// The answer is the PPG spectrum's own peak within this many bpm of the tracked rate.
        public var refineBPM: Double = 4.4
        /// Longer silences between samples start the tracker afresh, seconds.
        public var maximumGap: Double = 1
        /// Windows with a lower confidence are declined (``Decline/lowConfidence``), 0...1. On SPC 2015
        /// (`vitals eval wrist`) 0.1 and the other declines leave 95.7 % of the windows answered, and
        /// their mean error falls from 1.74 bpm (every window) to 1.41.
        public var minimumConfidence: Double = 0.1
        public init() {}
    }

    /// One window's estimate.
    public struct Estimate: Sendable, Equatable {
        /// The window, seconds: the time of its first sample, and that plus ``WristRateTracker/windowDuration``.
        public var start: Double
        public var end: Double
        /// The heart rate, bpm; nil when the window is declined (see ``declined``).
        public var bpm: Double? { declined == nil ? bestGuessBPM : nil }
        /// The rate the window reads, declined or not (for scoring every window, as SPC 2015 does).
        public var bestGuessBPM: Double
        /// Share of the motion-weighted spectrum's power within ``Settings/refineBPM`` of the tracked
        /// rate, 0...1 (0 for a flat PPG window).
        public var confidence: Double
        /// Why the window is not answered, or nil when it is.
        public var declined: Decline?
        /// The movement's strongest frequency in the accelerometer within the rate range, bpm (steps
        /// or arm swing); nil when the accelerometer's window is flat.
        public var motionBPM: Double?
    }

    /// Why a window is not answered.
    public enum Decline: String, Sendable, Equatable {
        /// No PPG power in the rate range (a flat or vanished signal).
        case flatSignal = "flat_signal"
        /// The PPG's peak is at an end of the rate range and still rising past it: the signal's own
        /// rate lies outside it (a filter decaying after a dropout, a slow drift, a fast tremor).
        case outsideRange = "outside_range"
        /// Confidence below ``Settings/minimumConfidence``.
        case lowConfidence = "low_confidence"
    }

    /// The longest analysis window, seconds.
    public static let maximumWindowSeconds = 600.0
    /// Most PPG channels a tracker takes: 1024, far beyond a sensor's wavelengths or a face's skin
    /// regions; each channel holds a window and a filter, so the bound keeps the memory sane.
    public static let maximumChannels = 1024

    public let settings: Settings
    public let sampleRate: Double
    /// Number of PPG channels each sample carries.
    public let channels: Int
    /// The window and the hop as analysed, seconds: ``Settings/windowSeconds`` and
    /// ``Settings/hopSeconds`` rounded to whole analysis samples.
    public let windowDuration: Double
    public let hopDuration: Double
    private let decimation: Int
    private var resamplers: [UniformResampler]
    private let windowSamples: Int
    private let hopSamples: Int
    private let design: BiquadCascade
    private var filters: [BiquadCascade]
    private var windows: [RingBuffer<Double>]
    private var windowTimes: RingBuffer<Double>
    private var phase = 0
    private var sinceUpdate = 0
    private var lastTime: Double?
    private var fft: RealFFT
    private let hann: [Double]
    private var frame: [Double]
    private var re: [Double]
    private var im: [Double]
    private let bins: ClosedRange<Int>
    private let binBPM: Double
    /// Log transition weight by distance in bins, out to where it falls below the reacquire penalty.
    private let transition: [Double]
    private var forward: [Double] = []
    /// Weights of the PPG channels in the windows' average spectrum, one per channel, each ≥ 0;
    /// read at each window's end (nil: all channels alike). A window whose weights are all 0 has no
    /// PPG (``Decline/flatSignal``). ``SkinPulseTracker`` leaves out the skin regions that lost most
    /// of a window's frames this way.
    public var channelWeights: [Double]? {
        didSet {
            if let w = channelWeights {
                precondition(w.count == channels && w.allSatisfy { $0 >= 0 && $0.isFinite }, "one finite weight ≥ 0 per channel")
            }
        }
    }
    /// Samples skipped: a value that is not a finite number (or beyond ±1e100), or a time not after
    /// the previous sample's (within ``Settings/maximumGap``; further back starts afresh).
    public private(set) var skippedSamples = 0

    /// - Parameters:
    ///   - sampleRate: Hz, of the PPG and accelerometer samples (taken together).
    ///   - channels: PPG channels per sample (1...``maximumChannels``).
    ///   - settings: the analysis (defaults as measured on SPC 2015; see the README).
    /// - Throws: `InvalidSettings` naming what cannot work: a channel count outside
    ///   1...``maximumChannels``, a sample rate below 2.5 times the band's top or above 10 kHz, a
    ///   rate range outside the band or under a few bins wide, a window
    ///   shorter than two periods of the slowest rate or longer than ``maximumWindowSeconds``, a hop
    ///   longer than the window, or another setting that is not a finite number in its range.
    public init(sampleRate: Double, channels: Int = 1, settings: Settings = Settings()) throws {
        let s = settings
        guard channels >= 1 else { throw InvalidSettings("a wrist PPG needs at least one channel") }
        guard channels <= Self.maximumChannels else {
            throw InvalidSettings("\(channels) PPG channels: the rate tracker takes at most \(Self.maximumChannels)")
        }
        guard sampleRate.isFinite, sampleRate >= 2.5 * s.band.upperBound, sampleRate <= 10_000 else {
            throw InvalidSettings(String(format: "sample rate %g Hz: the rate tracker needs %g Hz...10 kHz",
                                         sampleRate, 2.5 * s.band.upperBound))
        }
        guard s.band.lowerBound > 0, s.minBPM > 0, s.minBPM < s.maxBPM,
              s.maxBPM / 60 <= s.band.upperBound, s.minBPM / 60 >= s.band.lowerBound else {
            throw InvalidSettings("the rate range must lie inside the filter band (30-240 bpm for 0.5-4 Hz)")
        }
        guard s.windowSeconds.isFinite else { throw InvalidSettings("the window must be a finite number of seconds") }
        guard s.windowSeconds >= 2 * 60 / s.minBPM else {
            throw InvalidSettings(String(format: "a %g-s window holds under two periods of %g bpm", s.windowSeconds, s.minBPM))
        }
        // The windows and the spectrum are held in memory: minutes at most (a rate over a longer
        // window is an average, not a track).
        guard s.windowSeconds <= Self.maximumWindowSeconds else {
            throw InvalidSettings(String(format: "a %g-s window: at most %g s", s.windowSeconds, Self.maximumWindowSeconds))
        }
        guard s.hopSeconds > 0, s.hopSeconds <= s.windowSeconds else {
            throw InvalidSettings("the hop must be positive and no longer than the window")
        }
        guard s.motionSuppression >= 0, s.motionSuppression.isFinite, s.driftBPMPerSqrtSecond > 0,
              s.driftBPMPerSqrtSecond.isFinite, s.refineBPM >= 0, s.refineBPM <= s.maxBPM - s.minBPM,
              s.reacquirePenalty < 0, s.reacquirePenalty.isFinite, s.maximumGap > 0,
              (0...1).contains(s.minimumConfidence) else {
            throw InvalidSettings("motion suppression, drift, refinement, reacquire penalty, maximum gap or minimum confidence out of range")
        }
        guard s.analysisRate.isFinite, s.analysisRate > 0, (16...65_536).contains(s.spectrumLength) else {
            throw InvalidSettings("the analysis rate must be positive and the spectrum 16...65536 samples long")
        }
        self.settings = s
        self.sampleRate = sampleRate
        self.channels = channels
        // A measured rate a hair under a multiple (124.9999 Hz from time stamps) divides as the multiple.
        decimation = max(1, Int((sampleRate / max(s.analysisRate, 2.5 * s.band.upperBound) + 1e-6).rounded(.down)))
        let rate = sampleRate / Double(decimation)
        windowSamples = Int((s.windowSeconds * rate).rounded())
        hopSamples = max(1, Int((s.hopSeconds * rate).rounded()))
        windowDuration = Double(windowSamples) / rate
        hopDuration = Double(hopSamples) / rate
        design = Butterworth.bandPass(order: 2, low: s.band.lowerBound, high: s.band.upperBound, sampleRate: sampleRate)
        filters = Array(repeating: design, count: channels + 3)
        resamplers = Array(repeating: UniformResampler(rate: sampleRate), count: channels + 3)
        windows = Array(repeating: RingBuffer(capacity: windowSamples), count: channels + 3)
        windowTimes = RingBuffer(capacity: windowSamples)
        var n = 1
        while n < max(s.spectrumLength, windowSamples) { n *= 2 }
        fft = RealFFT(count: n)
        let length = windowSamples
        hann = (0..<length).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(length - 1)) }
        frame = [Double](repeating: 0, count: n)
        re = [Double](repeating: 0, count: n / 2 + 1)
        im = re
        let hzPerBin = rate / Double(n)
        binBPM = 60 * hzPerBin
        let lowest = Int((s.minBPM / binBPM).rounded(.up)), highest = Int((s.maxBPM / binBPM).rounded(.down))
        guard highest - lowest >= 4 else {
            throw InvalidSettings(String(format: "a rate range of %g-%g bpm holds under 5 spectrum bins of %.2f bpm",
                                         s.minBPM, s.maxBPM, binBPM))
        }
        bins = lowest...highest
        // The random walk's spread over one hop, in bins.
        let sigma = s.driftBPMPerSqrtSecond * (Double(hopSamples) / rate).squareRoot() / binBPM
        var t: [Double] = []
        for d in 0..<bins.count {
            let w = -0.5 * (Double(d) / sigma) * (Double(d) / sigma)
            if w < s.reacquirePenalty { break }
            t.append(w)
        }
        transition = t
    }

    /// Starts afresh: filters, windows and the rate history.
    public mutating func reset() {
        filters = Array(repeating: design, count: channels + 3)
        for i in resamplers.indices { resamplers[i].reset() }
        for i in windows.indices { windows[i].removeAll() }
        windowTimes.removeAll()
        phase = 0
        sinceUpdate = 0
        lastTime = nil
        forward = []
    }

    /// Feeds one sample of a one-channel PPG and the acceleration (any unit; its spectrum is scaled).
    /// Samples are put on a uniform grid at `sampleRate` from their times (linear interpolation), so
    /// jitter and short holes do not bend the spectrum.
    /// - Returns: the estimates this sample completes (one each hop once a window is full; usually
    ///   none or one).
    public mutating func process(time: Double, ppg: Double, acceleration: SIMD3<Double>) -> [Estimate] {
        precondition(channels == 1, "this tracker takes \(channels) PPG channels per sample")
        return process(time: time, acceleration: acceleration) { _ in ppg }
    }

    /// Feeds one sample of every PPG channel (`ppg.count == channels`) and the acceleration.
    /// - Returns: the estimates this sample completes, as for one channel.
    public mutating func process(time: Double, ppg: [Double], acceleration: SIMD3<Double>) -> [Estimate] {
        precondition(ppg.count == channels, "this tracker takes \(channels) PPG channels per sample")
        return process(time: time, acceleration: acceleration) { ppg[$0] }
    }

    /// Runs a whole recording through the same code as the live path.
    /// - Parameters:
    ///   - times: seconds, increasing.
    ///   - ppg: one array per PPG channel, each as long as `times`.
    ///   - acceleration: one vector per sample.
    ///   - sampleRate: Hz, of the samples.
    ///   - settings: as for ``init(sampleRate:channels:settings:)``.
    /// - Throws: `InvalidSettings` for settings the tracker cannot use (the arrays' lengths must
    ///   match too).
    public static func run(times: [Double], ppg: [[Double]], acceleration: [SIMD3<Double>], sampleRate: Double,
                           settings: Settings = Settings()) throws -> [Estimate] {
        guard ppg.allSatisfy({ $0.count == times.count }), acceleration.count == times.count else {
            throw InvalidSettings("every PPG channel and the acceleration need one value per time")
        }
        var tracker = try WristRateTracker(sampleRate: sampleRate, channels: ppg.count, settings: settings)
        var out: [Estimate] = []
        out.reserveCapacity(times.count / (tracker.hopSamples * tracker.decimation) + 1)
        for i in times.indices {
            out += tracker.process(time: times[i], acceleration: acceleration[i], ppg: { ppg[$0][i] })
        }
        return out
    }

    private mutating func process(time: Double, acceleration a: SIMD3<Double>, ppg: (Int) -> Double) -> [Estimate] {
        // A value that is not a usable number would stay in the filters for good: the sample is skipped.
        guard time.isFinite, PulseAnalyzer.isUsable(a.x), PulseAnalyzer.isUsable(a.y), PulseAnalyzer.isUsable(a.z),
              (0..<channels).allSatisfy({ PulseAnalyzer.isUsable(ppg($0)) }) else {
            skippedSamples += 1
            return []
        }
        if let last = lastTime, time - last > settings.maximumGap || time < last - settings.maximumGap { reset() }
        guard lastTime.map({ time > $0 }) ?? true else {
            skippedSamples += 1  // a repeated or slightly earlier time: not a new sample
            return []
        }
        let first = lastTime == nil
        lastTime = time
        var estimates: [Estimate] = []
        for ch in 0..<(channels + 3) {
            let x = ch < channels ? ppg(ch) : a[ch - channels]
            if first { filters[ch].setSteadyState(input: x) }
            resamplers[ch].push(time: time, value: x)
        }
        while let (gridTime, value0) = resamplers[0].next() {
            for ch in 0..<(channels + 3) {
                let y = filters[ch].process(ch == 0 ? value0 : resamplers[ch].next()!.value)
                if phase == 0 { _ = windows[ch].append(y) }
            }
            let taken = phase == 0
            phase = (phase + 1) % decimation
            guard taken else { continue }
            _ = windowTimes.append(gridTime)
            sinceUpdate += 1
            guard windowTimes.isFull, sinceUpdate >= hopSamples || forward.isEmpty else { continue }
            sinceUpdate = 0
            estimates.append(update())
        }
        return estimates
    }

    /// The estimate for the full window now held.
    private mutating func update() -> Estimate {
        let k0 = bins.lowerBound, count = bins.count
        var ppgSpectrum = [Double](repeating: 0, count: count)
        var motion = [Double](repeating: 0, count: count)
        let weightSum = channelWeights?.reduce(0, +) ?? 0
        for ch in 0..<(channels + 3) {
            if ch < channels, let w = channelWeights, !(w[ch] > 0 && weightSum > 0) { continue }
            let power = bandPower(of: ch)
            if ch < channels {
                if let w = channelWeights {
                    for k in 0..<count { ppgSpectrum[k] += power[k] * (w[ch] / weightSum) }
                } else {
                    for k in 0..<count { ppgSpectrum[k] += power[k] / Double(channels) }
                }
            } else {
                for k in 0..<count { motion[k] += power[k] }
            }
        }
        let motionPeak = motion.indices.max { motion[$0] < motion[$1] } ?? 0
        let largest = motion[motionPeak]
        var weighted = ppgSpectrum
        if largest > 0 {  // a flat accelerometer window weighs nothing down
            for k in 0..<count { weighted[k] /= 1 + settings.motionSuppression * motion[k] / largest }
        }
        let total = weighted.reduce(0, +)
        if total > 0 { for k in 0..<count { weighted[k] /= total } }
        // Forward Viterbi step: the best way into each rate, from the previous forward values.
        let emission = weighted.map { log($0 + 1e-4) }
        if forward.isEmpty {
            forward = emission
        } else {
            var next = [Double](repeating: 0, count: count)
            for j in 0..<count {
                var best = settings.reacquirePenalty  // from the best state (0 after normalising)
                let lo = max(0, j - transition.count + 1), hi = min(count - 1, j + transition.count - 1)
                for i in lo...hi { best = max(best, forward[i] + transition[abs(i - j)]) }
                next[j] = emission[j] + best
            }
            forward = next
        }
        let top = forward.max() ?? 0
        for k in 0..<count { forward[k] -= top }
        let tracked = forward.indices.max { forward[$0] < forward[$1] } ?? 0
        // The PPG's own peak near the tracked rate, to a fraction of a bin.
        let reach = Int((settings.refineBPM / binBPM).rounded())
        let lo = max(0, tracked - reach), hi = min(count - 1, tracked + reach)
        var peak = tracked  // a flat PPG window has no peak of its own: the track stands
        for k in lo...hi where ppgSpectrum[k] > ppgSpectrum[peak] { peak = k }
        var offset = 0.0
        // Only a local maximum has a vertex within half a bin (at the range's edge the spectrum may still rise).
        if peak > 0, peak < count - 1, ppgSpectrum[peak] >= ppgSpectrum[peak - 1], ppgSpectrum[peak] >= ppgSpectrum[peak + 1] {
            offset = Peaks.parabolicVertex(ppgSpectrum[peak - 1], ppgSpectrum[peak], ppgSpectrum[peak + 1]).offset
        }
        let share = min(1, weighted[lo...hi].reduce(0, +))
        let declined: Decline?
        if !ppgSpectrum.contains(where: { $0 > 0 }) {
            declined = .flatSignal
        } else if (peak == 0 && ppgSpectrum[0] > ppgSpectrum[1]) || (peak == count - 1 && ppgSpectrum[peak] > ppgSpectrum[peak - 1]) {
            declined = .outsideRange
        } else if share < settings.minimumConfidence {
            declined = .lowConfidence
        } else {
            declined = nil
        }
        let start = windowTimes[0]
        return Estimate(start: start, end: start + windowDuration, bestGuessBPM: (Double(k0 + peak) + offset) * binBPM,
                        confidence: share, declined: declined,
                        motionBPM: largest > 0 ? Double(k0 + motionPeak) * binBPM : nil)
    }

    /// Channel `ch`'s window: mean removed, Hann-windowed, zero-padded; its power in the rate range,
    /// normalised to sum to 1 (all zeros for a flat window).
    private mutating func bandPower(of ch: Int) -> [Double] {
        let w = windows[ch]
        let mean = w.reduce(0, +) / Double(w.count)
        for i in 0..<windowSamples { frame[i] = (w[i] - mean) * hann[i] }
        for i in windowSamples..<frame.count { frame[i] = 0 }
        fft.forward(frame, re: &re, im: &im)
        var power = [Double](repeating: 0, count: bins.count)
        var sum = 0.0
        for (j, k) in bins.enumerated() {
            power[j] = re[k] * re[k] + im[k] * im[k]
            sum += power[j]
        }
        guard sum > 0, sum.isFinite else { return [Double](repeating: 0, count: bins.count) }
        for j in power.indices { power[j] /= sum }
        return power
    }
}

/// Settings or inputs a tracker cannot work with; `description` names the problem.
public struct InvalidSettings: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
