import Foundation
import SignalProcessing

/// SplitMix64 bits with a Box-Muller normal deviate, so every test signal is reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var bits: SplitMix64
    init(seed: UInt64) { bits = SplitMix64(seed: seed) }
    mutating func next() -> UInt64 { bits.next() }
    /// A standard normal deviate (Box-Muller).
    mutating func gaussian() -> Double {
        let u1 = Double.random(in: Double.leastNonzeroMagnitude..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

/// The fixed 300-sample, 30 Hz signal whose filtered and Welch values were computed with scipy 1.17.1
/// (see the reference tests): two sinusoids in and out of a heart-rate band, a slow cosine, a ramp
/// and a deterministic saw-tooth "noise".
func scipyReferenceSignal() -> [Double] {
    let fs = 30.0
    return (0..<300).map { k in
        let t = Double(k) / fs
        let a = sin(2 * Double.pi * 1.2 * t) + 0.5 * sin(2 * Double.pi * 8 * t + 0.3)
        let b = 0.3 * cos(2 * Double.pi * 0.1 * t) + 0.002 * Double(k)
        return a + b + 0.1 * (Double((k * 37) % 11) / 11 - 0.5)
    }
}

/// True when `a` and `b` agree within `absolute + relative × |b|`.
func close(_ a: Double, _ b: Double, absolute: Double = 0, relative: Double = 0) -> Bool {
    abs(a - b) <= absolute + relative * abs(b)
}
