import Foundation
import SignalProcessing

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
