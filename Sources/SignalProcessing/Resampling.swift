/// Samples on a uniform time grid: sample k is at `start + k / rate` seconds.
public struct UniformSignal: Sendable, Hashable {
    /// Time of the first sample, seconds.
    public var start: Double
    /// Samples per second (Hz).
    public var rate: Double
    /// The samples.
    public var values: [Double]

    /// A signal whose first sample is at `start` seconds, `rate` samples per second.
    public init(start: Double, rate: Double, values: [Double]) {
        self.start = start
        self.rate = rate
        self.values = values
    }

    /// Time of sample `k`, seconds.
    @inlinable public func time(at k: Int) -> Double { start + Double(k) / rate }

    /// The times of all samples, seconds.
    public var times: [Double] { values.indices.map { time(at: $0) } }

    /// Time span covered, seconds (`(count - 1) / rate`; 0 when empty).
    public var duration: Double { values.count > 1 ? Double(values.count - 1) / rate : 0 }
}

/// Streaming linear resampler onto a uniform grid: feed `(time, value)` pairs in time order, get the
/// grid samples out as soon as the input brackets them.
///
/// The grid starts at the first sample's time; grid point k is at `start + k / rate` (computed by
/// multiplication, so no drift accumulates over long inputs). Each grid point is the linear
/// interpolation between the two input samples around it; an input sample exactly on a grid point
/// gives its value. Samples whose time is not a finite number, or not after the previous sample's
/// (repeated or backwards timestamps), are ignored; validating timestamps further is the caller's
/// job. Gaps are interpolated across: a sample `d` seconds after the previous one determines about
/// `d × rate` grid points, so bound the gaps you feed it.
///
/// - Complexity: O(1) amortised per input sample plus O(1) per output sample; allocates nothing.
public struct UniformResampler: Sendable, Hashable {
    /// Output rate, Hz.
    public let rate: Double
    /// Time of grid point 0 (the first input's time), or nil before any input.
    public var start: Double? { gridStart }
    /// Index of the next grid point to emit.
    public var nextIndex: Int { gridIndex }
    @usableFromInline var gridStart: Double?
    @usableFromInline var gridIndex = 0
    /// Time of grid point `gridIndex`, computed when the index advances (off the critical path).
    @usableFromInline var nextGridTime = 0.0
    @usableFromInline var previousTime = 0.0
    @usableFromInline var previousValue = 0.0

    /// A resampler producing `rate` samples per second (> 0).
    public init(rate: Double) {
        precondition(rate > 0 && rate.isFinite, "resampling rate must be positive and finite")
        self.rate = rate
    }

    /// Clears all state; the next sample starts a new grid.
    public mutating func reset() {
        gridStart = nil
        gridIndex = 0
        draining = false
        firstPending = false
    }

    /// Feeds one input sample; calls `emit(time, value)` for each grid point now determined
    /// (zero or more), in order.
    @inlinable
    public mutating func process(time: Double, value: Double, emit: (_ time: Double, _ value: Double) -> Void) {
        processImpl(time: time, value: value, emit: emit)
    }

    /// Feeds one input sample and appends the grid values now determined to `output`.
    public mutating func process(time: Double, value: Double, into output: inout [Double]) {
        processImpl(time: time, value: value) { _, v in output.append(v) }
    }

    @usableFromInline
    mutating func processImpl(time t: Double, value v: Double, emit: (Double, Double) -> Void) {
        push(time: t, value: v)
        while let (gt, gv) = next() { emit(gt, gv) }
    }

    // Pull interface: the input being consumed by `next()`.
    @usableFromInline var inputTime = 0.0
    @usableFromInline var inputValue = 0.0
    /// True while `next()` may still return grid points for the latest input.
    @usableFromInline var draining = false
    /// The first input of a grid is itself grid point 0, returned by the first `next()`.
    @usableFromInline var firstPending = false

    /// Feeds one input sample without a closure: call ``next()`` until it returns nil to collect the
    /// grid points it determines (the same points, in the same order, with the same arithmetic as
    /// ``process(time:value:emit:)``), before the next `push`.
    /// - Complexity: O(1); allocates nothing.
    @inlinable
    public mutating func push(time t: Double, value v: Double) {
        if draining { while next() != nil {} }
        // An infinite time would have every grid point after the previous sample to emit: never done.
        guard t.isFinite else { return }
        guard gridStart != nil else {
            gridStart = t
            previousTime = t
            previousValue = v
            gridIndex = 1
            nextGridTime = t + Double(1) / rate
            inputTime = t
            inputValue = v
            firstPending = true
            return
        }
        guard t > previousTime else { return }
        inputTime = t
        inputValue = v
        draining = true
    }

    /// The next grid point determined by the latest ``push(time:value:)``, or nil when there is none
    /// left (grid time in seconds, interpolated value).
    /// - Complexity: O(1); allocates nothing.
    @inlinable
    public mutating func next() -> (time: Double, value: Double)? {
        if firstPending {
            firstPending = false
            return (inputTime, inputValue)
        }
        guard draining, let t0 = gridStart else { return nil }
        let tk = nextGridTime  // t0 + Double(gridIndex) / rate
        if tk > inputTime {
            previousTime = inputTime
            previousValue = inputValue
            draining = false
            return nil
        }
        // On the grid, u = (tk - previousTime) / (inputTime - previousTime) is exactly 1: the same
        // value without the division.
        let value = tk == inputTime
            ? previousValue + (inputValue - previousValue)
            : previousValue + (inputValue - previousValue) * ((tk - previousTime) / (inputTime - previousTime))
        gridIndex += 1
        nextGridTime = t0 + Double(gridIndex) / rate
        return (tk, value)
    }
}

/// Resampling of timestamped samples.
public enum Resampling {
    /// Linear interpolation of `(times, values)` onto a uniform grid of `rate` Hz starting at `times[0]`
    /// and ending at the last grid point not after the last time. Runs ``UniformResampler`` over the
    /// input, so batch and streaming results are identical. Times must increase; samples that do not
    /// (repeats, steps back) and times that are not finite numbers are skipped. The output holds
    /// about `(last − first) × rate` samples: the caller bounds the span.
    /// - Parameters:
    ///   - times: sample times in seconds.
    ///   - values: samples, same count as `times`.
    ///   - rate: output samples per second (Hz).
    /// - Complexity: O(n + output count).
    public static func uniform(times: [Double], values: [Double], rate: Double) -> UniformSignal {
        precondition(times.count == values.count, "times and values must have the same count")
        var resampler = UniformResampler(rate: rate)
        var out: [Double] = []
        if let first = times.first, let last = times.last, last > first,
           let count = Int(exactly: ((last - first) * rate).rounded(.down)), count < Int.max {
            out.reserveCapacity(count + 1)
        }
        for i in times.indices {
            resampler.process(time: times[i], value: values[i], into: &out)
        }
        return UniformSignal(start: resampler.start ?? times.first ?? 0, rate: rate, values: out)
    }

    /// Linear interpolation of `(times, values)` (increasing times) at query times `at`, which must
    /// also increase (one forward scan); queries outside the input span take the nearest end value
    /// (numpy's `interp`).
    /// - Complexity: O(n + m).
    public static func interpolate(times: [Double], values: [Double], at queries: [Double]) -> [Double] {
        precondition(times.count == values.count, "times and values must have the same count")
        guard !times.isEmpty else { return [Double](repeating: .nan, count: queries.count) }
        var out = [Double](repeating: 0, count: queries.count)
        var j = 0
        let n = times.count
        for (q, tq) in queries.enumerated() {
            if tq <= times[0] { out[q] = values[0]; continue }
            if tq >= times[n - 1] { out[q] = values[n - 1]; continue }
            while j + 1 < n && times[j + 1] < tq { j += 1 }
            let t0 = times[j], t1 = times[j + 1]
            out[q] = t1 > t0 ? values[j] + (values[j + 1] - values[j]) * (tq - t0) / (t1 - t0) : values[j + 1]
        }
        return out
    }
}
