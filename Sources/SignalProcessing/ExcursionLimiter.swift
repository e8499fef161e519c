/// Limits a signal's excursions from its running level to a multiple of its running mean absolute
/// deviation: a motion spike several times the size of the pulse is cut down to a pulse-sized bump
/// before a band-pass filter turns it into a large, slow ringing that swamps the beats after it.
///
/// For each sample `x` (the level `m` and the spread `s` as they stood before it):
///
///     y = m + clamp(x - m, -k·s, k·s)
///     s ← s + β·(|y - m| - s),  m ← m + α·(y - m)
///
/// Both running figures are taken from the limited output, so a spike moves neither much. During
/// the first `warmUp` samples nothing is limited and `s` is the plain mean of |x - m| so far (an
/// unbiased start, not an average pulled towards 0); after that it is the exponential average.
/// A signal whose amplitude grows is followed: a limited sample still lifts the spread by up to
/// β·(k - 1)·s, so with k = 5 and a 4-s spread the bound can grow e-fold a second. A flat stretch
/// of T seconds shrinks the spread e-fold every 4 s, so the pulse coming back after it is limited
/// for about T/(k - 1) seconds. While the spread is 0 (a flat start) nothing is limited.
/// - Complexity: O(1) per sample, no allocation.
public struct ExcursionLimiter: Sendable, Equatable {
    /// Excursions beyond `limit` times the mean absolute deviation are cut there.
    public let limit: Double
    /// Smoothing factors of the level (α) and of the spread (β) per sample.
    public let levelSmoothing: Double
    public let spreadSmoothing: Double
    /// Samples passed through unchanged while the spread is first learnt.
    public let warmUp: Int
    /// The running level and mean absolute deviation (0 before the first sample).
    public private(set) var level = 0.0
    public private(set) var spread = 0.0
    private var count = 0

    /// - Parameters:
    ///   - limit: excursions are limited to this many mean absolute deviations (> 0; `.infinity`
    ///     limits nothing).
    ///   - sampleRate: samples per second (> 0).
    ///   - levelSeconds: time constant of the running level.
    ///   - spreadSeconds: time constant of the running spread.
    ///   - warmUpSeconds: how long the start passes unchanged.
    /// - Precondition: every argument is positive, and all but `limit` finite.
    public init(limit: Double, sampleRate: Double, levelSeconds: Double = 2, spreadSeconds: Double = 4,
                warmUpSeconds: Double = 3) {
        precondition(limit > 0 && [sampleRate, levelSeconds, spreadSeconds, warmUpSeconds].allSatisfy { $0 > 0 && $0.isFinite },
                     "ExcursionLimiter: the limit must be positive, the rate and times positive and finite")
        self.limit = limit
        levelSmoothing = min(1, 1 / (levelSeconds * sampleRate))
        spreadSmoothing = min(1, 1 / (spreadSeconds * sampleRate))
        warmUp = max(1, Int((warmUpSeconds * sampleRate).rounded()))
    }

    /// Starts afresh at `value` (the level of the signal to come).
    public mutating func reset(level value: Double) {
        level = value
        spread = 0
        count = 0
    }

    /// The limited sample.
    @inline(__always)
    public mutating func process(_ x: Double) -> Double {
        var d = x - level
        if count >= warmUp {
            // A zero spread limits nothing (and an infinite limit over it, NaN, would not either).
            let bound = limit * spread
            if abs(d) > bound, spread > 0 { d = d > 0 ? bound : -bound }
            spread += spreadSmoothing * (abs(d) - spread)
        } else {
            count += 1
            spread += (abs(d) - spread) / Double(count)
        }
        let y = level + d
        level += levelSmoothing * d
        return y
    }

    /// Limits `signal` in place, sample by sample (the same as ``process(_:)`` on each).
    public mutating func process(_ signal: inout [Double]) {
        for i in signal.indices { signal[i] = process(signal[i]) }
    }
}
