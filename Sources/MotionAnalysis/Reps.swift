import Foundation
import SignalProcessing

/// One set of repetitions found in a recording.
public struct RepSet: Sendable, Equatable, Codable {
    /// Seconds, on the samples' clock: first and last sample of the set's movement.
    public var start: Double
    public var end: Double
    /// Repetitions counted.
    public var reps: Int
    /// Repetition period in seconds.
    public var period: Double
    public init(start: Double, end: Double, reps: Int, period: Double) {
        self.start = start
        self.end = end
        self.reps = reps
        self.period = period
    }
}

/// Counts repetitions of an exercise from the pattern the gravity vector repeats (the device is
/// worn on the body: arm, wrist, thigh), and finds the sets on its own.
///
/// 0. Samples are averaged in blocks down to `analysisRate` (10 Hz): rep patterns are slower than 1 Hz.
/// 1. **Sets**: activity is the summed standard deviation of gravity's three components over a
///    centred `activityWindow`; a set is a run of activity ≥ `activityThreshold`, runs closer than
///    `mergeGap` joined, at least `minimumSet` long.
/// 2. **Reps in a set**: gravity projected on its principal direction of variation in the set, lightly
///    smoothed; the period is the autocorrelation maximum in `periodRange`; reps are the peaks of the
///    projection (either sign, whichever spaces more regularly) at least `minimumDistance` periods
///    apart and `minimumProminence` of the signal's range high; edge peaks that are low
///    (`edgeHeight`) or set apart (`edgeGap` × median spacing) are entry and exit moves, not reps.
///
/// Labels are never read: the counter sees only time and gravity. Constants were tuned on Exermote
/// individuals 1-3 and checked on individuals 4-6 (`vitals eval reps`).
/// - Complexity: O(1) per sample plus O(n log n + n·L) per set of n samples (L = lags searched);
///   memory is bounded by `maximumSet`.
public struct RepCounter: Sendable {
    public struct Parameters: Sendable, Equatable {
        /// Window of the activity measure, s.
        public var activityWindow = 3.0
        /// Activity (sum of gravity-component standard deviations, g) that counts as exercising.
        public var activityThreshold = 0.4
        /// Quieter stretches shorter than this (s) stay inside a set.
        public var mergeGap = 2.0
        /// Samples this long (s) before a set's first and after its last active sample are analysed
        /// with it: the centred activity window reacts half a window late.
        public var edgeMargin = 1.0
        /// Shortest set, s.
        public var minimumSet = 6.0
        /// Fewest reps that make a set.
        public var minimumReps = 2
        /// Longest set kept whole, s (longer ones are closed and a new one starts).
        public var maximumSet = 180.0
        /// Repetition periods searched, s. Reps faster than the lower end are counted at half (the
        /// autocorrelation picks two reps as one period: 12 reps of 1-1.8 s gave 6), and sets of reps
        /// slower than about 6 s can break up (the activity measure dips between reps: 6.5-7.5 s
        /// reps gave no set). 1.0 s as the lower end counted the same Exermote sets but added a
        /// stray set in one session, so the range stays fitted to prompted sets of 2-6 s reps.
        public var periodRange: ClosedRange<Double> = 2.0...8.0
        /// Difference in the coefficient of variation of the spacing below which peaks and troughs
        /// count as equally regular (then the side with more extremes is taken).
        public var regularityTie = 0.01
        /// A period's fraction (1/2, 1/3...) wins when its autocorrelation reaches this share of the best.
        public var subharmonicRatio = 0.85
        /// Centred moving-average length applied to the projection, s.
        public var smoothing = 0.5
        /// Peak prominence as a fraction of the projection's 5-95 % range.
        public var minimumProminence = 0.4
        /// Minimum peak spacing, in periods.
        public var minimumDistance = 0.6
        /// Edge peaks lower than this fraction of the median peak height (above the 5th percentile) go.
        public var edgeHeight = 0.8
        /// Edge peaks further than this many median spacings from their neighbour go.
        public var edgeGap = 1.3
        /// Samples are averaged in blocks down to no more than this rate before anything else, Hz.
        public var analysisRate = 10.0
        /// A longer interval between samples ends the set and restarts the counter, s.
        public var maximumInterval = 1.0
        public init() {}
    }

    public let parameters: Parameters
    public let sampleRate: Double
    private let window: Int
    private let block: Int
    private let internalRate: Double
    private var blockSum = Vector3.zero
    private var blockTime = 0.0
    private var blockCount = 0
    // Delay line for the centred activity window.
    private var ringTime: [Double]
    private var ringGravity: [Vector3]
    private var ringHead = -1
    private var ringCount = 0
    private var sum = Vector3.zero
    private var sumSquares = Vector3.zero
    // Current set.
    private var setTime: [Double] = []
    private var setGravity: [Vector3] = []
    private var inSet = false
    private var setStart = 0.0
    private var lastOn = 0.0
    private var lastOnIndex = 0
    private var lastTime = Double.nan
    private let maximumSetSamples: Int
    private var plans: [Int: FFT] = [:]  // FFT plans by size, made once

    /// Slowest recording the counter is run on, Hz: rep patterns are slower than 1 Hz, and below 4
    /// samples a second a rep of about a second is a handful of samples.
    public static let minimumSampleRate = 4.0

    /// Longest `maximumSet` taken, s (an hour): a set is minutes, and the set's samples are held.
    public static let longestSet = 3600.0

    /// Why a counter cannot run at `sampleRate` with `p`, or nil when it can: every rate a positive
    /// number (the sample rate up to 10 kHz, a motion log's most), every duration a number of
    /// seconds ≥ 0 up to `maximumSet` (itself at most ``longestSet``), the period range positive,
    /// the peak spacing 0...10 periods.
    static func problem(sampleRate: Double, parameters p: Parameters) -> String? {
        guard sampleRate > 0, sampleRate <= 10_000 else { return "sample rate must be a positive number up to 10 kHz (got \(sampleRate))" }
        guard p.analysisRate > 0, p.analysisRate.isFinite else { return "analysisRate must be a positive number of Hz (got \(p.analysisRate))" }
        guard p.maximumSet >= 0, p.maximumSet <= longestSet else { return "maximumSet must be 0...\(longestSet) s (got \(p.maximumSet))" }
        for (name, value) in [("activityWindow", p.activityWindow), ("smoothing", p.smoothing), ("periodRange", p.periodRange.upperBound)]
        where !(value >= 0 && value <= p.maximumSet) {
            return "\(name) must be a number of seconds from 0 to maximumSet, \(p.maximumSet) s (got \(value))"
        }
        guard p.periodRange.lowerBound > 0 else { return "periodRange must start above 0 s (got \(p.periodRange))" }
        guard p.minimumDistance >= 0, p.minimumDistance <= 10 else { return "minimumDistance must be 0...10 periods (got \(p.minimumDistance))" }
        return nil
    }

    /// - Parameters:
    ///   - sampleRate: the recording's rate in Hz (up to 10 kHz); windows in seconds become sample
    ///     counts.
    ///   - parameters: set detection and the rep periods looked for (see ``Parameters``).
    /// - Precondition: `sampleRate` is a positive number up to 10 kHz; the parameters' rates are
    ///   positive numbers, `maximumSet` at most ``longestSet``, the activity window, smoothing and
    ///   period range within `maximumSet` (the range above 0), `minimumDistance` 0...10 periods.
    ///   Other values are programming errors, stopped with a message naming them (NaN or 1e300 Hz
    ///   trapped converting to Int without one).
    public init(sampleRate: Double, parameters: Parameters = Parameters()) {
        if let problem = Self.problem(sampleRate: sampleRate, parameters: parameters) { preconditionFailure("RepCounter: " + problem) }
        self.parameters = parameters
        self.sampleRate = sampleRate
        // Rep patterns are slower than 1 Hz: samples are averaged in blocks down to `analysisRate`.
        block = max(1, Int((sampleRate / parameters.analysisRate).rounded(.down)))
        internalRate = sampleRate / Double(block)
        window = max(3, Int((parameters.activityWindow * internalRate).rounded()))
        ringTime = [Double](repeating: 0, count: window)
        ringGravity = [Vector3](repeating: .zero, count: window)
        maximumSetSamples = max(16, Int(parameters.maximumSet * internalRate))
        setTime.reserveCapacity(maximumSetSamples)
        setGravity.reserveCapacity(maximumSetSamples)
    }

    /// Feeds one sample; returns a set that ended before it, if any.
    ///
    /// Inlinable so a batch loop reads only the sample's time and gravity where it lies, rather than
    /// copying the whole 112-byte sample for a call.
    @inlinable
    public mutating func process(_ m: DeviceMotion) -> RepSet? {
        process(time: m.time, gravity: m.gravity)
    }

    /// Feeds one sample: `time` in seconds, `gravity` in g (device frame); returns a set that ended
    /// before it, if any.
    public mutating func process(time: Double, gravity: Vector3) -> RepSet? {
        var finished: RepSet?
        if !lastTime.isNaN && !(time - lastTime <= parameters.maximumInterval && time > lastTime) {
            finished = finish()
        }
        lastTime = time
        blockSum += gravity
        blockTime += time
        blockCount += 1
        guard blockCount == block else { return finished }
        let n = Double(blockCount)
        let g = blockSum / n, t = blockTime / n
        blockSum = .zero
        blockTime = 0
        blockCount = 0
        return ingest(time: t, gravity: g) ?? finished
    }

    /// One (block-averaged) sample into the activity window and the set logic.
    private mutating func ingest(time: Double, gravity g: Vector3) -> RepSet? {
        var finished: RepSet?
        // Slide the activity window.
        ringHead = ringHead + 1 == window ? 0 : ringHead + 1
        if ringCount == window {
            let old = ringGravity[ringHead]
            sum -= old
            sumSquares -= Vector3(x: old.x * old.x, y: old.y * old.y, z: old.z * old.z)
        } else {
            ringCount += 1
        }
        ringTime[ringHead] = time
        ringGravity[ringHead] = g
        sum += g
        sumSquares += Vector3(x: g.x * g.x, y: g.y * g.y, z: g.z * g.z)
        // The first half-window of a recording is never a window's centre: it is lead-in.
        guard ringCount == window else { return finished }
        // The centre sample of the window.
        var c = ringHead - window / 2
        if c < 0 { c += window }
        if let e = step(time: ringTime[c], gravity: ringGravity[c], on: isActive()) { finished = e }
        return finished
    }

    /// Ends the recording: judges the samples still in the window and closes an open set.
    public mutating func finish() -> RepSet? {
        var out: [RepSet] = []
        if blockCount > 0 {
            let n = Double(blockCount)
            let g = blockSum / n, t = blockTime / n
            blockSum = .zero
            blockTime = 0
            blockCount = 0
            if let e = ingest(time: t, gravity: g) { out.append(e) }
        }
        if ringCount > 0 {
            // Samples after the last judged centre, judged on the full window's activity.
            let a = isActive()
            let pending = ringCount == window ? window / 2 : ringCount
            for k in stride(from: pending - 1, through: 0, by: -1) {
                var i = ringHead - k
                if i < 0 { i += window }
                if let e = step(time: ringTime[i], gravity: ringGravity[i], on: a) { out.append(e) }
            }
        }
        if let e = close() { out.append(e) }
        ringHead = -1
        ringCount = 0
        sum = .zero
        sumSquares = .zero
        lastTime = .nan
        return out.last
    }

    /// Runs over a recording, the same code as `process` and `finish`.
    @inlinable
    public mutating func process<C: Collection>(_ samples: C) -> [RepSet] where C.Element == DeviceMotion {
        var out: [RepSet] = []
        for m in samples { if let s = process(m) { out.append(s) } }
        if let s = finish() { out.append(s) }
        return out
    }

    /// Whether activity reaches the threshold; decided from one square root when the bounds
    /// √(Σv) ≤ Σ√v ≤ √(3Σv) settle it (they nearly always do), exactly otherwise.
    @inline(__always)
    private func isActive() -> Bool {
        let inverse = 1 / Double(ringCount)
        let mx = sum.x * inverse, my = sum.y * inverse, mz = sum.z * inverse
        let vx = max(0, sumSquares.x * inverse - mx * mx)
        let vy = max(0, sumSquares.y * inverse - my * my)
        let vz = max(0, sumSquares.z * inverse - mz * mz)
        let total = vx + vy + vz
        let t = parameters.activityThreshold
        if 3 * total < t * t { return false }
        if total >= t * t { return true }
        return vx.squareRoot() + vy.squareRoot() + vz.squareRoot() >= t
    }

    private mutating func step(time: Double, gravity: Vector3, on: Bool) -> RepSet? {
        var out: RepSet?
        if inSet {
            setTime.append(time)
            setGravity.append(gravity)
            if on {
                lastOn = time
                lastOnIndex = setTime.count
            }
            if (!on && time - lastOn >= parameters.mergeGap) || setTime.count >= maximumSetSamples {
                out = close()
            }
        } else if on {
            inSet = true
            setStart = time
            lastOn = time
            // Pre-roll: the window's samples before its centre, up to `edgeMargin` earlier.
            for k in stride(from: ringCount - 1, through: 0, by: -1) {
                var i = ringHead - k
                if i < 0 { i += window }
                let t = ringTime[i]
                if t < time && t >= time - parameters.edgeMargin {
                    setTime.append(t)
                    setGravity.append(ringGravity[i])
                }
            }
            setTime.append(time)
            setGravity.append(gravity)
            lastOnIndex = setTime.count
        }
        return out
    }

    private mutating func close() -> RepSet? {
        guard inSet else { return nil }
        inSet = false
        // Post-roll: up to `edgeMargin` after the last active sample.
        var n = lastOnIndex
        while n < setTime.count && setTime[n] <= lastOn + parameters.edgeMargin { n += 1 }
        defer {
            setTime.removeAll(keepingCapacity: true)
            setGravity.removeAll(keepingCapacity: true)
        }
        guard n >= 4, setTime[n - 1] - setTime[0] >= parameters.minimumSet else { return nil }
        guard let (reps, period) = RepCounter.count(time: Array(setTime[0..<n]), gravity: Array(setGravity[0..<n]),
                                                   sampleRate: internalRate, parameters: parameters, plans: &plans),
              reps >= parameters.minimumReps else { return nil }
        return RepSet(start: setTime[0], end: setTime[n - 1], reps: reps, period: period)
    }

    /// Counts the repetitions in one set's samples; nil when the set is too short to analyse.
    /// - Precondition: `time` and `gravity` have the same count; `sampleRate` and `p` as for
    ///   ``init(sampleRate:parameters:)``.
    public static func count(time: [Double], gravity: [Vector3], sampleRate: Double,
                             parameters p: Parameters) -> (reps: Int, period: Double)? {
        precondition(time.count == gravity.count, "RepCounter.count: one time per gravity sample (got \(time.count) and \(gravity.count))")
        if let problem = problem(sampleRate: sampleRate, parameters: p) { preconditionFailure("RepCounter.count: " + problem) }
        var plans: [Int: FFT] = [:]
        return count(time: time, gravity: gravity, sampleRate: sampleRate, parameters: p, plans: &plans)
    }

    static func count(time: [Double], gravity: [Vector3], sampleRate: Double,
                      parameters p: Parameters, plans: inout [Int: FFT]) -> (reps: Int, period: Double)? {
        guard gravity.count >= 8, let (mean, direction) = principalDirection(of: gravity) else { return nil }
        let x = smoothedProjection(gravity, mean: mean, direction: direction, sampleRate: sampleRate, parameters: p)
        guard let period = repPeriod(x, sampleRate: sampleRate, parameters: p, plans: &plans),
              let reps = countExtremes(x, time: time, period: period, sampleRate: sampleRate, parameters: p) else { return nil }
        return (reps, period)
    }

    /// Gravity's mean and the principal direction of its variation; nil when the iteration meets a zero vector.
    private static func principalDirection(of gravity: [Vector3]) -> (mean: Vector3, direction: Vector3)? {
        let n = gravity.count
        // Principal direction of gravity's variation (power iteration on the covariance).
        var mean = Vector3.zero
        for g in gravity { mean += g }
        mean = mean / Double(n)
        var cxx = 0.0, cxy = 0.0, cxz = 0.0, cyy = 0.0, cyz = 0.0, czz = 0.0
        for g in gravity {
            let d = g - mean
            cxx += d.x * d.x; cxy += d.x * d.y; cxz += d.x * d.z
            cyy += d.y * d.y; cyz += d.y * d.z; czz += d.z * d.z
        }
        var v = cxx >= cyy && cxx >= czz ? Vector3(x: 1, y: 0.1, z: 0.1)
            : (cyy >= czz ? Vector3(x: 0.1, y: 1, z: 0.1) : Vector3(x: 0.1, y: 0.1, z: 1))
        for _ in 0..<100 {
            let w = Vector3(x: cxx * v.x + cxy * v.y + cxz * v.z,
                            y: cxy * v.x + cyy * v.y + cyz * v.z,
                            z: cxz * v.x + cyz * v.y + czz * v.z)
            guard w.magnitude > 0 else { return nil }
            let next = w.normalized
            // An exact fixed point (bit for bit) repeats forever: the remaining iterations could
            // not change `v`, so stopping here gives the same direction as running all 100.
            if next.x.bitPattern == v.x.bitPattern && next.y.bitPattern == v.y.bitPattern
                && next.z.bitPattern == v.z.bitPattern { break }
            v = next
        }
        return (mean, v)
    }

    /// Gravity less its mean, projected on `v` and smoothed: the signal the reps are counted in.
    private static func smoothedProjection(_ gravity: [Vector3], mean: Vector3, direction v: Vector3, sampleRate: Double,
                                           parameters p: Parameters) -> [Double] {
        let n = gravity.count
        let raw = gravity.map { ($0 - mean).dot(v) }
        // Centred moving average (shrinking at the ends).
        let half = max(0, Int((p.smoothing * sampleRate).rounded()) / 2)
        var x = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let lo = max(0, i - half), hi = min(n - 1, i + half)
            var s = 0.0
            for j in lo...hi { s += raw[j] }
            x[i] = s / Double(hi - lo + 1)
        }
        return x
    }

    /// The repetition period of `x`, s; nil when `x` is constant or `periodRange` holds no lag it can test.
    private static func repPeriod(_ x: [Double], sampleRate: Double, parameters p: Parameters,
                                  plans: inout [Int: FFT]) -> Double? {
        let n = x.count
        // Period: unbiased autocorrelation maximum in the period range.
        let xm = Statistics.mean(x)
        let c = x.map { $0 - xm }
        var ac0 = 0.0
        for value in c { ac0 += value * value }
        guard ac0 > 0 else { return nil }
        let minLag = max(1, Int((p.periodRange.lowerBound * sampleRate).rounded()))
        let maxLag = min(n - 2, Int((p.periodRange.upperBound * sampleRate).rounded()))
        guard maxLag >= minLag else { return nil }
        let re = autocorrelation(c, maxLag: maxLag, plans: &plans)
        let scale = re[0]  // = ac0 times the transform's normalisation
        var ac = [Double](repeating: -.infinity, count: maxLag + 1)
        var bestLag = minLag, best = -Double.infinity
        for lag in minLag...maxLag {  // the period range is closed: its upper end is a candidate too
            let r = re[lag] / scale / (1 - Double(lag) / Double(n))
            ac[lag] = r
            if r > best { best = r; bestLag = lag }
        }
        // A multiple of the true period can score as high: take the shortest local maximum near a
        // whole fraction (1/2, 1/3, ...) of the best lag whose correlation comes close to the best.
        var divisor = 2
        while bestLag / divisor >= minLag {
            let target = Double(bestLag) / Double(divisor)
            let lo = max(minLag, Int(target * 0.85)), hi = min(maxLag, Int((target * 1.15).rounded(.up)))
            if lo <= hi, let k = (lo...hi).max(by: { ac[$0] < ac[$1] }), ac[k] >= p.subharmonicRatio * best {
                bestLag = k
                break
            }
            divisor += 1
        }
        return Double(bestLag) / sampleRate
    }

    /// The circular autocorrelation of `c` at every lag (not normalised), with no wrap-around up to `maxLag`.
    private static func autocorrelation(_ c: [Double], maxLag: Int, plans: inout [Int: FFT]) -> [Double] {
        let n = c.count
        // Autocorrelation through the FFT, zero-padded to at least n + maxLag so circular wrap-around
        // cannot reach the lags used: O(n log n) per set.
        var size = 1
        while size < n + maxLag + 1 { size <<= 1 }
        var re = [Double](repeating: 0, count: size), im = [Double](repeating: 0, count: size)
        for i in 0..<n { re[i] = c[i] }
        var fft = plans[size] ?? FFT(count: size)
        fft.forward(re: &re, im: &im)
        for i in 0..<size {
            re[i] = re[i] * re[i] + im[i] * im[i]
            im[i] = 0
        }
        fft.inverse(re: &re, im: &im)
        plans[size] = fft
        return re
    }

    /// The reps in `x`: its peaks or its troughs, whichever space more regularly; nil when `x` has no 5-95 % range.
    private static func countExtremes(_ x: [Double], time: [Double], period: Double, sampleRate: Double,
                                      parameters p: Parameters) -> Int? {
        // The 5th and 95th percentiles by selection on a scratch copy: the same order statistics and
        // interpolation as sorting, in O(n).
        var scratch = x
        let (p5, p95) = scratch.withUnsafeMutableBufferPointer {
            (Statistics.selectPercentile($0, 5), Statistics.selectPercentile($0, 95))
        }
        let range = p95 - p5
        guard range > 0 else { return nil }
        // Each side's extremes: how regularly they space (coefficient of variation) and how many.
        let sides = [1.0, -1.0].map { sign -> (cv: Double, count: Int) in
            let y = x.map { sign * $0 }
            var peaks = Peaks.find(y, minDistance: max(1, Int(p.minimumDistance * period * sampleRate)),
                                   minProminence: p.minimumProminence * range).map(\.index)
            let low = sign > 0 ? p5 : -p95
            peaks = trimEdges(peaks, y: y, low: low, time: time, parameters: p)
            var cv = Double.infinity
            if peaks.count >= 2 {
                var d: [Double] = []
                for k in 1..<peaks.count { d.append(time[peaks[k]] - time[peaks[k - 1]]) }
                let m = Statistics.mean(d)
                cv = m > 0 ? Statistics.standardDeviation(d) / m : .infinity
            }
            return (cv, peaks.count)
        }
        // The side whose extremes space more regularly; when both are as regular (within
        // `regularityTie`), the side with more of them: n reps away from a rest level give n
        // extremes on one side and n - 1 between them on the other, and which sign the
        // principal direction took must not decide (a mirrored movement counted one rep fewer).
        let (peaksSide, troughsSide) = (sides[0], sides[1])
        let troughsBetter = troughsSide.cv < peaksSide.cv - p.regularityTie
            || (abs(troughsSide.cv - peaksSide.cv) <= p.regularityTie && troughsSide.count > peaksSide.count)
        return troughsBetter ? troughsSide.count : peaksSide.count
    }

    /// `low` is the 5th percentile of `y`.
    static func trimEdges(_ input: [Int], y: [Double], low: Double, time: [Double], parameters p: Parameters) -> [Int] {
        guard input.count >= 3 else { return input }
        let medianHeight = Statistics.median(input.map { y[$0] })
        var peaks = input.filter { y[$0] - low >= p.edgeHeight * (medianHeight - low) }
        while peaks.count >= 3 {
            var d: [Double] = []
            for k in 1..<peaks.count { d.append(time[peaks[k]] - time[peaks[k - 1]]) }
            let md = Statistics.median(d)
            if d[0] > p.edgeGap * md { peaks.removeFirst(); continue }
            if d[d.count - 1] > p.edgeGap * md { peaks.removeLast(); continue }
            break
        }
        return peaks
    }
}
