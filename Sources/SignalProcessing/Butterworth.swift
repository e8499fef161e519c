#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Butterworth filters designed at run time for any sample rate and order.
///
/// The design follows the textbook route (and scipy's `butter`): the analog prototype's poles
/// `-exp(iπm/2N)`, m = -N+1, -N+3, …, N-1, are moved to the prewarped cutoff(s) (`2 fs tan(π f / fs)`),
/// transformed to low-, high- or band-pass, mapped to the z-plane by the bilinear transform
/// `z = (2fs + s) / (2fs - s)` and grouped into second-order sections (conjugate pole pairs, poles
/// nearest the unit circle last). Each section is scaled to unit gain at the pass-band reference
/// frequency (DC, Nyquist, or the band centre `2 atan(sqrt(Wl Wh) / 2fs)`), where a Butterworth filter's
/// gain is exactly 1, so the cascade's response equals scipy's `butter(..., output='sos')`.
///
/// - Complexity: design is O(order); it allocates only the section array.
public enum Butterworth {
    /// A low-pass filter.
    /// - Parameters:
    ///   - order: number of poles, 1...``maximumOrder``.
    ///   - cutoff: -3 dB frequency in Hz, 0 < cutoff < sampleRate / 2.
    ///   - sampleRate: samples per second (Hz), a positive finite number.
    public static func lowPass(order: Int, cutoff: Double, sampleRate: Double) -> BiquadCascade {
        checkPreconditions(order: order, sampleRate: sampleRate)
        precondition(cutoff > 0 && cutoff < sampleRate / 2, "cutoff must be in (0, sampleRate/2)")
        let fs2 = 2 * sampleRate
        let wc = fs2 * tan(Double.pi * cutoff / sampleRate)
        let poles = prototypePoles(order).map { bilinear($0 * wc, fs2) }
        return cascade(poles: poles, zeros: .lowPass, referenceW: 0)
    }

    /// A high-pass filter.
    /// - Parameters:
    ///   - order: number of poles, 1...``maximumOrder``.
    ///   - cutoff: -3 dB frequency in Hz, 0 < cutoff < sampleRate / 2.
    ///   - sampleRate: samples per second (Hz), a positive finite number.
    public static func highPass(order: Int, cutoff: Double, sampleRate: Double) -> BiquadCascade {
        checkPreconditions(order: order, sampleRate: sampleRate)
        precondition(cutoff > 0 && cutoff < sampleRate / 2, "cutoff must be in (0, sampleRate/2)")
        let fs2 = 2 * sampleRate
        let wc = fs2 * tan(Double.pi * cutoff / sampleRate)
        let poles = prototypePoles(order).map { bilinear(Cx(wc, 0) / $0, fs2) }
        return cascade(poles: poles, zeros: .highPass, referenceW: Double.pi)
    }

    /// A band-pass filter of `2 × order` poles (scipy's convention: `butter(order, [low, high], 'bandpass')`).
    /// - Parameters:
    ///   - order: order of the low-pass prototype, 1...``maximumOrder``; the result has `order` sections.
    ///   - low: lower -3 dB frequency in Hz, > 0.
    ///   - high: upper -3 dB frequency in Hz, low < high < sampleRate / 2.
    ///   - sampleRate: samples per second (Hz), a positive finite number.
    public static func bandPass(order: Int, low: Double, high: Double, sampleRate: Double) -> BiquadCascade {
        checkPreconditions(order: order, sampleRate: sampleRate)
        precondition(low > 0 && low < high && high < sampleRate / 2,
                     "band edges must satisfy 0 < low < high < sampleRate/2")
        let fs2 = 2 * sampleRate
        let wl = fs2 * tan(Double.pi * low / sampleRate)
        let wh = fs2 * tan(Double.pi * high / sampleRate)
        let bw = wh - wl
        let w0 = (wl * wh).squareRoot()
        var poles: [Cx] = []
        poles.reserveCapacity(2 * order)
        for p in prototypePoles(order) {
            let plp = p * (bw / 2)
            let r = (plp * plp - Cx(w0 * w0, 0)).squareRoot()
            poles.append(bilinear(plp + r, fs2))
            poles.append(bilinear(plp - r, fs2))
        }
        let reference = 2 * atan(w0 / fs2)
        return cascade(poles: poles, zeros: .bandPass, referenceW: reference)
    }

    /// Highest order designed: 1000 (500 sections). Orders past a few dozen are numerically
    /// useless; the bound keeps a mistaken order from allocating without end (Int.max trapped
    /// doubling it).
    public static let maximumOrder = 1000

    /// The order and sample rate every design needs: 1...``maximumOrder`` poles, a positive finite
    /// rate (an infinite one passed the cutoff check and gave NaN coefficients without a word).
    private static func checkPreconditions(order: Int, sampleRate: Double) {
        precondition(order >= 1 && order <= maximumOrder, "Butterworth order must be 1...\(maximumOrder) (got \(order))")
        precondition(sampleRate > 0 && sampleRate.isFinite, "Butterworth sample rate must be a positive finite number of Hz (got \(sampleRate))")
    }

    // MARK: - Design internals

    private enum ZeroPattern { case lowPass, highPass, bandPass }

    /// Poles of the analog Butterworth prototype with unit cutoff (left half-plane).
    private static func prototypePoles(_ n: Int) -> [Cx] {
        stride(from: -n + 1, through: n - 1, by: 2).map { m in
            let theta = Double.pi * Double(m) / Double(2 * n)
            return Cx(-cos(theta), -sin(theta))
        }
    }

    /// Bilinear transform of an s-plane point: `z = (fs2 + s) / (fs2 - s)` with `fs2 = 2 × sampleRate`.
    private static func bilinear(_ s: Cx, _ fs2: Double) -> Cx {
        (Cx(fs2, 0) + s) / (Cx(fs2, 0) - s)
    }

    private static func cascade(poles: [Cx], zeros: ZeroPattern, referenceW: Double) -> BiquadCascade {
        // Relative tolerance for calling a pole real.
        let realTolerance = 1e-10
        var complexPoles: [Cx] = []
        var realPoles: [Double] = []
        for p in poles {
            if abs(p.im) <= realTolerance * max(1, p.magnitude) {
                realPoles.append(p.re)
            } else if p.im > 0 {
                complexPoles.append(p)
            }
        }
        // Real poles: pair the largest-magnitude ones together, as scipy does.
        realPoles.sort { abs($0) < abs($1) }
        struct Pending { var a1: Double; var a2: Double; var radius: Double; var firstOrder: Bool }
        var pending: [Pending] = complexPoles.map {
            Pending(a1: -2 * $0.re, a2: $0.re * $0.re + $0.im * $0.im, radius: $0.magnitude, firstOrder: false)
        }
        var i = realPoles.count - 1
        while i >= 1 {
            let p = realPoles[i], q = realPoles[i - 1]
            pending.append(Pending(a1: -(p + q), a2: p * q, radius: max(abs(p), abs(q)), firstOrder: false))
            i -= 2
        }
        if i == 0 {
            pending.append(Pending(a1: -realPoles[0], a2: 0, radius: abs(realPoles[0]), firstOrder: true))
        }
        // Poles nearest the unit circle last (best numerical behaviour); first-order section first.
        pending.sort { ($0.firstOrder ? 0 : 1, $0.radius) < ($1.firstOrder ? 0 : 1, $1.radius) }
        var sections: [Biquad] = []
        sections.reserveCapacity(pending.count)
        for p in pending {
            var b: (Double, Double, Double)
            switch (zeros, p.firstOrder) {
            case (.lowPass, false): b = (1, 2, 1)
            case (.lowPass, true): b = (1, 1, 0)
            case (.highPass, false): b = (1, -2, 1)
            case (.highPass, true): b = (1, -1, 0)
            case (.bandPass, _): b = (1, 0, -1)
            }
            var section = Biquad(b0: b.0, b1: b.1, b2: b.2, a1: p.a1, a2: p.a2)
            let (re, im) = section.response(atAngularFrequency: referenceW)
            let g = 1 / (re * re + im * im).squareRoot()
            section.b0 *= g
            section.b1 *= g
            section.b2 *= g
            sections.append(section)
        }
        return BiquadCascade(sections: sections)
    }
}

/// Minimal complex number for filter design (not for hot loops).
struct Cx {
    var re: Double
    var im: Double
    init(_ re: Double, _ im: Double) {
        self.re = re
        self.im = im
    }
    var magnitude: Double { (re * re + im * im).squareRoot() }
    static func + (a: Cx, b: Cx) -> Cx { Cx(a.re + b.re, a.im + b.im) }
    static func - (a: Cx, b: Cx) -> Cx { Cx(a.re - b.re, a.im - b.im) }
    static func * (a: Cx, b: Cx) -> Cx { Cx(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re) }
    static func * (a: Cx, k: Double) -> Cx { Cx(a.re * k, a.im * k) }
    static func / (a: Cx, b: Cx) -> Cx {
        let d = b.re * b.re + b.im * b.im
        return Cx((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d)
    }
    /// Principal square root.
    func squareRoot() -> Cx {
        let m = magnitude
        let r = ((m + re) / 2).squareRoot()
        let i = ((m - re) / 2).squareRoot()
        return Cx(r, im < 0 ? -i : i)
    }
}
