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
/// - **movement** (0.3-3 Hz): voluntary motion, walking, turning the wrist. A window whose movement
///   is over `movementThreshold` and over the tremor band's is *unknown* (a tremor at 4 Hz leaks
///   about half its RMS into the movement band; walking puts several times more there than its
///   harmonics put in the tremor band).
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
/// - Complexity: O(1) per sample (six second-order sections per axis pair and running sums), and
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
        /// A longer interval between samples restarts the detector, s.
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

    public let parameters: Parameters
    public let sampleRate: Double
    private let tremorDesign: BiquadCascade
    private let movementDesign: BiquadCascade
    private var tremorFilters: [BiquadCascade]
    private var movementFilters: [BiquadCascade]
    /// The last window of each axis's tremor-band signal.
    private var recent: [RingBuffer<Double>]
    /// Per second of the window: sums of squares (tremor, movement) and sample counts.
    private var seconds: RingBuffer<(tremor: Double, movement: Double, count: Int)>
    private var tremorSum = 0.0, movementSum = 0.0, count = 0
    private var secondStart = Double.nan
    private var lastTime = Double.nan

    /// - Throws: ``InvalidParameters`` for a rate below ``minimumSampleRate`` or bands, window and
    ///   thresholds that cannot work.
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
              p.movementThreshold >= 0, p.minimumAmplitude >= 0, (0...1).contains(p.minimumRegularity), p.maximumGap > 0 else {
            throw InvalidParameters(description: "tremor: the window must be 2-60 s and hold four periods of the band's lowest frequency; thresholds 0 or more, regularity 0...1")
        }
        self.parameters = p
        self.sampleRate = sampleRate
        tremorDesign = Butterworth.bandPass(order: 2, low: p.tremorBand.lowerBound, high: p.tremorBand.upperBound, sampleRate: sampleRate)
        movementDesign = Butterworth.bandPass(order: 2, low: p.movementBand.lowerBound, high: p.movementBand.upperBound, sampleRate: sampleRate)
        tremorFilters = Array(repeating: tremorDesign, count: 3)
        movementFilters = Array(repeating: movementDesign, count: 3)
        let windowSamples = Int((p.windowSeconds * sampleRate).rounded())
        recent = Array(repeating: RingBuffer(capacity: windowSamples), count: 3)
        seconds = RingBuffer(capacity: Int(p.windowSeconds.rounded(.up)))
    }

    /// Feeds one sample (total acceleration, g); returns the seconds it closed, in order.
    public mutating func process(time: Double, acceleration a: Vector3) -> [Second] {
        guard time.isFinite, !(time <= lastTime) else { return [] }  // a repeated or earlier time: skipped
        var out: [Second] = []
        if !(time - lastTime <= parameters.maximumGap) {
            // The start, or a gap: the filters and the window begin again here.
            if secondStart.isFinite, count > 0 { out.append(closeSecond()) }
            restart(at: time, acceleration: a)
        }
        while time >= secondStart + 1 { out.append(closeSecond()) }
        lastTime = time
        add(a.x, axis: 0)
        add(a.y, axis: 1)
        add(a.z, axis: 2)
        count += 1
        return out
    }

    private mutating func add(_ v: Double, axis: Int) {
        let t = tremorFilters[axis].process(v)
        let m = movementFilters[axis].process(v)
        recent[axis].append(t)
        tremorSum += t * t
        movementSum += m * m
    }

    /// Feeds one device-motion sample (gravity + user acceleration).
    public mutating func process(_ m: DeviceMotion) -> [Second] {
        process(time: m.time, acceleration: m.gravity + m.userAcceleration)
    }

    /// The second still open at the end of a recording, if it has samples.
    public mutating func finish() -> [Second] {
        guard secondStart.isFinite, count > 0 else { return [] }
        return [closeSecond()]
    }

    /// Runs over a recording (the same code as `process`).
    public mutating func process<C: Collection>(_ samples: C) -> [Second] where C.Element == DeviceMotion {
        var out: [Second] = []
        for m in samples { out += process(m) }
        return out + finish()
    }

    /// Begins again at `time`, the filters settled on `a` (gravity is a constant input: without
    /// this its step would ring through both bands for seconds).
    private mutating func restart(at time: Double, acceleration a: Vector3) {
        tremorFilters = Array(repeating: tremorDesign, count: 3)
        movementFilters = Array(repeating: movementDesign, count: 3)
        for (axis, v) in [a.x, a.y, a.z].enumerated() {
            tremorFilters[axis].setSteadyState(input: v)
            movementFilters[axis].setSteadyState(input: v)
        }
        for axis in 0..<3 { recent[axis].removeAll() }
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
        if movementRMS > parameters.movementThreshold && movementRMS > tremorRMS { return second }
        second.severity = .none
        guard tremorRMS >= parameters.minimumAmplitude, let (frequency, regularity) = oscillation() else { return second }
        second.regularity = regularity
        guard regularity >= parameters.minimumRegularity else { return second }
        // The band-pass passes a tremor near the band's edge a little weaker (0.86 at 4 Hz): its RMS
        // is divided by the filter's gain at the tremor's frequency.
        let (re, im) = tremorDesign.response(atAngularFrequency: 2 * .pi * frequency / sampleRate)
        let acceleration = tremorRMS / max((re * re + im * im).squareRoot(), 0.1)
        let peakToPeakMetres = 2 * 2.0.squareRoot() * acceleration * 9.80665 / pow(2 * .pi * frequency, 2)
        let cm = 100 * peakToPeakMetres
        second.frequency = frequency
        second.amplitudeCentimetres = cm
        second.severity = cm < 1 ? .slight : cm < 3 ? .mild : cm < 10 ? .moderate : .strong
        return second
    }

    /// The strongest axis's frequency (zero crossings, refined at the autocorrelation's peak) and
    /// its autocorrelation at that period; nil when it has no crossings in the band.
    private func oscillation() -> (frequency: Double, regularity: Double)? {
        let axis = (0..<3).max { a, b in energy(recent[a]) < energy(recent[b]) }!
        let x = Array(recent[axis])
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

    private func energy(_ x: RingBuffer<Double>) -> Double { x.reduce(0) { $0 + $1 * $1 } }

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

    /// The seconds grouped into minutes from `origin` (the recording's start), as Core Motion's
    /// results: the share of each minute's judged seconds in each severity.
    public static func minutes(_ seconds: [Second], origin: Double = 0) -> [Minute] {
        var groups: [Int: [Second]] = [:]
        for s in seconds { groups[Int(((s.start - origin) / 60).rounded(.down)), default: []].append(s) }
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
