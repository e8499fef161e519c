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
/// β·(k - 1)·s, so with k = 5 and a 4-s spread the bound can grow e-fold a second.
///
/// A spike comes back; a step does not. When most of the recent samples were limited (more than
/// ``restartShare`` of them, in an exponential average over `restartSeconds`), the signal has a new
/// level or a new scale (the finger pressed harder, the exposure changed, a pulse came after a flat
/// start whose spread was next to 0), not a spike: the limiter starts afresh there, warm-up included,
/// instead of creeping toward it for as long as the bound takes to grow (a 10⁶ step in a unit sine:
/// 13 s). A 0.3-s spike, limited throughout, takes the average to 0.45 with the defaults, and a pulse
/// that grows threefold at once is not limited at all. While the spread is 0 nothing is limited.
/// - Complexity: O(1) per sample, no allocation.
public struct ExcursionLimiter: Sendable, Equatable {
    /// Excursions beyond `limit` times the mean absolute deviation are cut there.
    public let limit: Double
    /// Smoothing factors of the level (α) and of the spread (β) per sample.
    public let levelSmoothing: Double
    public let spreadSmoothing: Double
    /// Samples passed through unchanged while the spread is first learnt.
    public let warmUp: Int
    /// Smoothing factor, per sample, of the share of samples limited.
    public let shareSmoothing: Double
    /// Share of recent samples limited beyond which the limiter starts afresh.
    public static let restartShare = 0.6
    /// The running level and mean absolute deviation (0 before the first sample).
    public private(set) var level = 0.0
    public private(set) var spread = 0.0
    private var count = 0
    private var limitedShare = 0.0

    /// - Parameters:
    ///   - limit: excursions are limited to this many mean absolute deviations (> 0; `.infinity`
    ///     limits nothing).
    ///   - sampleRate: samples per second (> 0).
    ///   - levelSeconds: time constant of the running level.
    ///   - spreadSeconds: time constant of the running spread.
    ///   - warmUpSeconds: how long the start passes unchanged.
    ///   - restartSeconds: time constant of the share of samples limited (see the type's notes).
    /// - Precondition: every argument is positive, and all but `limit` finite.
    public init(limit: Double, sampleRate: Double, levelSeconds: Double = 2, spreadSeconds: Double = 4,
                warmUpSeconds: Double = 3, restartSeconds: Double = 0.5) {
        precondition(limit > 0 && [sampleRate, levelSeconds, spreadSeconds, warmUpSeconds, restartSeconds].allSatisfy { $0 > 0 && $0.isFinite },
                     "ExcursionLimiter: the limit must be positive, the rate and times positive and finite")
        self.limit = limit
        levelSmoothing = min(1, 1 / (levelSeconds * sampleRate))
        spreadSmoothing = min(1, 1 / (spreadSeconds * sampleRate))
        warmUp = max(1, Int((warmUpSeconds * sampleRate).rounded()))
        shareSmoothing = min(1, 1 / (restartSeconds * sampleRate))
    }

    /// Starts afresh at `value` (the level of the signal to come).
    public mutating func reset(level value: Double) {
        level = value
        spread = 0
        count = 0
        limitedShare = 0
    }

    /// The limited sample.
    @inline(__always)
    public mutating func process(_ x: Double) -> Double {
        var d = x - level
        if count < warmUp {
            count += 1
            spread += (abs(d) - spread) / Double(count)
        } else {
            // A zero spread limits nothing (and an infinite limit over it, NaN, would not either).
            let bound = limit * spread
            let limited = abs(d) > bound && spread > 0
            limitedShare += shareSmoothing * ((limited ? 1 : 0) - limitedShare)
            if limited && limitedShare > Self.restartShare {
                // A new level or scale, not a spike: this sample is the first of a fresh start (its
                // warm-up's first sample, with no deviation from the level it sets).
                reset(level: x)
                count = 1
                return x
            }
            if limited { d = d > 0 ? bound : -bound }
            spread += spreadSmoothing * (abs(d) - spread)
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
