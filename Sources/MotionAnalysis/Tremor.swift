import Foundation
import SignalProcessing

/// Resting tremor from a wrist-worn accelerometer, in the shape of Core Motion's movement-disorder
/// results (`CMTremorResult`): each second is *unknown* (the arm is moving, so a resting tremor
/// cannot be judged, or there is too little data), *none*, or a likely tremor graded by its
/// displacement amplitude as *slight*, *mild*, *moderate* or *strong*; a minute's result is the share
/// of its seconds in each.
///
/// Each second is judged from the acceleration of the last `windowSeconds` (default 4 s), on three
/// axes, through two Butterworth band-passes designed at the log's rate:
/// - **movement** (0.3-3 Hz, eighth order): voluntary motion, walking, turning the wrist. A window
///   whose movement is over `movementThreshold` and over twice what a tremor at the frequency found
///   would leak into this band is *unknown* (a 4-Hz tremor shows 0.29 of its tremor-band RMS
///   here at 50 Hz, one at 6 Hz 0.04; walking puts far more here than its steps' impacts put in
///   the tremor band).
/// - **tremor** (3.5-12 Hz; rest tremor in Parkinson's disease is 4-6 Hz, essential tremor 4-12 Hz):
///   its RMS over the window must reach `minimumAmplitude` (below: *none*); the axis with the most
///   tremor-band power gives the frequency (from its zero crossings, refined where its
///   autocorrelation peaks) and must be **regular**: its autocorrelation at one period at least
///   `minimumRegularity` (a tremor is an oscillation; noise and jerky motion that reach the band are
///   not). Regular: a likely tremor; irregular: *none*.
///
/// A tremor's displacement amplitude, peak to peak, is its acceleration over (2πf)²: for a
/// sinusoid, 2√2 × RMS × g / (2πf)². It is graded on the MDS-UPDRS rest-tremor amplitude scale
/// (item 3.17): slight under 1 cm, mild 1-3 cm, moderate 3-10 cm, strong 10 cm or more. The
/// amplitude is the wrist's (where the watch is), not the fingertips'.
///
/// Input is the total acceleration in g (gravity included: the band-passes remove it), so raw
/// accelerometer logs need no attitude filter. A gap over `maximumGap` restarts the filters; the
/// seconds until a window has filled again are *unknown*.
///
/// - Complexity: O(1) per sample (two and four second-order sections per axis, and running sums), and
///   O(window) per second for the regularity of a candidate window; memory O(window).
public struct TremorDetector: Sendable {
    public struct Parameters: Sendable, Equatable {
        /// Length of the window each second is judged from, s.
        public var windowSeconds = 4.0
        /// The tremor band, Hz.
        public var tremorBand = 3.5...12.0
        /// The band of voluntary movement, Hz.
        public var movementBand = 0.3...3.0
        /// Movement-band RMS (g, vector) over which the arm counts as moving (when it is also over
        /// half the tremor band's RMS). Default 0.04 g: gestures and walking are 0.05-0.3 g at the
        /// wrist; an arm at rest is under 0.01 g.
        public var movementThreshold = 0.04
        /// Tremor-band RMS (g, vector) below which there is no tremor to judge. Default 0.01 g: a
        /// 5-Hz tremor of 0.3 mm peak to peak, about five times a watch accelerometer's noise.
        public var minimumAmplitude = 0.01
        /// Autocorrelation at one period, 0...1, a tremor must reach. Default 0.5 (a steady sine
        /// gives nearly 1; band-limited noise at these lags about 0.1-0.3).
        public var minimumRegularity = 0.5
        /// A longer interval between samples restarts the detector, s (at most `windowSeconds`: the
        /// seconds of a shorter gap are closed one by one).
        public var maximumGap = 0.5

        public init() {}
    }

    /// How a second was judged.
    public enum Severity: String, Sendable, Codable, CaseIterable {
        case unknown, none, slight, mild, moderate, strong
    }

    /// One second's judgement and the window's measurements behind it.
    public struct Second: Sendable, Equatable, Codable {
        /// The second judged, s.
        public var start: Double
        public var end: Double
        public var severity: Severity
        /// Tremor frequency, Hz, when a tremor is likely.
        public var frequency: Double?
        /// Displacement amplitude, peak to peak, cm, when a tremor is likely.
        public var amplitudeCentimetres: Double?
        /// RMS of the window in the tremor and movement bands, g.
        public var tremorRMS: Double
        public var movementRMS: Double
        /// Autocorrelation at one period of the strongest axis, when it was measured.
        public var regularity: Double?
    }

    /// A minute's result, as `CMTremorResult`: the shares of its judged seconds (they sum to 1).
    public struct Minute: Sendable, Equatable, Codable {
        public var start: Double
        public var end: Double
        /// Seconds of the minute that were judged (a log's gaps are not).
        public var judgedSeconds: Double
        public var percentUnknown: Double
        public var percentNone: Double
        public var percentSlight: Double
        public var percentMild: Double
        public var percentModerate: Double
        public var percentStrong: Double
    }

    /// Why a detector cannot be made.
    public struct InvalidParameters: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The lowest sample rate the tremor band allows (its top, 12 Hz, under half the rate).
    public static let minimumSampleRate = 25.0

    /// Largest time magnitude taken, s: 2^52 s (143 million years). Beyond it adding a second to a
    /// time can leave it unchanged, so the seconds could not be counted off; samples at such times
    /// are skipped like those whose time is not a number.
    public static let maximumTime = 0x1p52

    public let parameters: Parameters
    public let sampleRate: Double
    private let tremorDesign: BiquadCascade
    private let movementDesign: BiquadCascade
    private var tremorFilter: AxisFilter
    private var movementFilter: AxisFilter
    /// The last window of the tremor-band signal, one lane per axis (x, y, z, 0).
    private var recent: RingBuffer<SIMD4<Double>>
    /// Per second of the window: sums of squares (tremor, movement) and sample counts.
    private var seconds: RingBuffer<(tremor: Double, movement: Double, count: Int)>
    private var tremorSum = 0.0, movementSum = 0.0, count = 0
    private var secondStart = Double.nan
    /// ``leakage(at:)`` at the tremor band's lowest frequency, the most a tremor leaks.
    private var maximumLeak = 0.0
    /// Scratch for the strongest axis's window.
    private var axisWindow: [Double] = []
    private var lastTime = Double.nan

    /// - Throws: ``InvalidParameters`` for a rate below ``minimumSampleRate`` or bands, window,
    ///   thresholds and maximum gap that cannot work.
    public init(sampleRate: Double, parameters: Parameters = Parameters()) throws {
        let p = parameters
        guard sampleRate.isFinite, sampleRate >= Self.minimumSampleRate, sampleRate <= 10_000 else {
            throw InvalidParameters(description: String(format: "tremor needs %.0f-10000 Hz samples (got %g Hz)", Self.minimumSampleRate, sampleRate))
        }
        guard p.tremorBand.lowerBound > 0, p.tremorBand.upperBound < sampleRate / 2, p.movementBand.lowerBound > 0,
              p.movementBand.lowerBound < p.movementBand.upperBound, p.tremorBand.lowerBound < p.tremorBand.upperBound else {
            throw InvalidParameters(description: "tremor: bands must be increasing ranges of positive frequencies under half the sample rate")
        }
        guard p.windowSeconds >= 2, p.windowSeconds <= 60, p.windowSeconds * p.tremorBand.lowerBound >= 4,
              p.movementThreshold >= 0, p.minimumAmplitude >= 0, (0...1).contains(p.minimumRegularity) else {
            throw InvalidParameters(description: "tremor: the window must be 2-60 s and hold four periods of the band's lowest frequency; thresholds 0 or more, regularity 0...1")
        }
        guard p.maximumGap > 0, p.maximumGap <= p.windowSeconds else {
            throw InvalidParameters(description: String(format: "tremor: the maximum gap must be positive and at most the %g-s window (got %g s)", p.windowSeconds, p.maximumGap))
        }
        self.parameters = p
        self.sampleRate = sampleRate
        tremorDesign = Butterworth.bandPass(order: 2, low: p.tremorBand.lowerBound, high: p.tremorBand.upperBound, sampleRate: sampleRate)
        movementDesign = Butterworth.bandPass(order: 4, low: p.movementBand.lowerBound, high: p.movementBand.upperBound, sampleRate: sampleRate)
        tremorFilter = AxisFilter(tremorDesign)
        movementFilter = AxisFilter(movementDesign)
        recent = RingBuffer(capacity: Int((p.windowSeconds * sampleRate).rounded()))
        seconds = RingBuffer(capacity: Int(p.windowSeconds.rounded(.up)))
        maximumLeak = leakage(at: p.tremorBand.lowerBound)
    }

    /// Feeds one sample (total acceleration, g); returns the seconds it closed, in order. A sample
    /// whose time is not after the previous one's, or is not a number within ±``maximumTime``, is
    /// skipped.
    public mutating func process(time: Double, acceleration a: Vector3) -> [Second] {
        guard abs(time) < Self.maximumTime, !(time <= lastTime) else { return [] }  // a repeated or earlier time: skipped
        var out: [Second] = []
        if !(time - lastTime <= parameters.maximumGap) {
            // The start, or a gap: the filters and the window begin again here.
            if secondStart.isFinite, count > 0 { out.append(closeSecond()) }
            restart(at: time, acceleration: a)
        }
        while time >= secondStart + 1 { out.append(closeSecond()) }
        lastTime = time
        let v = SIMD4(a.x, a.y, a.z, 0)
        let t = tremorFilter.process(v), m = movementFilter.process(v)
        recent.append(t)
        tremorSum += (t * t).sum()
        movementSum += (m * m).sum()
        count += 1
        return out
    }

    /// Feeds one device-motion sample (gravity + user acceleration).
    @inlinable
    public mutating func process(_ m: DeviceMotion) -> [Second] {
        process(time: m.time, acceleration: m.gravity + m.userAcceleration)
    }

    /// The second still open at the end of a recording, if it has samples.
    public mutating func finish() -> [Second] {
        guard secondStart.isFinite, count > 0 else { return [] }
        return [closeSecond()]
    }

    /// Runs over a recording (the same code as `process`). Inlinable, so a batch loop is
    /// specialised for its collection.
    @inlinable
    public mutating func process<C: Collection>(_ samples: C) -> [Second] where C.Element == DeviceMotion {
        var out: [Second] = []
        for m in samples {
            let closed = process(m)
            if !closed.isEmpty { out += closed }
        }
        return out + finish()
    }

    /// Begins again at `time`, the filters settled on `a` (gravity is a constant input: without
    /// this its step would ring through both bands for seconds).
    private mutating func restart(at time: Double, acceleration a: Vector3) {
        tremorFilter = AxisFilter(tremorDesign, steadyOn: SIMD4(a.x, a.y, a.z, 0))
        movementFilter = AxisFilter(movementDesign, steadyOn: SIMD4(a.x, a.y, a.z, 0))
        recent.removeAll()
        seconds.removeAll()
        tremorSum = 0
        movementSum = 0
        count = 0
        secondStart = time
    }

    /// Judges the second that ends now from the window that ends with it.
    private mutating func closeSecond() -> Second {
        seconds.append((tremorSum, movementSum, count))
        let start = secondStart
        secondStart += 1
        tremorSum = 0
        movementSum = 0
        count = 0
        let n = seconds.reduce(0) { $0 + $1.count }
        let tremorRMS = (seconds.reduce(0) { $0 + $1.tremor } / Double(max(n, 1))).squareRoot()
        let movementRMS = (seconds.reduce(0) { $0 + $1.movement } / Double(max(n, 1))).squareRoot()
        var second = Second(start: start, end: start + 1, severity: .unknown, tremorRMS: tremorRMS, movementRMS: movementRMS)
        // A window not yet full (the filters still settling) or with samples missing says nothing.
        guard seconds.isFull, Double(n) >= 0.8 * parameters.windowSeconds * sampleRate else { return second }
        // Moving: more movement-band motion than the threshold and than twice what a tremor at the
        // frequency found leaks into that band (a strong 4-Hz tremor is not taken for movement;
        // walking, whose steps' impacts fill the tremor band too, is). More than a tremor at the
        // band's lowest frequency would leak is movement whatever the frequency: not measured.
        let moving = movementRMS > parameters.movementThreshold
        if moving && movementRMS > 2 * maximumLeak * tremorRMS { return second }
        let candidate = tremorRMS >= parameters.minimumAmplitude ? oscillation() : nil
        let leak = candidate.map { leakage(at: $0.frequency) } ?? 0
        if moving && movementRMS > 2 * leak * tremorRMS { return second }
        second.severity = .none
        guard let (frequency, regularity) = candidate else { return second }
        second.regularity = regularity
        guard regularity >= parameters.minimumRegularity else { return second }
        // The band-pass passes a tremor near the band's edge a little weaker (0.86 at 4 Hz): its RMS
        // is divided by the filter's gain at the tremor's frequency.
        let acceleration = tremorRMS / max(gain(tremorDesign, at: frequency), 0.1)
        let peakToPeakMetres = 2 * 2.0.squareRoot() * acceleration * 9.80665 / pow(2 * .pi * frequency, 2)
        let cm = 100 * peakToPeakMetres
        second.frequency = frequency
        second.amplitudeCentimetres = cm
        second.severity = cm < 1 ? .slight : cm < 3 ? .mild : cm < 10 ? .moderate : .strong
        return second
    }

    /// The strongest axis's frequency (zero crossings, refined at the autocorrelation's peak) and
    /// its autocorrelation at that period; nil when it has no crossings in the band.
    private mutating func oscillation() -> (frequency: Double, regularity: Double)? {
        let energy = recent.reduce(SIMD4<Double>()) { $0 + $1 * $1 }
        let axis = energy.y > energy.x ? (energy.z > energy.y ? 2 : 1) : (energy.z > energy.x ? 2 : 0)
        axisWindow.removeAll(keepingCapacity: true)
        for v in recent { axisWindow.append(v[axis]) }
        let x = axisWindow
        var crossings = 0
        for i in 1..<x.count where (x[i - 1] < 0) != (x[i] < 0) { crossings += 1 }
        let duration = Double(x.count) / sampleRate
        let rough = Double(crossings) / (2 * duration)
        guard parameters.tremorBand.contains(rough) else { return nil }
        // Climb from the zero crossings' period to the autocorrelation's peak, then fit a parabola
        // through the peak and its neighbours.
        let longest = Int(sampleRate / parameters.tremorBand.lowerBound) + 1
        var lag = Int((sampleRate / rough).rounded())
        guard lag >= 2, longest + 1 < x.count else { return nil }
        var r = (autocorrelation(x, lag: lag - 1), autocorrelation(x, lag: lag), autocorrelation(x, lag: lag + 1))
        while lag > 2, lag < longest {
            if r.0 > r.1 {
                lag -= 1
                r = (autocorrelation(x, lag: lag - 1), r.0, r.1)
            } else if r.2 > r.1 {
                lag += 1
                r = (r.1, r.2, autocorrelation(x, lag: lag + 1))
            } else {
                break
            }
        }
        var peakLag = Double(lag), peak = r.1
        let curvature = r.0 - 2 * r.1 + r.2
        if curvature < 0 {
            let shift = 0.5 * (r.0 - r.2) / curvature
            peakLag += shift
            peak = r.1 - 0.25 * (r.0 - r.2) * shift
        }
        let frequency = sampleRate / peakLag
        guard parameters.tremorBand.contains(frequency) else { return nil }
        return (frequency, min(1, peak))
    }

    /// The movement band's gain over the tremor band's at `frequency` Hz: the share of a tremor's
    /// RMS there that shows as movement.
    private func leakage(at frequency: Double) -> Double {
        gain(movementDesign, at: frequency) / max(gain(tremorDesign, at: frequency), 0.1)
    }

    /// A filter's gain at `frequency` Hz.
    private func gain(_ filter: BiquadCascade, at frequency: Double) -> Double {
        let (re, im) = filter.response(atAngularFrequency: 2 * .pi * frequency / sampleRate)
        return (re * re + im * im).squareRoot()
    }

    /// Normalised autocorrelation of `x` at `lag`.
    private func autocorrelation(_ x: [Double], lag: Int) -> Double {
        var xy = 0.0, xx = 0.0, yy = 0.0
        for i in lag..<x.count {
            xy += x[i] * x[i - lag]
            xx += x[i] * x[i]
            yy += x[i - lag] * x[i - lag]
        }
        return xx > 0 && yy > 0 ? xy / (xx * yy).squareRoot() : 0
    }

    /// A stretch of likely tremor: seconds with a tremor, joined across up to `bridge` seconds
    /// without one.
    public struct Episode: Sendable, Equatable, Codable {
        public var start: Double
        public var end: Double
        /// The strongest grade of its seconds.
        public var severity: Severity
        /// Medians over its tremor seconds: frequency (Hz) and peak-to-peak amplitude (cm).
        public var frequency: Double
        public var amplitudeCentimetres: Double
    }

    /// The stretches of likely tremor in `seconds` (in time order).
    public static func episodes(_ seconds: [Second], bridge: Double = 2) -> [Episode] {
        var groups: [[Second]] = []
        for s in seconds where s.frequency != nil {
            if let last = groups.last?.last, s.start - last.end <= bridge {
                groups[groups.count - 1].append(s)
            } else {
                groups.append([s])
            }
        }
        let order = Severity.allCases
        return groups.map { g in
            Episode(start: g.first!.start, end: g.last!.end,
                    severity: g.map(\.severity).max { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! }!,
                    frequency: Statistics.median(g.compactMap(\.frequency)),
                    amplitudeCentimetres: Statistics.median(g.compactMap(\.amplitudeCentimetres)))
        }
    }

    /// The seconds grouped into minutes from `origin` (the recording's start), as Core Motion's
    /// results: the share of each minute's judged seconds in each severity. A second whose minute
    /// cannot be numbered (a start that is not a number, or more than `Int.max` minutes from
    /// `origin`) is left out.
    public static func minutes(_ seconds: [Second], origin: Double = 0) -> [Minute] {
        var groups: [Int: [Second]] = [:]
        for s in seconds {
            guard let minute = Int(exactly: ((s.start - origin) / 60).rounded(.down)) else { continue }
            groups[minute, default: []].append(s)
        }
        return groups.keys.sorted().map { k in
            let group = groups[k]!
            let n = Double(group.count)
            func share(_ severity: Severity) -> Double { Double(group.filter { $0.severity == severity }.count) / n }
            return Minute(start: origin + 60 * Double(k), end: origin + 60 * Double(k + 1), judgedSeconds: n,
                          percentUnknown: share(.unknown), percentNone: share(.none), percentSlight: share(.slight),
                          percentMild: share(.mild), percentModerate: share(.moderate), percentStrong: share(.strong))
        }
    }
}

/// One Butterworth design run on the three axes at once, a SIMD lane each (x, y, z, and an unused
/// fourth): the same arithmetic as `BiquadCascade.process` per lane, for a third of the work.
struct AxisFilter: Sendable {
    private struct Section: Sendable {
        var b0, b1, b2, a1, a2: Double
        var s1 = SIMD4<Double>(), s2 = SIMD4<Double>()
    }
    private var sections: [Section]

    /// The filter at rest, or settled on the constant input `x` (no start-up transient).
    init(_ design: BiquadCascade, steadyOn x: SIMD4<Double> = SIMD4()) {
        var level = x
        sections = design.sections.map { d in
            var s = Section(b0: d.b0, b1: d.b1, b2: d.b2, a1: d.a1, a2: d.a2)
            // As `Biquad.setSteadyState(input:)`, lane by lane.
            let y = d.dcGain * level
            s.s2 = d.b2 * level - d.a2 * y
            s.s1 = y - d.b0 * level
            level *= d.dcGain
            return s
        }
    }

    @inline(__always)
    mutating func process(_ x: SIMD4<Double>) -> SIMD4<Double> {
        var y = x
        for i in sections.indices {
            let c = sections[i]
            let input = y
            y = c.b0 * input + c.s1
            sections[i].s1 = (c.b1 * input + c.s2) - c.a1 * y
            sections[i].s2 = c.b2 * input - c.a2 * y
        }
        return y
    }
}
