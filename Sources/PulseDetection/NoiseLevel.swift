/// The level of sample-to-sample noise in a uniformly sampled signal, from its fourth differences.
///
/// A pulse sampled at camera rates is smooth: its fourth difference is a small fraction of it (at
/// 30 Hz a 1.2-Hz wave keeps 0.4 % of its amplitude, a 2.4-Hz one 6 %), while white noise's fourth
/// difference has 70 times its variance. So the running mean square of the fourth difference, over
/// 70, estimates the noise variance, with a floor from the pulse itself of about a four-hundredth of
/// its amplitude. Each squared difference is capped at 16 times the running mean once that is
/// established, so a motion spike moves the estimate little.
///
/// - Complexity: O(1) time and memory per sample.
public struct NoiseLevel: Sendable {
    private var x1 = 0.0, x2 = 0.0, x3 = 0.0, x4 = 0.0
    private var count = 0
    private var meanSquare = 0.0
    /// Weight of each new squared difference once `settle` of them are averaged (exponential
    /// smoothing with a time constant of 1 / smoothing samples).
    private let smoothing: Double
    private let settle: Int

    /// - Parameter samples: the time constant of the running mean, in samples.
    public init(samples: Double) {
        smoothing = 1 / max(1, samples)
        settle = max(1, Int(samples / 4))
    }

    /// Forgets everything (a new stretch of signal).
    public mutating func reset() {
        count = 0
        meanSquare = 0
    }

    /// Adds the next sample.
    @inline(__always)
    public mutating func add(_ x: Double) {
        defer {
            x4 = x3
            x3 = x2
            x2 = x1
            x1 = x
        }
        count += 1
        guard count >= 5 else { return }
        let d = x - 4 * x1 + 6 * x2 - 4 * x3 + x4
        let n = count - 4
        let square = n > settle ? min(d * d, 16 * meanSquare) : d * d
        meanSquare += (n > settle ? smoothing : 1 / Double(n)) * (square - meanSquare)
    }

    /// Standard deviation of the noise, in the signal's units; 0 until five samples are in.
    public var sigma: Double { (meanSquare / 70).squareRoot() }
}
