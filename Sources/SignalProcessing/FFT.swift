#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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

    /// Longest transform planned: 2^30 points (8 GB per array of them, and Bluestein's padded
    /// length, twice as long, still fits an Int); a longer length (Int.max) trapped doubling it.
    public static let maximumCount = 1 << 30

    /// Creates a plan for transforms of length `count` (1...``maximumCount``).
    public init(count: Int) {
        precondition(count >= 1 && count <= Self.maximumCount, "FFT length must be 1...\(Self.maximumCount) (got \(count))")
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
///
/// Decimation in time: bit-reversal permutation, then stages of butterflies of half-size h = 1, 2,
/// 4, …, n/2. Twiddles are stored per stage, contiguously (`e^{-iπk/h}` for k in 0..<h at offset
/// h - 1; n - 1 entries in all), so every stage reads them sequentially; the first two stages need no
/// multiplications and are special-cased.
private struct Radix2: Sendable {
    let count: Int
    let twiddleRe: [Double]
    let twiddleIm: [Double]
    /// Pairs (i, j), i < j, to swap for the bit-reversal permutation.
    let swaps: [Int]

    init(count n: Int) {
        count = n
        var tr = [Double](repeating: 0, count: max(n - 1, 0))
        var ti = [Double](repeating: 0, count: max(n - 1, 0))
        var h = 1
        while h < n {
            for k in 0..<h {
                let a = Double.pi * Double(k) / Double(h)
                tr[h - 1 + k] = cos(a)
                ti[h - 1 + k] = -sin(a)
            }
            h *= 2
        }
        twiddleRe = tr
        twiddleIm = ti
        var bits = 0
        while (1 << bits) < n { bits += 1 }
        var pairs: [Int] = []
        for i in 0..<n {
            var r = 0, v = i
            for _ in 0..<bits {
                r = (r << 1) | (v & 1)
                v >>= 1
            }
            if r > i {
                pairs.append(i)
                pairs.append(r)
            }
        }
        swaps = pairs
    }

    func transform(re: UnsafeMutableBufferPointer<Double>, im: UnsafeMutableBufferPointer<Double>) {
        let n = count
        guard n > 1, let r = re.baseAddress, let i = im.baseAddress else { return }
        swaps.withUnsafeBufferPointer { sw in
            var p = 0
            while p < sw.count {
                let a = sw[p], b = sw[p + 1]
                let tr = r[a]; r[a] = r[b]; r[b] = tr
                let ti = i[a]; i[a] = i[b]; i[b] = ti
                p += 2
            }
        }
        guard n > 2 else {
            // h = 1 only: twiddle 1.
            let ar = r[0], ai = i[0], br = r[1], bi = i[1]
            r[0] = ar + br; i[0] = ai + bi
            r[1] = ar - br; i[1] = ai - bi
            return
        }
        // h = 1 (twiddle 1) and h = 2 (twiddles 1 and -i) in one pass over each group of four: the
        // same operations on the same values as two passes, without storing and reloading between.
        var k = 0
        while k < n {
            // h = 1: (x0, x1) and (x2, x3).
            let x0r = r[k], x0i = i[k], x1r = r[k + 1], x1i = i[k + 1]
            let x2r = r[k + 2], x2i = i[k + 2], x3r = r[k + 3], x3i = i[k + 3]
            let ar = x0r + x1r, ai = x0i + x1i, er = x0r - x1r, ei = x0i - x1i
            let br = x2r + x3r, bi = x2i + x3i, dr = x2r - x3r, di = x2i - x3i
            // h = 2: (a, b) with twiddle 1, (e, d) with -i: (dr + i di)(-i) = di - i dr.
            r[k] = ar + br; i[k] = ai + bi
            r[k + 2] = ar - br; i[k + 2] = ai - bi
            let cr = di, ci = -dr
            r[k + 1] = er + cr; i[k + 1] = ei + ci
            r[k + 3] = er - cr; i[k + 3] = ei - ci
            k += 4
        }
        twiddleRe.withUnsafeBufferPointer { twr in
            twiddleIm.withUnsafeBufferPointer { twi in
                guard let wr0 = twr.baseAddress, let wi0 = twi.baseAddress else { return }
                var h = 4
                while h < n {
                    let wr = wr0 + (h - 1), wi = wi0 + (h - 1)
                    var start = 0
                    while start < n {
                        let pr = r + start, pi = i + start
                        let qr = pr + h, qi = pi + h
                        // Two butterflies at a time (h >= 4 is even): the same operations on each
                        // lane of a SIMD2, so the results are those of the scalar loop, bit for bit.
                        var j = 0
                        while j < h {
                            let qrj = load2(qr + j), qij = load2(qi + j)
                            let wrj = load2(wr + j), wij = load2(wi + j)
                            let xr = qrj * wrj - qij * wij
                            let xi = qrj * wij + qij * wrj
                            let ur = load2(pr + j), ui = load2(pi + j)
                            store2(ur - xr, qr + j)
                            store2(ui - xi, qi + j)
                            store2(ur + xr, pr + j)
                            store2(ui + xi, pi + j)
                            j += 2
                        }
                        start += 2 * h
                    }
                    h *= 2
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

@inline(__always)
private func load2(_ p: UnsafePointer<Double>) -> SIMD2<Double> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD2<Double>.self)
}

@inline(__always)
private func store2(_ v: SIMD2<Double>, _ p: UnsafeMutablePointer<Double>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD2<Double>.self)
}
