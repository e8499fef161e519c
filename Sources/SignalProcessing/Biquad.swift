import Foundation

/// One second-order section (biquad) in transposed direct form II, the form scipy's `sosfilt` uses:
///
///     y[n]  = b0 x[n] + s1
///     s1'   = b1 x[n] - a1 y[n] + s2
///     s2'   = b2 x[n] - a2 y[n]
///
/// The denominator is normalised (`a0 == 1`). A first-order section has `b2 == 0` and `a2 == 0`.
public struct Biquad: Sendable, Hashable {
    public var b0: Double
    public var b1: Double
    public var b2: Double
    public var a1: Double
    public var a2: Double
    /// Filter state (the two delay elements of the transposed direct form II).
    public var s1: Double = 0
    public var s2: Double = 0

    /// A section from normalised coefficients (`a0 == 1`), state zero.
    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0
        self.b1 = b1
        self.b2 = b2
        self.a1 = a1
        self.a2 = a2
    }

    /// True when the section is first order (`b2 == 0` and `a2 == 0`).
    public var isFirstOrder: Bool { b2 == 0 && a2 == 0 }

    /// The gain for a constant input, `(b0 + b1 + b2) / (1 + a1 + a2)`.
    public var dcGain: Double { (b0 + b1 + b2) / (1 + a1 + a2) }

    /// Filters one sample (causal).
    @inlinable @inline(__always)
    public mutating func process(_ x: Double) -> Double {
        let y = b0 * x + s1
        s1 = b1 * x - a1 * y + s2
        s2 = b2 * x - a2 * y
        return y
    }

    /// Sets the state to the steady state reached after a long constant input `x`
    /// (scipy's `lfilter_zi` scaled by `x`), so filtering a constant from the start has no transient.
    public mutating func setSteadyState(input x: Double) {
        let y = dcGain * x
        s2 = b2 * x - a2 * y
        s1 = y - b0 * x
    }

    /// The complex response `H(e^{jw})` at the normalised angular frequency `w` (radians per sample).
    public func response(atAngularFrequency w: Double) -> (re: Double, im: Double) {
        // z^-1 = e^{-jw}, z^-2 = e^{-2jw}
        let c1 = cos(w), s1v = -sin(w)
        let c2 = cos(2 * w), s2v = -sin(2 * w)
        let nr = b0 + b1 * c1 + b2 * c2, ni = b1 * s1v + b2 * s2v
        let dr = 1 + a1 * c1 + a2 * c2, di = a1 * s1v + a2 * s2v
        let d = dr * dr + di * di
        return ((nr * dr + ni * di) / d, (ni * dr - nr * di) / d)
    }
}

/// A cascade of second-order sections: an IIR filter as a `Sendable` value type.
///
/// `process(_:)` is the causal streaming filter; `filtered(_:)` runs the same code over an array from
/// zero state; `filtfilt(_:)` is the zero-phase forward-backward filter for batch work, padded at the ends
/// exactly like scipy's `sosfiltfilt` defaults (see there). Designs come from ``Butterworth``.
public struct BiquadCascade: Sendable, Hashable {
    /// The sections, applied in order.
    public var sections: [Biquad]

    /// A cascade of the given sections (state as given).
    public init(sections: [Biquad]) {
        self.sections = sections
    }

    /// The filter order (number of poles).
    public var order: Int { sections.reduce(0) { $0 + ($1.isFirstOrder ? 1 : 2) } }

    /// Clears the state of every section.
    public mutating func reset() {
        for i in sections.indices {
            sections[i].s1 = 0
            sections[i].s2 = 0
        }
    }

    /// Sets every section to the steady state for a constant input `x` (no start-up transient when the
    /// signal starts near `x`). Same as scipy's `sosfilt_zi(sos) * x`.
    public mutating func setSteadyState(input x: Double) {
        var level = x
        for i in sections.indices {
            sections[i].setSteadyState(input: level)
            level *= sections[i].dcGain
        }
    }

    /// Filters one sample through every section (causal, streaming).
    /// - Complexity: O(number of sections); allocates nothing.
    @inlinable
    public mutating func process(_ x: Double) -> Double {
        var y = x
        sections.withUnsafeMutableBufferPointer { s in
            for i in 0..<s.count { y = s[i].process(y) }
        }
        return y
    }

    /// Filters a block of samples in place, continuing from the current state. The output is identical
    /// to calling `process(_:)` on each sample in turn (each section runs over the block in turn).
    /// - Complexity: O(n × sections); allocates nothing.
    public mutating func process(_ buffer: UnsafeMutableBufferPointer<Double>) {
        sections.withUnsafeMutableBufferPointer { s in
            for k in 0..<s.count {
                var sec = s[k]
                let b0 = sec.b0, b1 = sec.b1, b2 = sec.b2, a1 = sec.a1, a2 = sec.a2
                var s1 = sec.s1, s2 = sec.s2
                for i in 0..<buffer.count {
                    let x = buffer[i]
                    let y = b0 * x + s1
                    s1 = b1 * x - a1 * y + s2
                    s2 = b2 * x - a2 * y
                    buffer[i] = y
                }
                sec.s1 = s1
                sec.s2 = s2
                s[k] = sec
            }
        }
    }

    /// Filters an array in place, continuing from the current state (see `process(_:)` for a buffer).
    public mutating func process(_ samples: inout [Double]) {
        samples.withUnsafeMutableBufferPointer { process($0) }
    }

    /// The causal filter applied to `x` from zero state (this value's state is not used or changed).
    /// - Complexity: O(n × sections); allocates the output.
    public func filtered(_ x: [Double]) -> [Double] {
        var copy = self
        copy.reset()
        var y = x
        copy.process(&y)
        return y
    }

    /// The number of samples `filtfilt` pads each end with, scipy's `sosfiltfilt` default:
    /// `3 * (2 * sections + 1 - min(#sections with b2 == 0, #sections with a2 == 0))`.
    public var defaultPadLength: Int {
        let zb = sections.filter { $0.b2 == 0 }.count
        let za = sections.filter { $0.a2 == 0 }.count
        return 3 * (2 * sections.count + 1 - min(zb, za))
    }

    /// Zero-phase forward-backward filtering (the squared magnitude response, no phase shift), as scipy's
    /// `sosfiltfilt(sos, x)` with its defaults: the signal is extended at each end by odd reflection
    /// (`2 x[0] - x[k]`) of `padLength` samples (default ``defaultPadLength``; clamped to `n - 1`), the
    /// forward pass starts from the steady state for the first extended sample and the backward pass from
    /// the steady state for the last forward output (`sosfilt_zi`), and the padding is removed.
    /// This value's state is not used or changed.
    /// - Complexity: O((n + 2 pad) × sections); allocates the output and one working buffer.
    public func filtfilt(_ x: [Double], padLength: Int? = nil) -> [Double] {
        let n = x.count
        guard n > 0 else { return [] }
        let pad = max(0, min(padLength ?? defaultPadLength, n - 1))
        let m = n + 2 * pad
        var work = [Double](repeating: 0, count: m)
        x.withUnsafeBufferPointer { xs in
            work.withUnsafeMutableBufferPointer { w in
                let first = xs[0], last = xs[n - 1]
                for i in 0..<pad {
                    w[i] = 2 * first - xs[pad - i]
                    w[pad + n + i] = 2 * last - xs[n - 2 - i]
                }
                for i in 0..<n { w[pad + i] = xs[i] }
                var f = self
                f.setSteadyState(input: w[0])
                f.process(w)
                // Backward pass over the reversed buffer.
                reverse(w)
                f.setSteadyState(input: w[0])
                f.process(w)
                reverse(w)
            }
        }
        if pad == 0 { return work }
        return Array(work[pad..<(pad + n)])
    }

    /// The magnitude response |H| at `frequency` (Hz) for a filter running at `sampleRate` (Hz).
    public func magnitude(atFrequency frequency: Double, sampleRate: Double) -> Double {
        let (re, im) = response(atAngularFrequency: 2 * Double.pi * frequency / sampleRate)
        return (re * re + im * im).squareRoot()
    }

    /// The complex response `H(e^{jw})` at the normalised angular frequency `w` (radians per sample).
    public func response(atAngularFrequency w: Double) -> (re: Double, im: Double) {
        var re = 1.0, im = 0.0
        for s in sections {
            let (r, i) = s.response(atAngularFrequency: w)
            (re, im) = (re * r - im * i, re * i + im * r)
        }
        return (re, im)
    }
}

@inline(__always)
private func reverse(_ w: UnsafeMutableBufferPointer<Double>) {
    var i = 0, j = w.count - 1
    while i < j {
        let t = w[i]
        w[i] = w[j]
        w[j] = t
        i += 1
        j -= 1
    }
}
