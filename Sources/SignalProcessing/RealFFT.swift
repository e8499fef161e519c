#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The forward DFT of real signals, bins 0...n/2 only (the rest are their complex conjugates).
///
/// For even n the signal is packed as n/2 complex samples `x[2k] + i x[2k+1]`, transformed with one
/// n/2-point ``FFT`` and split into the even and odd halves' spectra, about twice as fast as a complex
/// transform of length n. Odd n fall back to the complex transform. The plan precomputes the split
/// twiddles and owns its scratch, so transforms allocate nothing.
///
/// Convention as ``FFT``: `X[k] = Σ x[j] e^{-2πi jk/n}`, unscaled.
/// - Complexity: O(n log n) per transform.
public struct RealFFT: Sendable {
    /// The signal length.
    public let count: Int
    /// Number of output bins, `count / 2 + 1`.
    public var binCount: Int { count / 2 + 1 }
    private var plan: FFT
    private var scratchRe: [Double]
    private var scratchIm: [Double]
    /// e^{-2πik/n} for k in 0..<n/2 (even n only).
    private let splitRe: [Double]
    private let splitIm: [Double]

    /// A plan for real signals of length `count` (1...``FFT/maximumCount``).
    public init(count: Int) {
        precondition(count >= 1 && count <= FFT.maximumCount, "FFT length must be 1...\(FFT.maximumCount) (got \(count))")
        self.count = count
        if count % 2 == 0 {
            let m = count / 2
            plan = FFT(count: m)
            scratchRe = [Double](repeating: 0, count: m)
            scratchIm = [Double](repeating: 0, count: m)
            splitRe = (0..<m).map { cos(2 * Double.pi * Double($0) / Double(count)) }
            splitIm = (0..<m).map { -sin(2 * Double.pi * Double($0) / Double(count)) }
        } else {
            plan = FFT(count: count)
            scratchRe = [Double](repeating: 0, count: count)
            scratchIm = [Double](repeating: 0, count: count)
            splitRe = []
            splitIm = []
        }
    }

    /// The transform of `x` (length `count`): bins 0...count/2.
    public func forward(_ x: [Double]) -> (re: [Double], im: [Double]) {
        var copy = self
        var re = [Double](repeating: 0, count: binCount), im = re
        copy.forward(x, re: &re, im: &im)
        return (re, im)
    }

    /// Writes bins 0...count/2 of the transform of `x` into `re` and `im` (each `binCount` long).
    /// - Complexity: O(n log n); allocates nothing.
    public mutating func forward(_ x: [Double], re: inout [Double], im: inout [Double]) {
        x.withUnsafeBufferPointer { xs in
            re.withUnsafeMutableBufferPointer { r in
                im.withUnsafeMutableBufferPointer { i in forward(xs, re: r, im: i) }
            }
        }
    }

    /// Writes bins 0...count/2 of the transform of `x` (length `count`) into `re` and `im`
    /// (each at least `binCount` long).
    /// - Complexity: O(n log n); allocates nothing.
    public mutating func forward(_ x: UnsafeBufferPointer<Double>, re: UnsafeMutableBufferPointer<Double>,
                                 im: UnsafeMutableBufferPointer<Double>) {
        precondition(x.count == count, "input length \(x.count) does not match the plan's \(count)")
        precondition(re.count >= binCount && im.count >= binCount, "output buffers too short")
        let n = count
        let bins = binCount
        if n % 2 != 0 {
            scratchRe.withUnsafeMutableBufferPointer { zr in
                scratchIm.withUnsafeMutableBufferPointer { zi in
                    for k in 0..<n {
                        zr[k] = x[k]
                        zi[k] = 0
                    }
                    plan.forward(re: zr, im: zi)
                    for k in 0..<bins {
                        re[k] = zr[k]
                        im[k] = zi[k]
                    }
                }
            }
            return
        }
        let m = n / 2
        scratchRe.withUnsafeMutableBufferPointer { zr in
            scratchIm.withUnsafeMutableBufferPointer { zi in
                for k in 0..<m {
                    zr[k] = x[2 * k]
                    zi[k] = x[2 * k + 1]
                }
                plan.forward(re: zr, im: zi)
                splitRe.withUnsafeBufferPointer { wr in
                    splitIm.withUnsafeBufferPointer { wi in
                        // Bins 0 and m from Z[0].
                        re[0] = zr[0] + zi[0]
                        im[0] = 0
                        re[m] = zr[0] - zi[0]
                        im[m] = 0
                        var k = 1
                        while k < m {
                            let ar = zr[k], ai = zi[k]
                            let br = zr[m - k], bi = -zi[m - k]  // conj(Z[m - k])
                            // E = (A + B) / 2, O = (A - B) / 2i
                            let er = 0.5 * (ar + br), ei = 0.5 * (ai + bi)
                            let or = 0.5 * (ai - bi), oi = -0.5 * (ar - br)
                            // X[k] = E + W^k O
                            re[k] = er + (wr[k] * or - wi[k] * oi)
                            im[k] = ei + (wr[k] * oi + wi[k] * or)
                            k += 1
                        }
                    }
                }
            }
        }
    }
}
