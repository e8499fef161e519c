/// A natural cubic interpolating spline through points `(x[i], y[i])` with increasing `x`
/// (second derivative zero at both ends).
///
/// Used to resample irregular series (heart-beat intervals) onto a uniform grid. Queries outside
/// `[x.first, x.last]` take the end values (clamped).
///
/// - Complexity: construction O(n) (one tridiagonal solve); each evaluation O(log n), or O(1)
///   amortised for increasing queries with ``evaluate(at:)`` on an array.
public struct CubicSpline: Sendable {
    /// Knot abscissae (increasing).
    public let x: [Double]
    /// Knot values.
    public let y: [Double]
    /// Second derivatives at the knots.
    private let m: [Double]

    /// A spline through the points. `x` must be strictly increasing and the same length as `y`.
    /// With one point the spline is constant; with two it is the straight line.
    public init(x: [Double], y: [Double]) {
        precondition(x.count == y.count, "x and y must have the same count")
        precondition(!x.isEmpty, "a spline needs at least one point")
        for i in x.indices.dropFirst() {
            precondition(x[i] > x[i - 1], "spline abscissae must increase strictly")
        }
        self.x = x
        self.y = y
        let n = x.count
        var m = [Double](repeating: 0, count: n)
        if n > 2 {
            // Tridiagonal system for the interior second derivatives (Thomas algorithm).
            var c = [Double](repeating: 0, count: n)
            var d = [Double](repeating: 0, count: n)
            for i in 1..<(n - 1) {
                let h0 = x[i] - x[i - 1], h1 = x[i + 1] - x[i]
                let a = h0, b = 2 * (h0 + h1), cc = h1
                let rhs = 6 * ((y[i + 1] - y[i]) / h1 - (y[i] - y[i - 1]) / h0)
                let denom = b - a * c[i - 1]
                c[i] = cc / denom
                d[i] = (rhs - a * d[i - 1]) / denom
            }
            for i in stride(from: n - 2, through: 1, by: -1) {
                m[i] = d[i] - c[i] * m[i + 1]
            }
        }
        self.m = m
    }

    /// The spline's value at `t` (end values outside the knot span).
    public func value(at t: Double) -> Double {
        let n = x.count
        if n == 1 || t <= x[0] { return y[0] }
        if t >= x[n - 1] { return y[n - 1] }
        // Binary search for the interval [x[lo], x[lo + 1]] containing t.
        var lo = 0, hi = n - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if x[mid] <= t { lo = mid } else { hi = mid }
        }
        return segment(lo, t)
    }

    /// The spline at increasing query points (one forward scan).
    /// - Complexity: O(n + queries).
    public func evaluate(at queries: [Double]) -> [Double] {
        let n = x.count
        var out = [Double](repeating: 0, count: queries.count)
        var j = 0
        for (q, t) in queries.enumerated() {
            if n == 1 || t <= x[0] { out[q] = y[0]; continue }
            if t >= x[n - 1] { out[q] = y[n - 1]; continue }
            if t < x[j] { j = 0 }
            while x[j + 1] < t { j += 1 }
            out[q] = segment(j, t)
        }
        return out
    }

    @inline(__always)
    private func segment(_ i: Int, _ t: Double) -> Double {
        let h = x[i + 1] - x[i]
        let a = (x[i + 1] - t) / h, b = (t - x[i]) / h
        return a * y[i] + b * y[i + 1] + ((a * a * a - a) * m[i] + (b * b * b - b) * m[i + 1]) * h * h / 6
    }
}
