import SignalProcessing

/// The pulse of skin seen by a camera from a distance (a face, a forehead, a cheek), from each frame's
/// mean colour over the skin: remote photoplethysmography.
///
/// Without a finger on the lens the pulse is a change of well under 1 % in the skin's colour, beside
/// far larger changes of brightness as the head moves or the light flickers. The projections here
/// combine the three channels so that a change of brightness (all channels in proportion) cancels and
/// the blood's colour change stays:
/// - ``Method/pos``: Plane-Orthogonal-to-Skin (Wang, den Brinker, Stuijk and de Haan, "Algorithmic
///   principles of remote PPG", IEEE TBME 2017): over a sliding window each channel is divided by its
///   mean, projected on `(0, 1, -1)` and `(-2, 1, 1)`, and the two are added with the ratio of their
///   standard deviations as weight;
/// - ``Method/chrom``: the chrominance signals of de Haan and Jeanne (IEEE TBME 2013), `3R - 2G` and
///   `1.5R + G - 1.5B`, combined the same way (in the same sliding window, without CHROM's band-pass
///   inside each window);
/// - ``Method/green``: the green channel divided by its window mean (Verkruysse et al. 2008), the
///   baseline the others are compared with.
///
/// Each window's projection has its mean removed and is added into the output (overlap-add), so a
/// sample is final once the last window holding it has passed: ``Settings/windowSeconds`` after it.
///
/// The projections cancel a change of brightness, not a change of colour: frames whose chromaticity
/// (each channel's share of the three) leaves the recent frames' median by more than
/// ``Settings/maximumJump`` are left out. The pulse never changes the colour that much; a flash, a
/// highlight or a patch that slips off the skin does. The last used
/// colour takes a left-out frame's place (so every region of a video keeps the same frame times).
/// A new level that lasts is taken once it holds the median (half a window). A window where a
/// channel the method reads has a mean below ``Settings/minimumLevel`` (an under-exposed channel,
/// which has no pulse to give) adds nothing, so a dark recording comes out flat and the rate
/// tracker declines it.
///
/// - Complexity: O(window frames) per frame.
public struct RemotePulse: Sendable {
    /// How the three channels are combined into one pulse signal.
    public enum Method: String, Sendable, CaseIterable {
        case pos, chrom, green
    }

    public struct Settings: Sendable, Equatable {
        public var method: Method = .pos
        /// The sliding window, seconds: 1.6 s (32 frames at 20 fps in the POS paper), a period at
        /// 40 bpm (1.5 s), short enough that the skin's tone holds still.
        public var windowSeconds: Double = 1.6
        /// The largest change of a channel's share of the three (its chromaticity) against the recent
        /// frames' median for a frame to be used: 0.02. The pulse moves a share by under 0.005 (a
        /// pulsatile change of under 1 % in one channel against the others); light that is not the
        /// skin's (a flash, a highlight, the background) moves it by more.
        public var maximumJump: Double = 0.02
        /// The lowest window mean of any channel for the window to count, in the samples' units
        /// (1 of 255 for 8-bit colour means).
        public var minimumLevel: Double = 1
        public init() {}
    }

    /// One sample of the pulse signal (arbitrary units, mean near zero).
    public struct Sample: Sendable, Equatable {
        public var time: Double
        public var value: Double
    }

    public let settings: Settings
    /// Frames per window.
    public let windowFrames: Int
    /// Frames left out: a jump past ``Settings/maximumJump`` or a colour that is not a finite number
    /// (both held at the last used colour), or a time not after the previous frame's (skipped).
    public private(set) var rejectedFrames = 0
    private var recent: [RingBuffer<Double>]  // every channel of the last window's frames, used or not
    private var colors: [RingBuffer<Double>]  // every channel of the last window's used frames
    private var times: RingBuffer<Double>
    private var sum: [Double]  // overlap-add, one per frame in `colors`, oldest first
    private var scratch: [Double]
    private var projection: [Double]
    private var second: [Double]  // the second projection (POS, CHROM)
    private var lastTime: Double?
    private var lastUsed: SIMD3<Double>?

    /// - Parameters:
    ///   - frameRate: frames per second (nominal; the samples' own times are kept).
    ///   - settings: the method and its window.
    /// - Throws: `InvalidSettings` for a frame rate that is not positive, a window of under 3 frames
    ///   or over 10 s, or a jump or level that is not a positive number.
    public init(frameRate: Double, settings: Settings = Settings()) throws {
        guard frameRate.isFinite, frameRate > 0, frameRate <= 10_000 else {
            throw InvalidSettings("a frame rate of \(frameRate) fps: remote pulse needs a positive rate up to 10 kHz")
        }
        guard settings.windowSeconds.isFinite, settings.windowSeconds <= 10 else {
            throw InvalidSettings("the remote pulse window must be at most 10 s")
        }
        let frames = Int((settings.windowSeconds * frameRate).rounded())
        guard frames >= 3 else {
            throw InvalidSettings("a \(settings.windowSeconds)-s window at \(frameRate) fps holds under 3 frames")
        }
        guard settings.maximumJump > 0, settings.maximumJump.isFinite, settings.minimumLevel >= 0, settings.minimumLevel.isFinite else {
            throw InvalidSettings("the maximum jump must be positive and the minimum level a number ≥ 0")
        }
        self.settings = settings
        windowFrames = frames
        recent = Array(repeating: RingBuffer(capacity: frames), count: 3)
        colors = recent
        times = RingBuffer(capacity: frames)
        sum = []
        sum.reserveCapacity(frames)
        scratch = [Double](repeating: 0, count: frames)
        projection = [Double](repeating: 0, count: frames)
        second = projection
    }

    /// Feeds one frame's mean colour over the skin (any scale; 0-255 for 8-bit video).
    /// - Returns: the pulse samples this frame makes final (none or one, in time order).
    public mutating func process(time: Double, red: Double, green: Double, blue: Double) -> [Sample] {
        guard time.isFinite, lastTime.map({ time > $0 }) ?? true else {
            rejectedFrames += 1
            return []
        }
        lastTime = time
        var rgb = SIMD3(red, green, blue)
        if !(red.isFinite && green.isFinite && blue.isFinite) || isJump(rgb) {
            // Left out: the last used colour holds its place, so every region of a video keeps the
            // frames' times.
            rejectedFrames += 1
            guard let last = lastUsed else { return [] }
            rgb = last
        }
        lastUsed = rgb
        var out: [Sample] = []
        if times.isFull {
            out.append(Sample(time: times[0], value: sum.removeFirst()))
        }
        for c in 0..<3 { _ = colors[c].append(rgb[c]) }
        _ = times.append(time)
        sum.append(0)
        if times.isFull { addWindow() }
        return out
    }

    /// Whether the chromaticity of `rgb` (each channel's share of their sum) leaves the median of
    /// the last window's frames (this one included, used or not) by more than
    /// ``Settings/maximumJump`` in any channel. A change of brightness alone leaves it where it is.
    private mutating func isJump(_ rgb: SIMD3<Double>) -> Bool {
        let total = rgb.sum()
        guard total > 0 else { return true }
        let chromaticity = rgb / total
        for c in 0..<3 { _ = recent[c].append(chromaticity[c]) }
        for c in 0..<3 {
            let n = recent[c].count
            for i in 0..<n { scratch[i] = recent[c][i] }
            let median = scratch.withUnsafeMutableBufferPointer { Statistics.selectMedian(.init(rebasing: $0[0..<n])) }
            if abs(chromaticity[c] - median) > settings.maximumJump { return true }
        }
        return false
    }

    /// The samples still waiting for later windows, in time order (at the end of a recording).
    public mutating func flush() -> [Sample] {
        let out = (0..<sum.count).map { Sample(time: times[$0], value: sum[$0]) }
        reset()
        return out
    }

    /// Starts afresh (after a gap, or on another face).
    public mutating func reset() {
        for c in 0..<3 {
            recent[c].removeAll()
            colors[c].removeAll()
        }
        times.removeAll()
        sum.removeAll(keepingCapacity: true)
        lastTime = nil
        lastUsed = nil
    }

    /// Runs a whole recording through the same code as the live path; the result ends with the
    /// flushed samples.
    public static func run(times: [Double], red: [Double], green: [Double], blue: [Double], frameRate: Double,
                           settings: Settings = Settings()) throws -> (samples: [Sample], rejectedFrames: Int) {
        guard red.count == times.count, green.count == times.count, blue.count == times.count else {
            throw InvalidSettings("red, green and blue need one value per time")
        }
        var pulse = try RemotePulse(frameRate: frameRate, settings: settings)
        var out: [Sample] = []
        out.reserveCapacity(times.count)
        for i in times.indices {
            out += pulse.process(time: times[i], red: red[i], green: green[i], blue: blue[i])
        }
        let rejected = pulse.rejectedFrames
        out += pulse.flush()
        return (out, rejected)
    }

    /// Projects the full window of used frames and adds it, mean removed, into the output.
    private mutating func addWindow() {
        let n = windowFrames
        var means = SIMD3<Double>()
        for c in 0..<3 {
            for i in 0..<n { means[c] += colors[c][i] }
            means[c] /= Double(n)
        }
        // Every channel the method reads must be lit (green alone reads only green).
        let darkest = settings.method == .green ? means.y : means.min()
        guard darkest >= settings.minimumLevel, darkest > 0 else { return }
        switch settings.method {
        case .green:
            for i in 0..<n { projection[i] = colors[1][i] / means[1] }
        case .pos, .chrom:
            // Two projections of the normalised colour, then the one with the other's share of its spread.
            for i in 0..<n {
                let r = colors[0][i] / means[0], g = colors[1][i] / means[1], b = colors[2][i] / means[2]
                if settings.method == .pos {
                    projection[i] = g - b
                    second[i] = -2 * r + g + b
                } else {
                    projection[i] = 3 * r - 2 * g
                    second[i] = 1.5 * r + g - 1.5 * b
                }
            }
            let d1 = Statistics.standardDeviation(projection), d2 = Statistics.standardDeviation(second)
            // POS adds the second projection; CHROM subtracts its second chrominance signal.
            let alpha = d2 > 0 ? d1 / d2 : 0
            let sign = settings.method == .pos ? 1.0 : -1.0
            for i in 0..<n { projection[i] += sign * alpha * second[i] }
        }
        var mean = 0.0
        for i in 0..<n { mean += projection[i] }
        mean /= Double(n)
        for i in 0..<n { sum[i] += projection[i] - mean }
    }

    /// The rate a recording's windows agree on, bpm: the median of the windows' rates (the best
    /// guesses of windows declined for low confidence too), reported only when at least
    /// `minimumAgreement` of the windows lie within `agreementBPM` of it, and at least
    /// `minimumAnswered` of them (and two) were answered. Flat windows count for nothing; windows
    /// whose peak lies outside the rate range count against.
    ///
    /// A pulse too weak to show in every window still pulls most windows' peaks to its rate; noise
    /// scatters them over the range. With 8-s windows every 2 s, white noise in place of the skin's
    /// colour had 7-25 % of its windows within 5 bpm of their median (eight generated 5-minute
    /// recordings, 15 and 30 fps), a pulse at one noise standard deviation (per frame and channel)
    /// 93-98 % (four rates, 50-160 bpm); the default 0.5 sits between. Agreement alone also passes a
    /// steady artefact that no window is confident of (a flicker the green channel follows), hence
    /// the answered windows: 16-42 % of the windows of those pulses, 0-2 % of the noise's.
    /// - Returns: the rate (nil when the windows do not agree, too few were answered, or there are
    ///   none) and the share of windows that agree with the median.
    public static func consensus(_ estimates: [WristRateTracker.Estimate], agreementBPM: Double = 5,
                                 minimumAgreement: Double = 0.5, minimumAnswered: Double = 0.1) -> (bpm: Double?, agreement: Double) {
        let counted = estimates.filter { $0.declined != .flatSignal }
        let rates = counted.filter { $0.declined != .outsideRange }.map(\.bestGuessBPM)
        guard !rates.isEmpty else { return (nil, 0) }
        let median = Statistics.median(rates)
        let agreement = Double(rates.filter { abs($0 - median) <= agreementBPM }.count) / Double(counted.count)
        let answered = counted.filter { $0.declined == nil }.count
        let enough = answered >= 2 && Double(answered) >= minimumAnswered * Double(counted.count)
        return (agreement >= minimumAgreement && enough ? median : nil, agreement)
    }
}
