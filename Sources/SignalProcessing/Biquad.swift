#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One second-order section (biquad) in transposed direct form II (the form scipy's `sosfilt` uses):
///
///     y[n]  = b0 x[n] + s1
///     s1'   = (b1 x[n] + s2) - a1 y[n]
///     s2'   = b2 x[n] - a2 y[n]
///
/// evaluated in that order, so the feedback path from one output to the next is one multiply, one
/// subtract and one add (measured faster than direct form I both per sample and in blocks). The
/// denominator is normalised (`a0 == 1`). A first-order section has `b2 == 0` and `a2 == 0`.
public struct Biquad: Sendable, Hashable {
    /// Numerator (feed-forward) coefficient of x[n].
    public var b0: Double
    /// Numerator coefficient of x[n-1].
    public var b1: Double
    /// Numerator coefficient of x[n-2].
    public var b2: Double
    /// Denominator (feedback) coefficient of y[n-1] (a0 is 1).
    public var a1: Double
    /// Denominator coefficient of y[n-2].
    public var a2: Double
    /// State: the first delay element.
    public var s1: Double = 0
    /// State: the second delay element.
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
        s1 = (b1 * x + s2) - a1 * y
        s2 = b2 * x - a2 * y
        return y
    }

    /// Clears the state.
    public mutating func reset() {
        s1 = 0
        s2 = 0
    }

    /// Sets the state to the steady state reached after a long constant input `x`, so filtering a
    /// constant from the start has no transient (scipy's `lfilter_zi` scaled by `x`).
    public mutating func setSteadyState(input x: Double) {
        let y = dcGain * x
        s2 = b2 * x - a2 * y
        s1 = y - b0 * x
    }

    /// The complex response `H(e^{jw})` at the normalised angular frequency `w` (radians per sample).
    public func response(atAngularFrequency w: Double) -> (re: Double, im: Double) {
        // z^-1 = e^{-jw}, z^-2 = e^{-2jw}
        let c1 = cos(w), s1 = -sin(w)
        let c2 = cos(2 * w), s2 = -sin(2 * w)
        let nr = b0 + b1 * c1 + b2 * c2, ni = b1 * s1 + b2 * s2
        let dr = 1 + a1 * c1 + a2 * c2, di = a1 * s1 + a2 * s2
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
        for i in sections.indices { sections[i].reset() }
    }

    /// Takes the coefficients of `design` (the same number of sections) and keeps the running state,
    /// so a streaming filter can be retuned between samples (small retunings give small transients).
    public mutating func retune(to design: BiquadCascade) {
        precondition(design.sections.count == sections.count, "a retuned filter keeps its number of sections")
        for i in sections.indices {
            let d = design.sections[i]
            sections[i].b0 = d.b0
            sections[i].b1 = d.b1
            sections[i].b2 = d.b2
            sections[i].a1 = d.a1
            sections[i].a2 = d.a2
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
    /// to calling `process(_:)` on each sample in turn: sections run over the block two at a time, so
    /// the two recursions overlap in the processor (a biquad's feedback is latency-bound), with the
    /// state in registers.
    /// - Complexity: O(n × sections); allocates nothing.
    public mutating func process(_ buffer: UnsafeMutableBufferPointer<Double>) {
        run(buffer, backward: false)
    }

    /// Runs every section over `buffer` (front to back, or back to front) in place.
    @usableFromInline
    mutating func run(_ buffer: UnsafeMutableBufferPointer<Double>, backward: Bool) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let n = buffer.count
        let first = backward ? base + (n - 1) : base
        let step = backward ? -1 : 1
        sections.withUnsafeMutableBufferPointer { s in
            var k = 0
            while k + 1 < s.count {
                runPair(&s[k], &s[k + 1], first, n, step)
                k += 2
            }
            if k < s.count { runSingle(&s[k], first, n, step) }
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
    /// the steady state for the last forward output (scipy's `sosfilt_zi` initial conditions), and the
    /// padding is dropped. Matches scipy to ~1e-12 (tested). This value's state is not used or changed.
    /// - Complexity: O((n + 2 pad) × sections); allocates the output only (the padding lives in a
    ///   temporary stack allocation).
    public func filtfilt(_ x: [Double], padLength: Int? = nil) -> [Double] {
        let n = x.count
        guard n > 0 else { return [] }
        let pad = max(0, min(padLength ?? defaultPadLength, n - 1))
        var y = x
        var f = self
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * pad + 1) { tmp in
            let left = UnsafeMutableBufferPointer(rebasing: tmp[0..<pad])
            let right = UnsafeMutableBufferPointer(rebasing: tmp[pad..<(2 * pad)])
            y.withUnsafeMutableBufferPointer { ys in
                let first = ys[0], last = ys[n - 1]
                for i in 0..<pad {
                    left[i] = 2 * first - ys[pad - i]
                    right[i] = 2 * last - ys[n - 2 - i]
                }
                // Forward: left padding, signal, right padding, state carried through.
                f.setSteadyState(input: pad > 0 ? left[0] : first)
                f.run(left, backward: false)
                f.run(ys, backward: false)
                f.run(right, backward: false)
                // Backward: right padding, then the signal (the left padding's output is not needed).
                f.setSteadyState(input: pad > 0 ? right[pad - 1] : ys[n - 1])
                f.run(right, backward: true)
                f.run(ys, backward: true)
            }
        }
        return y
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

/// Two sections over `n` samples starting at `p` with stride `step` (±1), in place. Same arithmetic,
/// in the same order, as `Biquad.process`, so the result is bit-identical to per-sample filtering.
@usableFromInline
func runPair(_ a: inout Biquad, _ b: inout Biquad, _ p: UnsafeMutablePointer<Double>, _ n: Int, _ step: Int) {
    var first = a, second = b
    var q = p
    for _ in 0..<n {
        q.pointee = second.process(first.process(q.pointee))
        q += step
    }
    a = first
    b = second
}

/// One section over `n` samples starting at `p` with stride `step` (±1), in place.
@usableFromInline
func runSingle(_ a: inout Biquad, _ p: UnsafeMutablePointer<Double>, _ n: Int, _ step: Int) {
    var section = a
    var q = p
    for _ in 0..<n {
        q.pointee = section.process(q.pointee)
        q += step
    }
    a = section
}
