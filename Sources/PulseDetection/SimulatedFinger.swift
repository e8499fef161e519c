import Foundation
import SignalProcessing

/// One heartbeat of the simulated finger.
public struct SimulatedBeat: Sendable, Equatable {
    /// The foot of the pulse (onset of the systolic upstroke), seconds.
    public var onset: Double
    /// The systolic peak: the top of the beat's main wave, seconds (onset + the systolic delay).
    public var peak: Double

    public init(onset: Double, peak: Double) {
        self.onset = onset
        self.peak = peak
    }
}

/// A simulated fingertip on a torch-lit phone camera: a deterministic, seeded generator of the frames'
/// mean colours (or of a raw PPG signal), with the true beat times exposed for tests.
///
/// The model:
/// - **Pulse.** Each beat adds a systolic wave and a smaller dicrotic (diastolic) wave, both Gaussian,
///   to the blood volume; their delays and widths scale with the nominal period (shorter at fast
///   rates), from typical fingertip PPG morphology (foot-to-peak about 0.17 s and diastolic peak about
///   0.42 s after the foot at 60 bpm).
/// - **Rhythm.** Intervals are the nominal period plus respiratory sinus arrhythmia (a sinusoid at the
///   breathing rate) plus independent Gaussian variability.
/// - **Colour.** More blood, less light: red falls by ~1.2 % of its level at the systolic peak, green
///   by ~12 % (about 5 units: MTHS recordings swing 5-11 units), blue by ~5 % (green is absorbed
///   most), so the hue is modulated too. Red sits near
///   saturation: the frame mean of pixels spread around ~258 with clipping at 255 (about 252, with the
///   compressed pulse seen in real iPhone recordings); green and blue are low.
/// - **Impairments.** Sensor noise, baseline drift (two slow sinusoids), motion spikes (raised-cosine
///   bumps of a few pulse amplitudes, at random times), timestamp jitter (uniform ±), dropped frames,
///   and optional lift-offs during which the camera sees the room (not red-dominant).
///
/// - Complexity: O(1) per frame; memory constant however long it runs.
public struct SimulatedFinger: Sendable {
    /// What the generator produces.
    public enum Output: Sendable, Equatable {
        /// `PulseInput.color`: mean R, G, B of each frame.
        case color
        /// `PulseInput.ppg`: a raw PPG value per frame (larger = more blood).
        case ppg
    }

    /// Settings; the defaults are a realistic phone recording (jitter, drops, drift, spikes).
    public struct Settings: Sendable, Equatable {
        /// Mean heart rate, beats per minute.
        public var bpm: Double = 72
        /// Camera frame rate, Hz.
        public var frameRate: Double = 30
        /// Seed of every random choice (beats, noise, spikes, drops).
        public var seed: UInt64 = 1
        /// Standard deviation of independent beat-to-beat interval variation, seconds.
        public var intervalVariability: Double = 0
        /// Amplitude of respiratory sinus arrhythmia: intervals vary by ± this, seconds.
        public var respiratoryModulation: Double = 0
        /// Breathing rate, Hz (0.25 Hz = 15 breaths per minute).
        public var breathingRate: Double = 0.25
        /// Timestamps deviate from the nominal frame times uniformly within ± this, seconds (capped at
        /// 0.45 frame so that time always increases).
        public var timestampJitter: Double = 0.003
        /// Fraction of frames dropped (never delivered), 0...1.
        public var dropRate: Double = 0.02
        /// Standard deviation of sensor noise on each channel's frame mean, 0...255 units (raw PPG:
        /// one tenth of this in systolic amplitudes). Real iPhone fingertip means (MTHS) show about
        /// 0.003-0.11 units of frame-to-frame noise on green and blue (from second differences).
        public var noise: Double = 0.05
        /// Scale of the baseline drift (0 = none, 1 = a few units on each channel, larger than the pulse).
        public var drift: Double = 1
        /// Mean number of motion spikes per minute (Poisson).
        public var motionSpikesPerMinute: Double = 2
        /// Motion spike amplitude in systolic pulse amplitudes.
        public var motionSpikeSize: Double = 4
        /// Motion spike duration, seconds.
        public var motionSpikeDuration: Double = 0.3
        /// Pulsatile strength relative to a typical fingertip (1), e.g. 0.3 for cold fingers.
        public var perfusion: Double = 1
        /// Times (seconds) when the finger is off the lens: the camera sees the room.
        public var liftOffs: [Range<Double>] = []
        /// What is produced.
        public var output: Output = .color

        public init() {}

        /// A clean finger: no jitter, drops, drift, spikes; a little sensor noise.
        public static var ideal: Settings {
            var s = Settings()
            s.timestampJitter = 0
            s.dropRate = 0
            s.drift = 0
            s.motionSpikesPerMinute = 0
            return s
        }
    }

    public let settings: Settings
    private var rng: SplitMix64
    private var spikeRNG: SplitMix64
    private var train: BeatTrain
    private var beats: [SimulatedBeat] = []
    private var nextSpike: Double
    private var spikes: [(start: Double, sign: Double)] = []
    private var frameIndex = 0
    private let driftPhases: (Double, Double)
    private let shape: PulseShape

    /// A finger whose frames are fixed by `settings` (including its seed); time starts at 0.
    /// - Precondition: `settings.bpm` is a positive number up to 1000, `frameRate` 1 Hz...10 kHz,
    ///   `dropRate` in 0..<1 and `timestampJitter` a finite number ≥ 0.
    ///   Other values are programming errors, stopped with a message naming them: they made the
    ///   generator loop for ever (every frame dropped, beats that never advance, NaN times that
    ///   never reach a duration) or trap converting to Int.
    public init(settings: Settings = Settings()) {
        Self.checkPreconditions(settings)
        self.settings = settings
        rng = SplitMix64(seed: settings.seed ^ 0x5EED_F1A6_0000_0001)
        spikeRNG = SplitMix64(seed: settings.seed ^ 0x5B1C_E000_0000_0002)
        train = BeatTrain(settings: settings)
        shape = PulseShape(period: 60 / settings.bpm)
        driftPhases = (2 * Double.pi * rng.uniform(), 2 * Double.pi * rng.uniform())
        nextSpike = 0
        nextSpike = drawSpikeGap()
        beats.reserveCapacity(16)
        spikes.reserveCapacity(4)
    }

    /// Stops with a message naming a setting the generator cannot work with (see ``init(settings:)``).
    static func checkPreconditions(_ s: Settings) {
        if let problem = problem(with: s) { preconditionFailure("SimulatedFinger: " + problem) }
    }

    /// What is wrong with `s` for a generator (see ``init(settings:)``), or nil.
    static func problem(with s: Settings) -> String? {
        guard s.bpm > 0, s.bpm <= 1000 else { return "bpm must be a positive number up to 1000 (got \(s.bpm))" }
        // (A frame drawn draws every beat before it: at 1e-300 fps the second frame, 1e300 s in,
        // drew beats for ever.)
        guard s.frameRate >= 1, s.frameRate <= 10_000 else { return "frameRate must be 1 Hz...10 kHz (got \(s.frameRate))" }
        guard s.dropRate >= 0, s.dropRate < 1 else { return "dropRate must be in 0..<1 (got \(s.dropRate))" }
        guard s.timestampJitter >= 0, s.timestampJitter.isFinite else {
            return "timestampJitter must be a number of seconds >= 0 (got \(s.timestampJitter))"
        }
        return nil
    }

    /// The true beats from time 0 up to `end` seconds (the same beats the generator draws).
    /// - Precondition: `settings` as for ``init(settings:)``; `end` is a finite number.
    public static func beats(settings: Settings, until end: Double) -> [SimulatedBeat] {
        checkPreconditions(settings)
        precondition(end.isFinite, "SimulatedFinger.beats: the end must be a finite number of seconds (got \(end))")
        var train = BeatTrain(settings: settings)
        var out: [SimulatedBeat] = []
        while true {
            let b = train.next()
            if b.onset > end { break }
            out.append(b)
        }
        return out
    }

    /// The true mean heart rate over [0, end] seconds: 60 / mean interval, bpm.
    public static func meanRate(settings: Settings, until end: Double) -> Double {
        let b = beats(settings: settings, until: end)
        guard b.count >= 2 else { return settings.bpm }
        return 60 * Double(b.count - 1) / (b[b.count - 1].onset - b[0].onset)
    }

    /// The next delivered frame (dropped frames are skipped).
    public mutating func next() -> PulseInput {
        while true {
            let k = frameIndex
            frameIndex += 1
            let jitterBound = min(settings.timestampJitter, 0.45 / settings.frameRate)
            let jitter = (2 * rng.uniform() - 1) * jitterBound
            let dropped = rng.uniform() < settings.dropRate
            let n1 = rng.gaussian(), n2 = rng.gaussian(), n3 = rng.gaussian()
            if dropped { continue }
            let t = Double(k) / settings.frameRate + jitterBound + jitter
            return frame(at: t, noise: (n1, n2, n3))
        }
    }

    /// The frames delivered during [0, duration) seconds.
    /// - Precondition: `duration` is a finite number (an infinite one never ends).
    public mutating func inputs(duration: Double) -> [PulseInput] {
        precondition(duration.isFinite, "SimulatedFinger.inputs: the duration must be a finite number of seconds (got \(duration))")
        var out: [PulseInput] = []
        // Room for the frames, taken once (up to 2^24; a longer request grows as arrays do).
        out.reserveCapacity(Int(min(max(0, duration) * settings.frameRate, 0x1p24)) + 1)
        while true {
            let input = next()
            if input.time >= duration { break }
            out.append(input)
        }
        return out
    }

    /// Blood volume at `t`: 1 at an isolated systolic peak.
    private mutating func pulse(at t: Double) -> Double {
        while beats.last.map({ $0.onset <= t + 0.5 }) ?? true { beats.append(train.next()) }
        while let first = beats.first, first.onset < t - 2 { beats.removeFirst() }
        var p = 0.0
        for b in beats { p += shape.value(at: t - b.onset) }
        return p
    }

    /// Motion artefact at `t`, in systolic amplitudes.
    private mutating func motion(at t: Double) -> Double {
        while nextSpike <= t {
            spikes.append((nextSpike, spikeRNG.uniform() < 0.5 ? -1 : 1))
            nextSpike += drawSpikeGap()
        }
        let d = settings.motionSpikeDuration
        spikes.removeAll { $0.start + d < t }
        var m = 0.0
        for s in spikes where t >= s.start {
            m += s.sign * settings.motionSpikeSize * 0.5 * (1 - cos(2 * Double.pi * (t - s.start) / d))
        }
        return m
    }

    private mutating func drawSpikeGap() -> Double {
        guard settings.motionSpikesPerMinute > 0 else { return .infinity }
        return -log(max(spikeRNG.uniform(), 1e-12)) * 60 / settings.motionSpikesPerMinute
    }

    private mutating func frame(at t: Double, noise: (Double, Double, Double)) -> PulseInput {
        let p = settings.perfusion * pulse(at: t) + settings.perfusion * motion(at: t)
        let slow = settings.drift * (0.6 * sin(2 * Double.pi * 0.031 * t + driftPhases.0)
            + 0.4 * sin(2 * Double.pi * 0.113 * t + driftPhases.1))
        let off = settings.liftOffs.contains { $0.contains(t) }
        switch settings.output {
        case .ppg:
            let value = (off ? 0 : p + 1.5 * slow) + 0.1 * settings.noise * noise.0
            return .ppg(time: t, value: value)
        case .color:
            if off {
                // The room: warm grey, not red-dominant.
                return .color(ColorSample(time: t, red: 120 + 2 * slow + noise.0, green: 105 + 2 * slow + noise.1,
                                          blue: 92 + 2 * slow + noise.2))
            }
            // Constants: levels and pulsatile fractions of a torch-lit fingertip (see the type's notes).
            let redMean = 258 * (1 - 0.012 * p) + 2 * slow
            let red = min(255, clippedMean(redMean, spread: 8, limit: 255) + settings.noise * noise.0)
            let green = max(0, 40 * (1 - 0.12 * p) + 3 * slow + settings.noise * noise.1)
            let blue = max(0, 20 * (1 - 0.05 * p) + 1 * slow + settings.noise * noise.2)
            return .color(ColorSample(time: t, red: red, green: green, blue: blue))
        }
    }

    /// Mean of min(X, limit) for X normal with mean `mean` and standard deviation `spread`: the frame
    /// mean of pixels that saturate at `limit`.
    private func clippedMean(_ mean: Double, spread: Double, limit: Double) -> Double {
        let z = (limit - mean) / spread
        let cdf = 0.5 * erfc(-z / 2.0.squareRoot())
        let pdf = exp(-0.5 * z * z) / (2 * Double.pi).squareRoot()
        return mean * cdf + limit * (1 - cdf) - spread * pdf
    }
}

/// The shape of one beat's blood-volume wave: systolic and dicrotic Gaussians.
struct PulseShape: Sendable {
    let systolicDelay: Double
    let systolicWidth: Double
    let dicroticDelay: Double
    let dicroticWidth: Double
    /// Dicrotic wave amplitude relative to the systolic wave.
    let dicroticAmplitude = 0.45

    init(period: Double) {
        // Timings at 60 bpm, compressed proportionally for periods shorter than 0.8 s.
        let s = min(1, period / 0.8)
        systolicDelay = 0.17 * s
        systolicWidth = 0.065 * s
        dicroticDelay = 0.42 * s
        dicroticWidth = 0.09 * s
    }

    func value(at dt: Double) -> Double {
        let a = (dt - systolicDelay) / systolicWidth
        let b = (dt - dicroticDelay) / dicroticWidth
        var v = 0.0
        if abs(a) < 8 { v += exp(-0.5 * a * a) }
        if abs(b) < 8 { v += dicroticAmplitude * exp(-0.5 * b * b) }
        return v
    }
}

/// The simulated heart's beat times: a seeded stream of onsets.
struct BeatTrain: Sendable {
    private var rng: SplitMix64
    private let settings: SimulatedFinger.Settings
    private let period: Double
    private let systolicDelay: Double
    private var onset: Double

    init(settings: SimulatedFinger.Settings) {
        self.settings = settings
        rng = SplitMix64(seed: settings.seed ^ 0xBEA7_0000_0000_0003)
        period = 60 / settings.bpm
        systolicDelay = PulseShape(period: period).systolicDelay
        onset = rng.uniform() * period
    }

    mutating func next() -> SimulatedBeat {
        let beat = SimulatedBeat(onset: onset, peak: onset + systolicDelay)
        var interval = period + settings.respiratoryModulation * sin(2 * Double.pi * settings.breathingRate * onset)
            + settings.intervalVariability * rng.gaussian()
        interval = min(1.6 * period, max(0.6 * period, interval))
        onset += interval
        return beat
    }
}
