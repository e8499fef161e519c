import Foundation

/// A discrete Fourier transform plan for one length, any length.
///
/// Powers of two use an iterative radix-2 decimation-in-time transform; other lengths use Bluestein's
/// chirp-z algorithm (the DFT written as a convolution, computed with a power-of-two FFT of length
/// `>= 2n - 1`). The plan computes twiddle factors, the bit-reversal table and Bluestein's chirp and
/// its transform once; transforms then allocate nothing (in-place variants) beyond the output arrays
/// (convenience variants).
///
/// Convention: `X[k] = Σ x[j] e^{-2πi jk/n}` (forward, unscaled); the inverse divides by `n`, so
/// `inverse(forward(x)) == x`.
///
/// - Complexity: O(n log n) per transform for every n; the plan takes O(n) memory (O(m) for Bluestein,
///   m the padded power of two).
public struct FFT: Sendable {
    /// The transform length.
    public let count: Int
    private let kind: Kind
    /// Scratch for Bluestein's convolution (length m each); copy-on-write keeps copies independent.
    private var scratchRe: [Double]
    private var scratchIm: [Double]

    private enum Kind: Sendable {
        case radix2(Radix2)
        case bluestein(Bluestein)
    }

    /// Creates a plan for transforms of length `count` (>= 1).
    public init(count: Int) {
        precondition(count >= 1, "FFT length must be at least 1")
        self.count = count
        if count & (count - 1) == 0 {
            kind = .radix2(Radix2(count: count))
            scratchRe = []
            scratchIm = []
        } else {
            let b = Bluestein(count: count)
            kind = .bluestein(b)
            scratchRe = [Double](repeating: 0, count: b.inner.count)
            scratchIm = [Double](repeating: 0, count: b.inner.count)
        }
    }

    /// The forward transform of a real signal of length `count`; returns all `count` bins.
    public func forward(real x: [Double]) -> (re: [Double], im: [Double]) {
        precondition(x.count == count, "input length \(x.count) does not match the plan's \(count)")
        var copy = self
        var re = x
        var im = [Double](repeating: 0, count: count)
        copy.forward(re: &re, im: &im)
        return (re, im)
    }

    /// The forward transform of a complex signal; returns all `count` bins.
    public func forward(re: [Double], im: [Double]) -> (re: [Double], im: [Double]) {
        var copy = self
        var r = re, i = im
        copy.forward(re: &r, im: &i)
        return (r, i)
    }

    /// The inverse transform (scaled by 1/n) of a complex spectrum.
    public func inverse(re: [Double], im: [Double]) -> (re: [Double], im: [Double]) {
        var copy = self
        var r = re, i = im
        copy.inverse(re: &r, im: &i)
        return (r, i)
    }

    /// In-place forward transform of the complex signal `re + i·im` (both of length `count`).
    /// - Complexity: O(n log n); allocates nothing.
    public mutating func forward(re: inout [Double], im: inout [Double]) {
        precondition(re.count == count && im.count == count, "input length does not match the plan")
        re.withUnsafeMutableBufferPointer { r in
            im.withUnsafeMutableBufferPointer { i in
                forward(re: r, im: i)
            }
        }
    }

    /// In-place inverse transform (scaled by 1/n).
    /// - Complexity: O(n log n); allocates nothing.
    public mutating func inverse(re: inout [Double], im: inout [Double]) {
        precondition(re.count == count && im.count == count, "input length does not match the plan")
        re.withUnsafeMutableBufferPointer { r in
            im.withUnsafeMutableBufferPointer { i in
                // inverse(x) = conj(forward(conj(x))) / n
                for k in 0..<count { i[k] = -i[k] }
                forward(re: r, im: i)
                let s = 1 / Double(count)
                for k in 0..<count {
                    r[k] *= s
                    i[k] = -i[k] * s
                }
            }
        }
    }

    /// In-place forward transform on raw buffers of length `count`.
    /// - Complexity: O(n log n); allocates nothing.
    public mutating func forward(re: UnsafeMutableBufferPointer<Double>, im: UnsafeMutableBufferPointer<Double>) {
        precondition(re.count == count && im.count == count, "input length does not match the plan")
        switch kind {
        case .radix2(let plan):
            plan.transform(re: re, im: im)
        case .bluestein(let plan):
            scratchRe.withUnsafeMutableBufferPointer { sr in
                scratchIm.withUnsafeMutableBufferPointer { si in
                    plan.transform(re: re, im: im, scratchRe: sr, scratchIm: si)
                }
            }
        }
    }
}

/// Iterative radix-2 FFT for a power-of-two length.
private struct Radix2: Sendable {
    let count: Int
    /// cos(2πk/n), -sin(2πk/n) for k in 0..<n/2.
    let cosTable: [Double]
    let sinTable: [Double]
    let bitReversed: [Int]

    init(count n: Int) {
        count = n
        let half = n / 2
        var c = [Double](repeating: 0, count: half)
        var s = [Double](repeating: 0, count: half)
        for k in 0..<half {
            let a = 2 * Double.pi * Double(k) / Double(n)
            c[k] = cos(a)
            s[k] = -sin(a)
        }
        cosTable = c
        sinTable = s
        var rev = [Int](repeating: 0, count: n)
        var bits = 0
        while (1 << bits) < n { bits += 1 }
        for i in 0..<n {
            var r = 0, v = i
            for _ in 0..<bits {
                r = (r << 1) | (v & 1)
                v >>= 1
            }
            rev[i] = r
        }
        bitReversed = rev
    }

    func transform(re: UnsafeMutableBufferPointer<Double>, im: UnsafeMutableBufferPointer<Double>) {
        let n = count
        guard n > 1 else { return }
        bitReversed.withUnsafeBufferPointer { rev in
            for i in 0..<n {
                let j = rev[i]
                if j > i {
                    let tr = re[i]; re[i] = re[j]; re[j] = tr
                    let ti = im[i]; im[i] = im[j]; im[j] = ti
                }
            }
        }
        cosTable.withUnsafeBufferPointer { ct in
            sinTable.withUnsafeBufferPointer { st in
                var size = 2
                while size <= n {
                    let half = size / 2
                    let step = n / size
                    var start = 0
                    while start < n {
                        var t = 0
                        for k in start..<(start + half) {
                            let wr = ct[t], wi = st[t]
                            let j = k + half
                            let xr = re[j] * wr - im[j] * wi
                            let xi = re[j] * wi + im[j] * wr
                            re[j] = re[k] - xr
                            im[j] = im[k] - xi
                            re[k] += xr
                            im[k] += xi
                            t += step
                        }
                        start += size
                    }
                    size *= 2
                }
            }
        }
    }
}

/// Bluestein's chirp-z transform for an arbitrary length.
private struct Bluestein: Sendable {
    let count: Int
    let inner: Radix2
    /// The chirp w[k] = e^{-iπk²/n}, k in 0..<n.
    let chirpRe: [Double]
    let chirpIm: [Double]
    /// FFT of the convolution kernel conj(w) wrapped to length m, pre-scaled by 1/m for the inverse.
    let kernelRe: [Double]
    let kernelIm: [Double]

    init(count n: Int) {
        count = n
        var m = 1
        while m < 2 * n - 1 { m *= 2 }
        let innerPlan = Radix2(count: m)
        inner = innerPlan
        var cr = [Double](repeating: 0, count: n)
        var ci = [Double](repeating: 0, count: n)
        let twoN = 2 * n
        for k in 0..<n {
            // k² mod 2n keeps the angle small and exact for large k.
            let k2 = (k * k) % twoN
            let a = Double.pi * Double(k2) / Double(n)
            cr[k] = cos(a)
            ci[k] = -sin(a)
        }
        chirpRe = cr
        chirpIm = ci
        var br = [Double](repeating: 0, count: m)
        var bi = [Double](repeating: 0, count: m)
        br[0] = cr[0]
        bi[0] = -ci[0]
        for k in 1..<max(n, 1) {
            br[k] = cr[k]
            bi[k] = -ci[k]
            br[m - k] = cr[k]
            bi[m - k] = -ci[k]
        }
        br.withUnsafeMutableBufferPointer { r in
            bi.withUnsafeMutableBufferPointer { i in
                innerPlan.transform(re: r, im: i)
            }
        }
        let s = 1 / Double(m)
        for k in 0..<m {
            br[k] *= s
            bi[k] *= s
        }
        kernelRe = br
        kernelIm = bi
    }

    func transform(re: UnsafeMutableBufferPointer<Double>, im: UnsafeMutableBufferPointer<Double>,
                   scratchRe ar: UnsafeMutableBufferPointer<Double>, scratchIm ai: UnsafeMutableBufferPointer<Double>) {
        let n = count, m = inner.count
        chirpRe.withUnsafeBufferPointer { cr in
            chirpIm.withUnsafeBufferPointer { ci in
                // a[k] = x[k] w[k], zero-padded to m.
                for k in 0..<n {
                    ar[k] = re[k] * cr[k] - im[k] * ci[k]
                    ai[k] = re[k] * ci[k] + im[k] * cr[k]
                }
                for k in n..<m {
                    ar[k] = 0
                    ai[k] = 0
                }
                inner.transform(re: ar, im: ai)
                // Multiply by the kernel's transform, then inverse via conj(FFT(conj(.))).
                kernelRe.withUnsafeBufferPointer { kr in
                    kernelIm.withUnsafeBufferPointer { ki in
                        for k in 0..<m {
                            let r = ar[k] * kr[k] - ai[k] * ki[k]
                            let i = ar[k] * ki[k] + ai[k] * kr[k]
                            ar[k] = r
                            ai[k] = -i
                        }
                    }
                }
                inner.transform(re: ar, im: ai)
                // X[k] = w[k] conj(c[k]) where c is the (unconjugated) inverse result.
                for k in 0..<n {
                    let r = ar[k], i = -ai[k]
                    re[k] = r * cr[k] - i * ci[k]
                    im[k] = r * ci[k] + i * cr[k]
                }
            }
        }
    }
}
