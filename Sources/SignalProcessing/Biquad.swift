import Foundation

/// One second-order section (biquad) in direct form I:
///
///     y[n] = b0 x[n] + b1 x[n-1] + b2 x[n-2] - a2 y[n-2] - a1 y[n-1]
///
/// evaluated in that order, so the recursive dependency on `y[n-1]` is one multiply and one subtract
/// (the shortest latency chain; see ``BiquadCascade`` for speed). The denominator is normalised
/// (`a0 == 1`). A first-order section has `b2 == 0` and `a2 == 0`. Direct form I keeps the last two
/// inputs and outputs as state, which makes the steady state for a constant input trivial.
public struct Biquad: Sendable, Hashable {
    public var b0: Double
    public var b1: Double
    public var b2: Double
    public var a1: Double
    public var a2: Double
    /// State: the previous two inputs and outputs.
    public var x1: Double = 0
    public var x2: Double = 0
    public var y1: Double = 0
    public var y2: Double = 0

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
        let y = b0 * x + b1 * x1 + b2 * x2 - a2 * y2 - a1 * y1
        x2 = x1
        x1 = x
        y2 = y1
        y1 = y
        return y
    }

    /// Clears the state.
    public mutating func reset() {
        x1 = 0
        x2 = 0
        y1 = 0
        y2 = 0
    }

    /// Sets the state to the steady state reached after a long constant input `x`, so filtering a
    /// constant from the start has no transient (the role of scipy's `lfilter_zi` scaled by `x`).
    public mutating func setSteadyState(input x: Double) {
        let y = dcGain * x
        x1 = x
        x2 = x
        y1 = y
        y2 = y
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
    /// the two recursions overlap in the processor (a biquad's feedback is latency-bound).
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

/// Two sections over `n` samples starting at `p` with stride `step` (±1), in place.
@usableFromInline
func runPair(_ a: inout Biquad, _ b: inout Biquad, _ p: UnsafeMutablePointer<Double>, _ n: Int, _ step: Int) {
    let ab0 = a.b0, ab1 = a.b1, ab2 = a.b2, aa1 = a.a1, aa2 = a.a2
    let bb0 = b.b0, bb1 = b.b1, bb2 = b.b2, ba1 = b.a1, ba2 = b.a2
    var ax1 = a.x1, ax2 = a.x2, ay1 = a.y1, ay2 = a.y2
    var bx1 = b.x1, bx2 = b.x2, by1 = b.y1, by2 = b.y2
    var q = p
    for _ in 0..<n {
        let x = q.pointee
        let u = ab0 * x + ab1 * ax1 + ab2 * ax2 - aa2 * ay2 - aa1 * ay1
        ax2 = ax1
        ax1 = x
        ay2 = ay1
        ay1 = u
        let y = bb0 * u + bb1 * bx1 + bb2 * bx2 - ba2 * by2 - ba1 * by1
        bx2 = bx1
        bx1 = u
        by2 = by1
        by1 = y
        q.pointee = y
        q += step
    }
    a.x1 = ax1; a.x2 = ax2; a.y1 = ay1; a.y2 = ay2
    b.x1 = bx1; b.x2 = bx2; b.y1 = by1; b.y2 = by2
}

/// One section over `n` samples starting at `p` with stride `step` (±1), in place.
@usableFromInline
func runSingle(_ a: inout Biquad, _ p: UnsafeMutablePointer<Double>, _ n: Int, _ step: Int) {
    let b0 = a.b0, b1 = a.b1, b2 = a.b2, a1 = a.a1, a2 = a.a2
    var x1 = a.x1, x2 = a.x2, y1 = a.y1, y2 = a.y2
    var q = p
    for _ in 0..<n {
        let x = q.pointee
        let y = b0 * x + b1 * x1 + b2 * x2 - a2 * y2 - a1 * y1
        x2 = x1
        x1 = x
        y2 = y1
        y1 = y
        q.pointee = y
        q += step
    }
    a.x1 = x1; a.x2 = x2; a.y1 = y1; a.y2 = y2
}
