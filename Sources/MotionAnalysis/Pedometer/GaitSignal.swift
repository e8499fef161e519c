import Foundation
import SignalProcessing

/// A local maximum of the band-passed acceleration magnitude: a possible step.
struct StepCandidate: Sendable, Equatable {
    /// Time of the filtered peak, seconds (not yet corrected for the filter's delay).
    var time: Double
    /// Peak value minus the trough before it, in g.
    var prominence: Double
}

/// The common front end of step counting and pause/resume detection.
///
/// Orientation-free: it works on the magnitude of the acceleration vector (g, gravity included), so
/// the phone may sit in any pocket or hand in any orientation. Samples arrive at any rate and with
/// jitter; they are averaged into bins of `1 / rate` seconds (a box anti-alias filter), band-passed
/// (Butterworth, 0.5–3.5 Hz: walking and running step rates with their stride sub-harmonic), and
/// scanned for local maxima. Every half second the step period is re-estimated from the
/// autocorrelation of the last 4 s, telling a stride (two steps) from a step by the sign of the
/// correlation at half the lag.
///
/// - Complexity: per input sample O(1); per grid sample O(sections) plus, every `updateInterval`,
///   one autocorrelation of `window × lags` multiply-adds. Nothing allocates after the first samples.
struct GaitSignal: Sendable {
    /// Internal grid rate in Hz: 10 × the fastest running step rate, enough for 20 ms step times.
    static let rate = 50.0
    /// Band edges in Hz: below the slowest stride (0.5 Hz) is posture; above 3.5 Hz is impact ringing.
    static let band = (low: 0.5, high: 3.5)
    /// Autocorrelation window, seconds: two strides at the slowest walk.
    static let window = 4.0
    /// Period re-estimation interval, seconds.
    static let updateInterval = 0.5
    /// First period estimate once this much signal exists, seconds.
    static let minimumWindow = 2.0
    /// Lags searched, seconds: 0.25 s (4 steps/s, sprinting) to 1.6 s (a slow stride).
    static let lagRange = (min: 0.25, max: 1.6)
    /// A correlation peak within this much of the best counts as "as good" (the first such peak wins,
    /// so a step beats the stride and the stride beats three steps).
    static let peakTolerance = 0.15
    /// Positive correlation at half the chosen lag above this means the lag is a stride of two steps
    /// (the half-lag of a true step period is anti-correlated: −0.3 to −0.9 on the Oxford set, a
    /// stride's half-lag +0.1 to +0.9).
    static let strideHalfLagCorrelation = 0.05
    /// Local maxima smaller than this (g) are noise, never candidates.
    static let minimumProminence = 0.03
    /// Gaps in the input longer than this (s) restart the grid instead of being filled.
    static let maximumFilledGap = 5.0
    /// Orientation blocks, seconds: the mean acceleration direction is taken per block.
    static let blockDuration = 0.5
    /// Two 1-s mean directions within this angle (degrees) count as the same carrying orientation.
    /// Walking keeps the 1-s mean direction within 25° of the previous seconds in 95 % of the Oxford
    /// walking time (pockets and bags: within 10°), while taking a phone out, pocketing or dropping it
    /// in a bag turns it by 25°–130°.
    static let stableAngle = 25.0
    /// Orientation history kept, in blocks (8 s).
    static let blockCapacity = 16
    /// History kept (grid samples): the 4 s window or a 2.5 s short window plus the longest stride lag.
    static let historyCapacity = 320

    private var origin: Double?
    private var bin = 0
    private var binSum = 0.0
    private var binVector = Vector3.zero
    private var blockSum = Vector3.zero
    private var blockCount = 0
    private var blocks = RingBuffer<Vector3>(capacity: GaitSignal.blockCapacity)
    /// How long (s) the carrying orientation has been steady, as of the last completed block.
    private(set) var stableDuration = 0.0
    private var binCount = 0
    private var filter = Butterworth.bandPass(order: 2, low: band.low, high: band.high, sampleRate: rate)
    private var primed = false
    private var x1 = 0.0
    private var x2 = 0.0
    private var trough = 0.0
    private var window: [Double] = []
    private var correlation: [Double] = []

    /// Filtered values, oldest first (the newest is the current grid sample).
    private(set) var history = RingBuffer<Double>(capacity: GaitSignal.historyCapacity)
    /// Grid samples produced so far.
    private(set) var count = 0
    /// Current step period estimate, seconds.
    private(set) var period = 0.55
    /// Normalised autocorrelation at the chosen lag (−1...1): how periodic the last 4 s were.
    private(set) var periodicity = 0.0

    init() {}

    /// Adds one accelerometer magnitude (g) taken at `time` (s). When this sample starts a new bin, returns
    /// the finished bin's mean and the grid samples to run with it: `first` and `count` bins (more than
    /// one when the input skipped bins; the gap is held at the last value).
    mutating func bin(time: Double, acceleration: Vector3) -> (value: Double, vector: Vector3, first: Int, count: Int)? {
        let magnitude = acceleration.magnitude
        guard time.isFinite, magnitude.isFinite else { return nil }
        if origin == nil { origin = time }
        let k = Int(((time - origin!) * GaitSignal.rate).rounded(.down))
        var done: (value: Double, vector: Vector3, first: Int, count: Int)?
        if binCount == 0 {
            bin = k
        } else if k > bin {
            let missing = k - bin - 1
            let filled = Double(missing) / GaitSignal.rate <= GaitSignal.maximumFilledGap ? missing : 0
            done = (binSum / Double(binCount), binVector * (1 / Double(binCount)), bin, 1 + filled)
            bin = k
            binSum = 0
            binVector = .zero
            binCount = 0
        }
        // A sample stamped earlier than its bin (clock jitter) is averaged into the current bin.
        binSum += magnitude
        binVector = binVector + acceleration
        binCount += 1
        return done
    }

    /// Completes the current bin (end of a recording); see `bin(time:magnitude:)`.
    mutating func flush() -> (value: Double, vector: Vector3, first: Int, count: Int)? {
        guard binCount > 0 else { return nil }
        let done = (binSum / Double(binCount), binVector * (1 / Double(binCount)), bin, 1)
        binCount = 0
        binSum = 0
        binVector = .zero
        bin += 1
        return done
    }

    /// Runs one grid sample (bin index `bin`, mean magnitude `value` in g) through the filter, the
    /// period estimator and the peak finder. Returns the grid time and the candidate found, if any.
    mutating func step(value: Double, vector: Vector3, bin: Int) -> (now: Double, candidate: StepCandidate?) {
        let now = origin! + (Double(bin) + 0.5) / GaitSignal.rate
        trackOrientation(vector)
        if !primed {
            filter.setSteadyState(input: value)
            primed = true
        }
        let y = filter.process(value)
        history.append(y)
        count += 1
        let n = count - 1
        if n >= Int(GaitSignal.minimumWindow * GaitSignal.rate),
           n % Int(GaitSignal.updateInterval * GaitSignal.rate) == 0 {
            estimatePeriod(length: min(n, Int(GaitSignal.window * GaitSignal.rate)))
        }
        var candidate: StepCandidate?
        if count >= 3 {
            if x1 < x2 && x1 <= y { trough = x1 }
            if x1 > x2 && x1 >= y {
                let p = x1 - trough
                if p > GaitSignal.minimumProminence {
                    candidate = StepCandidate(time: now - 1 / GaitSignal.rate, prominence: p)
                }
            }
        }
        x2 = x1
        x1 = y
        return (now, candidate)
    }

    /// Accumulates 0.5-s blocks of the mean acceleration vector and measures how far back the 1-s mean
    /// direction has stayed within `stableAngle` of the latest second's.
    private mutating func trackOrientation(_ v: Vector3) {
        blockSum = blockSum + v
        blockCount += 1
        guard blockCount == Int(GaitSignal.blockDuration * GaitSignal.rate) else { return }
        blocks.append(blockSum)
        blockSum = .zero
        blockCount = 0
        let n = blocks.count
        guard n >= 2 else {
            stableDuration = Double(n) * GaitSignal.blockDuration
            return
        }
        let current = blocks[n - 1] + blocks[n - 2]
        let cosLimit = cos(GaitSignal.stableAngle * Double.pi / 180)
        var good = 2
        var k = n - 3
        while k >= 0 {
            let earlier = blocks[k] + blocks[k + 1]
            let c = current.dot(earlier) / max(1e-12, current.magnitude * earlier.magnitude)
            if c < cosLimit { break }
            good += 1
            k -= 1
        }
        stableDuration = Double(good) * GaitSignal.blockDuration
    }

    /// The autocorrelation period estimate over the `length` grid samples before the newest.
    private mutating func estimatePeriod(length: Int) {
        let fs = GaitSignal.rate
        let minLag = Int(GaitSignal.lagRange.min * fs)
        let maxLag = Int(GaitSignal.lagRange.max * fs)
        guard length > maxLag + 10 else { return }
        if window.count != Int(GaitSignal.window * fs) {
            window = [Double](repeating: 0, count: Int(GaitSignal.window * fs))
            correlation = [Double](repeating: 0, count: maxLag - minLag + 1)
        }
        let end = history.count - 1
        var mean = 0.0
        for i in 0..<length { mean += history[end - length + i] }
        mean /= Double(length)
        var energy = 1e-12
        for i in 0..<length {
            let v = history[end - length + i] - mean
            window[i] = v
            energy += v * v
        }
        window.withUnsafeBufferPointer { w in
            correlation.withUnsafeMutableBufferPointer { r in
                for lag in minLag...maxLag {
                    var s = 0.0
                    for i in 0..<(length - lag) { s += w[i] * w[i + lag] }
                    r[lag - minLag] = s / energy * Double(length) / Double(length - lag)
                }
            }
        }
        // The first local maximum within `peakTolerance` of the best one.
        let r = correlation
        var best = -Double.infinity
        var anyPeak = false
        for k in 1..<(r.count - 1) where r[k] >= r[k - 1] && r[k] >= r[k + 1] {
            best = max(best, r[k])
            anyPeak = true
        }
        var index = 0
        if anyPeak {
            for k in 1..<(r.count - 1) where r[k] >= r[k - 1] && r[k] >= r[k + 1] && r[k] >= best - GaitSignal.peakTolerance {
                index = k
                break
            }
        } else {
            for k in r.indices where r[k] > r[index] { index = k }
        }
        var lag = Double(index + minLag)
        if index > 0 && index < r.count - 1 {
            let d = r[index - 1] - 2 * r[index] + r[index + 1]
            if d < 0 { lag += 0.5 * (r[index - 1] - r[index + 1]) / d }
        }
        var halfLagCorrelation = -1.0
        for k in r.indices {
            let l = Double(k + minLag)
            if l >= 0.4 * lag && l <= 0.6 * lag { halfLagCorrelation = max(halfLagCorrelation, r[k]) }
        }
        if halfLagCorrelation > GaitSignal.strideHalfLagCorrelation && lag / 2 / fs >= 0.2 {
            period = lag / 2 / fs
        } else {
            period = lag / fs
        }
        periodicity = r[index]
    }

    /// Pearson correlation of the last `length` samples before the newest with the same span `lag`
    /// samples earlier; 1 when there is not yet enough history.
    func laggedCorrelation(length: Int, lag: Int) -> Double {
        let n = history.count - 1
        guard n >= length + lag, count > length + lag else { return 1 }
        var sa = 0.0, sb = 0.0
        for i in 0..<length {
            sa += history[n - length + i]
            sb += history[n - length - lag + i]
        }
        let ma = sa / Double(length), mb = sb / Double(length)
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in 0..<length {
            let a = history[n - length + i] - ma
            let b = history[n - length - lag + i] - mb
            sab += a * b
            saa += a * a
            sbb += b * b
        }
        return sab / ((saa / Double(length)).squareRoot() * (sbb / Double(length)).squareRoot() * Double(length) + 1e-12)
    }
}
