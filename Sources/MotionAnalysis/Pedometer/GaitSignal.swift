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
/// correlation between a third and two thirds of the lag (where the stride's second step falls).
///
/// - Complexity: per input sample O(1); per grid sample O(sections) plus, every `updateInterval`,
///   one autocorrelation of `window × lags` multiply-adds, computed only if the period is read before
///   the next one falls due (always while walking; a standing user costs none). Nothing allocates after
///   the first samples (the autocorrelation's scratch is on the stack).
struct GaitSignal: Sendable {
    /// Internal grid rate in Hz: 10 × the fastest running step rate, enough for 20 ms step times.
    static let rate = 50.0
    /// Largest plausible acceleration magnitude, g: twice the ±32 g full scale of the widest
    /// phone, watch and wearable accelerometers. Larger (or NaN) samples are skipped.
    static let maximumMagnitude = 64.0
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
    /// Positive correlation within ``strideSecondStepRange`` of the chosen lag above this means the lag
    /// is a stride of two steps (at half of it a true step period is anti-correlated: −0.3 to −0.9 on
    /// the Oxford set, a stride +0.1 to +0.9).
    static let strideSecondStepCorrelation = 0.05
    /// Where in the chosen lag the correlation above is looked for, as fractions of it. Not only at
    /// half: a limp, or a phone in one front pocket, can time the legs a third and two thirds of the
    /// stride apart, and the band-passed step (a near-sinusoid at the step rate) correlates at
    /// most cos(0.6π) ≈ −0.31 anywhere in this range. 0.4–0.6 until 23 Nov 2026 counted such a gait
    /// at half (`PedometerTests.stronglyAlternatingGait`); Oxford's counts stayed the same.
    static let strideSecondStepRange = (min: 0.3, max: 0.7)
    /// Steps put their energy in the gait band: over the period estimate's window, the band-passed
    /// signal's mean square is at least this multiple of that above `noiseBandLow`. Below it the
    /// estimate's periodicity is 0 and nothing is counted: random shaking spreads its energy evenly
    /// (white noise reads 0.15-0.3, at most 0.5 in a 4-s window), a vibration puts it above the band.
    /// Every Oxford and IPOL count is the same for thresholds from 0.35 to 0.5; at 0.7 one Oxford
    /// recording loses most of its steps (79 % error).
    static let minimumGaitBandRatio = 0.35
    /// Lower edge of the band (Hz, to the grid's Nyquist frequency) that `minimumGaitBandRatio`
    /// compares with.
    static let noiseBandLow = 5.0
    /// Local maxima smaller than this (g) are noise, never candidates.
    static let minimumProminence = 0.03
    /// Gaps in the input longer than this (s) restart the grid instead of being filled.
    static let maximumFilledGap = 5.0
    /// A sample this many bins or more past the current bin restarts the grid at its own time: the gap
    /// leaves more than `maximumFilledGap` of missing bins (so it is not filled), and the grid index of
    /// a sample however far away (1e300 s) is never converted to an `Int`.
    static let restartDistance = (maximumFilledGap * rate).rounded(.down) + 2
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
    /// Sums of consecutive blocks (1-s mean directions, unnormalised) and their lengths: `pairs[j]` is
    /// `blocks[j] + blocks[j + 1]`, kept so each is summed and measured once, not once per check.
    private var pairs = RingBuffer<Vector3>(capacity: GaitSignal.blockCapacity - 1)
    private var pairLengths = RingBuffer<Double>(capacity: GaitSignal.blockCapacity - 1)
    /// How long (s) the carrying orientation has been steady, as of the last completed block.
    private(set) var stableDuration = 0.0
    private var binCount = 0
    /// The band-pass (2nd-order Butterworth: two biquad sections), its sections held here rather than
    /// in `BiquadCascade`'s array so that each grid sample runs them without an array access; the same
    /// arithmetic as `BiquadCascade.process(_:)`.
    private var bandPass: (Biquad, Biquad)
    /// High-pass above the gait band (see `minimumGaitBandRatio`), and its output's history.
    private var highPass: Biquad
    private(set) var above = MirroredHistory(capacity: GaitSignal.historyCapacity)
    private var primed = false
    private var x1 = 0.0
    private var x2 = 0.0
    private var trough = 0.0

    /// Filtered values, oldest first (the newest is the current grid sample).
    private(set) var history = MirroredHistory(capacity: GaitSignal.historyCapacity)
    /// Grid samples produced so far.
    private(set) var count = 0
    /// The latest computed estimate: step period (s) and periodicity.
    private var estimate = (period: 0.55, periodicity: 0.0)
    /// An estimate that fell due but has not been computed yet: its window length (grid samples, 0 when
    /// none) and `history.total` when it fell due. It is computed, over the same window, when the period
    /// is next read; one falling due later replaces it unread. A standing user costs no autocorrelations.
    private var pendingLength = 0
    private var pendingTotal = 0

    /// Current step period estimate, seconds.
    var period: Double {
        mutating get {
            resolveEstimate()
            return estimate.period
        }
    }

    /// Normalised autocorrelation at the chosen lag (−1...1): how periodic the last 4 s were; 0 when
    /// they hold too little of their energy in the gait band to be steps (see `minimumGaitBandRatio`).
    var periodicity: Double {
        mutating get {
            resolveEstimate()
            return estimate.periodicity
        }
    }

    /// The current step period (s) without recording it (computes a pending estimate on the side).
    var currentPeriod: Double {
        guard pendingLength > 0 else { return estimate.period }
        return computeEstimate(length: pendingLength, skipping: 1 + history.total - pendingTotal).period
    }

    private mutating func resolveEstimate() {
        guard pendingLength > 0 else { return }
        estimate = computeEstimate(length: pendingLength, skipping: 1 + history.total - pendingTotal)
        pendingLength = 0
    }

    init() {
        let design = Butterworth.bandPass(order: 2, low: GaitSignal.band.low, high: GaitSignal.band.high,
                                          sampleRate: GaitSignal.rate)
        precondition(design.sections.count == 2, "a 2nd-order band-pass has two sections")
        bandPass = (design.sections[0], design.sections[1])
        let high = Butterworth.highPass(order: 2, cutoff: GaitSignal.noiseBandLow, sampleRate: GaitSignal.rate)
        precondition(high.sections.count == 1, "a 2nd-order high-pass has one section")
        highPass = high.sections[0]
    }

    /// A finished bin: its mean magnitude (g) and mean vector (g), and the grid samples to run with it,
    /// `first` and `count` bins (more than one when the input skipped bins; the gap is held at its value)
    /// counted from `origin` (s; the grid restarts after a long gap, so a bin carries its own).
    typealias FinishedBin = (value: Double, vector: Vector3, first: Int, count: Int, origin: Double)

    /// Adds one accelerometer sample (g, gravity included) taken at `time` (s). When this sample starts a
    /// new bin, returns the finished bin (see `FinishedBin`).
    mutating func bin(time: Double, acceleration: Vector3) -> FinishedBin? {
        var t = time, a = acceleration
        return bin(times: &t, accelerations: &a, from: 0, to: 1).done
    }

    /// Adds the samples `start..<end` of parallel arrays of times (s) and accelerations (g) until one of
    /// them starts a new bin; returns the bin it finished (if any) and the index after the last sample
    /// taken. The same code as `bin(time:acceleration:)`, with the running sums kept in registers
    /// between the samples of one bin.
    @inline(__always)
    mutating func bin(times: UnsafePointer<Double>, accelerations: UnsafePointer<Vector3>,
                      from start: Int, to end: Int) -> (done: FinishedBin?, next: Int) {
        var sum = binSum, vector = binVector, n = binCount, current = bin
        var base = origin ?? .nan  // NaN until the first sample
        // Grid position from which a sample restarts the grid (updated when `current` changes).
        var limit = Double(current) + GaitSignal.restartDistance
        var done: FinishedBin?
        var i = start
        while i < end {
            let time = times[i], acceleration = accelerations[i]
            i += 1
            let magnitude = acceleration.magnitude
            // Beyond every phone and watch accelerometer's range a value is a sensor fault or a
            // sentinel (FLT_MAX), not motion: one such sample rang the band-pass for tens of seconds.
            guard time.isFinite, magnitude <= GaitSignal.maximumMagnitude else { continue }
            if base.isNaN { base = time }
            let position = (time - base) * GaitSignal.rate  // bins from the origin
            let k: Int
            if position >= limit {
                // A gap too long to fill: the bin in progress finishes alone and the grid restarts
                // at this sample (its position may be beyond any Int, even infinite).
                if n > 0 {
                    done = (sum / Double(n), vector * (1 / Double(n)), current, 1, base)
                    sum = 0
                    vector = .zero
                    n = 0
                }
                base = time
                k = 0
            } else {
                k = position > 0 ? Int(position) : 0
            }
            if n == 0 {
                current = k
                limit = Double(current) + GaitSignal.restartDistance
            } else if k > current {
                // Fewer than `restartDistance` bins ahead: the missing bins, at most
                // `maximumFilledGap` of them, are filled.
                let missing = k - current - 1
                done = (sum / Double(n), vector * (1 / Double(n)), current, 1 + missing, base)
                current = k
                limit = Double(current) + GaitSignal.restartDistance
                sum = 0
                vector = .zero
                n = 0
            }
            // A sample stamped earlier than its bin (clock jitter) is averaged into the current bin.
            sum += magnitude
            vector = vector + acceleration
            n += 1
            if done != nil { break }
        }
        binSum = sum
        binVector = vector
        binCount = n
        bin = current
        if !base.isNaN { origin = base }
        return (done, i)
    }

    /// Completes the current bin (end of a recording); see `bin(time:acceleration:)`.
    mutating func flush() -> FinishedBin? {
        guard binCount > 0 else { return nil }
        let done = (binSum / Double(binCount), binVector * (1 / Double(binCount)), bin, 1, origin!)
        binCount = 0
        binSum = 0
        binVector = .zero
        bin += 1
        return done
    }

    /// Runs one grid sample (bin index `bin` counted from `origin` s, mean magnitude `value` in g) through the filter, the
    /// period estimator and the peak finder. Returns the grid time and the candidate found, if any.
    mutating func step(value: Double, vector: Vector3, bin: Int, origin: Double) -> (now: Double, candidate: StepCandidate?) {
        let now = origin + (Double(bin) + 0.5) / GaitSignal.rate
        trackOrientation(vector)
        if !primed {
            var cascade = BiquadCascade(sections: [bandPass.0, bandPass.1])
            cascade.setSteadyState(input: value)
            bandPass = (cascade.sections[0], cascade.sections[1])
            var high = BiquadCascade(sections: [highPass])
            high.setSteadyState(input: value)
            highPass = high.sections[0]
            primed = true
        }
        let y = bandPass.1.process(bandPass.0.process(value))
        history.append(y)
        above.append(highPass.process(value))
        count += 1
        let n = count - 1
        if n >= Int(GaitSignal.minimumWindow * GaitSignal.rate),
           n % Int(GaitSignal.updateInterval * GaitSignal.rate) == 0 {
            let length = min(n, Int(GaitSignal.window * GaitSignal.rate))
            // Windows too short to search every lag leave the previous estimate in place.
            if length / 2 > Int(GaitSignal.lagRange.max * GaitSignal.rate / 2) + 5 {
                pendingLength = length
                pendingTotal = history.total
            }
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

    /// Accumulates 0.5-s blocks of the mean acceleration vector; see `completeBlock()`.
    @inline(__always)
    private mutating func trackOrientation(_ v: Vector3) {
        blockSum = blockSum + v
        blockCount += 1
        if blockCount == Int(GaitSignal.blockDuration * GaitSignal.rate) { completeBlock() }
    }

    /// Stores a finished block and measures how far back the 1-s mean direction has stayed within
    /// `stableAngle` of the latest second's. Out of line: it runs once per 25 grid samples.
    @inline(never)
    private mutating func completeBlock() {
        blocks.append(blockSum)
        blockSum = .zero
        blockCount = 0
        let n = blocks.count
        guard n >= 2 else {
            stableDuration = Double(n) * GaitSignal.blockDuration
            return
        }
        let pair = blocks[n - 2] + blocks[n - 1]
        pairs.append(pair)
        pairLengths.append(pair.magnitude)
        let m = pairs.count
        let current = pairs[m - 1], currentLength = pairLengths[m - 1]
        let cosLimit = cos(GaitSignal.stableAngle * Double.pi / 180)
        var good = 2
        var k = m - 2
        while k >= 0 {
            let c = current.dot(pairs[k]) / max(1e-12, currentLength * pairLengths[k])
            if c < cosLimit { break }
            good += 1
            k -= 1
        }
        stableDuration = Double(good) * GaitSignal.blockDuration
    }

    /// The autocorrelation period estimate over the `length` grid samples before the newest, computed on
    /// pairs of grid samples averaged (25 Hz: steps are below 4 Hz; a quarter of the work of 50 Hz).
    private func computeEstimate(length fullLength: Int, skipping skip: Int) -> (period: Double, periodicity: Double) {
        let fs = GaitSignal.rate / 2
        let minLag = Int(GaitSignal.lagRange.min * fs)
        let maxLag = Int(GaitSignal.lagRange.max * fs)
        let length = fullLength / 2
        precondition(length > maxLag + 5, "estimate window shorter than the lags")
        // Scratch on the stack: the window (at most 4 s at 25 Hz) and one correlation per lag.
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: length) { w in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: maxLag - minLag + 1) { r in
                correlate(length: length, skipping: skip, minLag: minLag, maxLag: maxLag, window: w, into: r)
                let chosen = choosePeriod(UnsafeBufferPointer(r), minLag: minLag, fs: fs)
                let ratio = gaitBandRatio(length: 2 * length, skipping: skip)
                return ratio < GaitSignal.minimumGaitBandRatio ? (chosen.period, 0) : chosen
            }
        }
    }

    /// Fills `r` with the normalised autocorrelation, lags `minLag...maxLag`, of the `length` pair
    /// means of the grid samples before the newest `skip`, mean removed (`w` receives the window).
    private func correlate(length: Int, skipping skip: Int, minLag: Int, maxLag: Int,
                           window w: UnsafeMutableBufferPointer<Double>, into r: UnsafeMutableBufferPointer<Double>) {
        history.withWindow(last: 2 * length, skipping: skip) { h in
            var mean = 0.0
            for i in 0..<length {
                let v = 0.5 * (h[2 * i] + h[2 * i + 1])
                w[i] = v
                mean += v
            }
            mean /= Double(length)
            for i in 0..<length { w[i] -= mean }
        }
        let raw = UnsafeRawPointer(w.baseAddress!)
        // The energy Σ w² is one chain of dependent adds (kept in order, so the same bits); it
        // advances a few terms per lag pair, where the products' independent work hides its latency.
        var energy = 1e-12
        var e = 0
        let pairs = (maxLag - minLag + 1) / 2
        let energyStride = (length + pairs - 1) / max(1, pairs)
        // Raw sums first, two lags per pass (they share the loads of the window's start); each
        // lag's sum is formed exactly as a lone lag's would be (see `LagSums`).
        var lag = minLag
        while lag < maxLag {
            let end = min(length, e + energyStride)
            while e < end {
                energy += w[e] * w[e]
                e += 1
            }
            let sums = GaitSignal.lagPairSums(raw, length: length, lag: lag)
            r[lag - minLag] = sums.0
            r[lag + 1 - minLag] = sums.1
            lag += 2
        }
        while e < length {
            energy += w[e] * w[e]
            e += 1
        }
        if lag == maxLag { r[lag - minLag] = GaitSignal.lagSum(raw, length: length, lag: lag) }
        // Normalised apart from the sums: the divisions no longer wait on each lag's last add. Two lags
        // per SIMD2 division (each lane is the scalar expression's exact IEEE result, in the same order):
        // the divider, not the arithmetic, is what this loop waits on.
        var k = 0
        while k + 1 < r.count {
            let raw = SIMD2(r[k], r[k + 1])
            let overlap = SIMD2(Double(length - (k + minLag)), Double(length - (k + 1 + minLag)))
            let q = raw / SIMD2(repeating: energy) * SIMD2(repeating: Double(length)) / overlap
            r[k] = q[0]
            r[k + 1] = q[1]
            k += 2
        }
        if k < r.count {
            r[k] = r[k] / energy * Double(length) / Double(length - (k + minLag))
        }
    }

    /// The period (s) and periodicity from the normalised autocorrelation `r` of lags `minLag...`
    /// at `fs` Hz.
    private func choosePeriod(_ r: UnsafeBufferPointer<Double>, minLag: Int, fs: Double) -> (period: Double, periodicity: Double) {
        // The first local maximum within `peakTolerance` of the best one.
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
        // The best correlation where a stride's second step would fall.
        var secondStepCorrelation = -1.0
        let range = GaitSignal.strideSecondStepRange
        for k in r.indices {
            let l = Double(k + minLag)
            if l >= range.min * lag && l <= range.max * lag { secondStepCorrelation = max(secondStepCorrelation, r[k]) }
        }
        if secondStepCorrelation > GaitSignal.strideSecondStepCorrelation && lag / 2 / fs >= 0.2 {
            return (lag / 2 / fs, r[index])
        } else {
            return (lag / fs, r[index])
        }
    }

    /// Raw autocorrelation sums of the `length` values at `w` for `lag` and `lag + 1`:
    /// `Σ w[i]·w[i+lag]` over `i < length − lag` and `Σ w[i]·w[i+lag+1]` over `i < length − lag − 1`,
    /// each summed in the order of `LagSums` (identical to computing the lags one at a time).
    @inline(__always)
    static func lagPairSums(_ w: UnsafeRawPointer, length: Int, lag: Int) -> (Double, Double) {
        let countA = length - lag, countB = countA - 1
        var a = LagSums(), b = LagSums()
        let stride = MemoryLayout<Double>.stride
        var i = 0
        while i + 8 <= countB {
            let o = i * stride, p = (i + lag) * stride
            let x0 = w.loadUnaligned(fromByteOffset: o, as: SIMD2<Double>.self)
            let x1 = w.loadUnaligned(fromByteOffset: o + 16, as: SIMD2<Double>.self)
            let x2 = w.loadUnaligned(fromByteOffset: o + 32, as: SIMD2<Double>.self)
            let x3 = w.loadUnaligned(fromByteOffset: o + 48, as: SIMD2<Double>.self)
            let y0 = w.loadUnaligned(fromByteOffset: p, as: SIMD2<Double>.self)
            let y1 = w.loadUnaligned(fromByteOffset: p + 16, as: SIMD2<Double>.self)
            let y2 = w.loadUnaligned(fromByteOffset: p + 32, as: SIMD2<Double>.self)
            let y3 = w.loadUnaligned(fromByteOffset: p + 48, as: SIMD2<Double>.self)
            // `lag + 1` reads the same values one further on: loaded again at the odd offset rather than
            // shuffled out of the loads above (shuffles share the arithmetic's ports; measured as fast).
            let z0 = w.loadUnaligned(fromByteOffset: p + 8, as: SIMD2<Double>.self)
            let z1 = w.loadUnaligned(fromByteOffset: p + 24, as: SIMD2<Double>.self)
            let z2 = w.loadUnaligned(fromByteOffset: p + 40, as: SIMD2<Double>.self)
            let z3 = w.loadUnaligned(fromByteOffset: p + 56, as: SIMD2<Double>.self)
            a.acc0 += x0 * y0
            b.acc0 += x0 * z0
            a.acc1 += x1 * y1
            b.acc1 += x1 * z1
            a.acc2 += x2 * y2
            b.acc2 += x2 * z2
            a.acc3 += x3 * y3
            b.acc3 += x3 * z3
            i += 8
        }
        // `lag` has one more whole block than `lag + 1` when its count is a multiple of 8.
        let ia = a.addBlocks(w, from: i, to: countA, lag: lag)
        return (a.finish(w, from: ia, to: countA, lag: lag), b.finish(w, from: i, to: countB, lag: lag + 1))
    }

    /// One lag's running sum: two lanes per load, four independent SIMD sums over whole blocks of 8
    /// (keeps the pipeline full), then the lanes combined and the remainder added one by one.
    struct LagSums {
        var acc0 = SIMD2<Double>(repeating: 0), acc1 = SIMD2<Double>(repeating: 0)
        var acc2 = SIMD2<Double>(repeating: 0), acc3 = SIMD2<Double>(repeating: 0)

        /// Adds the whole blocks of 8 from `start` while they fit below `count`; returns where it stopped.
        @inline(__always)
        mutating func addBlocks(_ w: UnsafeRawPointer, from start: Int, to count: Int, lag: Int) -> Int {
            let stride = MemoryLayout<Double>.stride
            var i = start
            while i + 8 <= count {
                let o = i * stride, p = (i + lag) * stride
                acc0 += w.loadUnaligned(fromByteOffset: o, as: SIMD2<Double>.self)
                    * w.loadUnaligned(fromByteOffset: p, as: SIMD2<Double>.self)
                acc1 += w.loadUnaligned(fromByteOffset: o + 16, as: SIMD2<Double>.self)
                    * w.loadUnaligned(fromByteOffset: p + 16, as: SIMD2<Double>.self)
                acc2 += w.loadUnaligned(fromByteOffset: o + 32, as: SIMD2<Double>.self)
                    * w.loadUnaligned(fromByteOffset: p + 32, as: SIMD2<Double>.self)
                acc3 += w.loadUnaligned(fromByteOffset: o + 48, as: SIMD2<Double>.self)
                    * w.loadUnaligned(fromByteOffset: p + 48, as: SIMD2<Double>.self)
                i += 8
            }
            return i
        }

        /// The lanes combined, plus the products from `start` to `count` one by one.
        @inline(__always)
        func finish(_ w: UnsafeRawPointer, from start: Int, to count: Int, lag: Int) -> Double {
            let acc = (acc0 + acc1) + (acc2 + acc3)
            var s = acc.sum()
            let v = w.assumingMemoryBound(to: Double.self)
            var i = start
            while i < count {
                s += v[i] * v[i + lag]
                i += 1
            }
            return s
        }
    }

    /// `Σ w[i]·w[i+lag]` over `i < length − lag`, summed as `LagSums` does.
    static func lagSum(_ w: UnsafeRawPointer, length: Int, lag: Int) -> Double {
        var acc = LagSums()
        // Two statements: in `acc.finish(..., from: acc.addBlocks(...))` Swift reads `acc` for the
        // call before the argument's blocks are added to it, and the blocks are lost.
        let start = acc.addBlocks(w, from: 0, to: length - lag, lag: lag)
        return acc.finish(w, from: start, to: length - lag, lag: lag)
    }

    /// The band-passed values' mean square over the `length` grid samples before the newest `skip`,
    /// over that of the values above the gait band (see `minimumGaitBandRatio`).
    private func gaitBandRatio(length: Int, skipping skip: Int) -> Double {
        func meanSquare(_ h: MirroredHistory) -> Double {
            h.withWindow(last: length, skipping: skip) { w in w.reduce(0) { $0 + $1 * $1 } }
        }
        return meanSquare(history) / max(1e-18, meanSquare(above))
    }

    /// Root mean square of the last `length` band-passed values (g).
    func recentRMS(length: Int) -> Double {
        let n = min(length, history.count)
        guard n > 0 else { return 0 }
        return history.withWindow(last: n) { h in
            var s = 0.0
            for v in h { s += v * v }
            return (s / Double(n)).squareRoot()
        }
    }

    /// Pearson correlation of the last `length` samples before the newest with the same span `lag`
    /// samples earlier; 1 when there is not yet enough history.
    func laggedCorrelation(length: Int, lag: Int) -> Double {
        guard history.count >= length + lag + 1 else { return 1 }
        return history.withWindow(last: length + lag, skipping: 1) { h in
            var sa = 0.0, sb = 0.0
            for i in 0..<length {
                sa += h[lag + i]
                sb += h[i]
            }
            let ma = sa / Double(length), mb = sb / Double(length)
            var sab = 0.0, saa = 0.0, sbb = 0.0
            for i in 0..<length {
                let a = h[lag + i] - ma
                let b = h[i] - mb
                sab += a * b
                saa += a * a
                sbb += b * b
            }
            return sab / ((saa / Double(length)).squareRoot() * (sbb / Double(length)).squareRoot() * Double(length) + 1e-12)
        }
    }

}
