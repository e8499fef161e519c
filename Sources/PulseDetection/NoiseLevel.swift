import SignalProcessing

/// The level of sample-to-sample noise in a uniformly sampled signal, from its fourth differences.
///
/// A pulse sampled at camera rates is smooth: its fourth difference is a small fraction of it (at
/// 30 Hz a 1.2-Hz wave keeps 0.4 % of its amplitude, a 2.4-Hz one 6 %), while white noise's fourth
/// difference has 70 times its variance. So the running mean square of the fourth difference, over
/// 70, estimates the noise variance. The pulse itself sets a floor that grows with the rate (about a
/// four-hundredth of its amplitude for a 72-bpm pulse with a weak second harmonic; at 120 bpm and
/// above the harmonic's fourth difference is a large part of it), the same for every channel
/// carrying the same pulse.
///
/// The mean starts from the median of the first 16 squared differences (over 0.455, the median of a
/// squared standard normal), so an artefact at the start does not set it; after that each squared
/// difference is capped at 16 times the mean, so a motion spike moves it little. While the signal
/// is exactly constant the mean is 0 and nothing is capped, so it follows once the signal moves.
///
/// - Complexity: O(1) time and memory per sample.
public struct NoiseLevel: Sendable {
    private var x1 = 0.0, x2 = 0.0, x3 = 0.0, x4 = 0.0
    private var count = 0
    private var meanSquare = 0.0
    /// The first 16 squared differences, for the starting median, and how many are in.
    private var first = SIMD16<Double>()
    private var collected = 0
    /// Squared differences averaged so far, the starting 16 included.
    private var averaged = 0
    /// Weight of each new squared difference once `settle` of them are averaged (exponential
    /// smoothing with a time constant of 1 / smoothing samples).
    private let smoothing: Double
    private let settle: Int

    /// - Parameter samples: the time constant of the running mean, in samples.
    /// - Precondition: `samples` is a finite number within ±10^12 (NaN and infinity trapped
    ///   converting to Int without a word).
    public init(samples: Double) {
        precondition(abs(samples) <= 1e12, "NoiseLevel: samples must be a finite number within ±1e12 (got \(samples))")
        smoothing = 1 / max(1, samples)
        settle = max(16, Int(samples / 4))
    }

    /// Forgets everything (a new stretch of signal).
    public mutating func reset() {
        count = 0
        collected = 0
        averaged = 0
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
        let square = d * d
        if collected < 16 {
            first[collected] = square
            collected += 1
            if collected == 16 {
                // Selection reorders `first`, which is refilled before it is read again.
                meanSquare = withUnsafeMutableBytes(of: &first) {
                    Statistics.selectMedian($0.bindMemory(to: Double.self))
                } / 0.455
                averaged = 16
            }
            return
        }
        if meanSquare == 0 {
            // Constant so far: start again where the signal first moves.
            if square > 0 {
                first[0] = square
                collected = 1
            }
            return
        }
        averaged += 1
        // A running mean (the median start counting as the first 16) until `settle`, then exponential.
        meanSquare += (averaged > settle ? smoothing : 1 / Double(averaged)) * (min(square, 16 * meanSquare) - meanSquare)
    }

    /// Standard deviation of the noise, in the signal's units; 0 until 20 samples are in (and while
    /// the signal has been exactly constant).
    public var sigma: Double { (meanSquare / 70).squareRoot() }
}
