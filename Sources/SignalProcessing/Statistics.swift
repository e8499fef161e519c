/// Robust summary statistics over samples. NaN inputs are the caller's to remove.
public enum Statistics {
    /// The arithmetic mean; NaN for an empty collection.
    public static func mean<C: Collection>(_ x: C) -> Double where C.Element == Double {
        guard !x.isEmpty else { return .nan }
        var s = 0.0
        for v in x { s += v }
        return s / Double(x.count)
    }

    /// The sample standard deviation (n - 1 in the denominator); NaN for fewer than two values.
    public static func standardDeviation<C: Collection>(_ x: C) -> Double where C.Element == Double {
        guard x.count > 1 else { return .nan }
        let m = mean(x)
        var s = 0.0
        for v in x { s += (v - m) * (v - m) }
        return (s / Double(x.count - 1)).squareRoot()
    }

    /// The `p`-th percentile (0...100) with linear interpolation between order statistics
    /// (the definition numpy uses by default); NaN for an empty collection.
    /// - Complexity: O(n log n).
    public static func percentile<C: Collection>(_ x: C, _ p: Double) -> Double where C.Element == Double {
        guard !x.isEmpty else { return .nan }
        return percentile(sorted: x.sorted(), p)
    }

    /// The `p`-th percentile of values already sorted ascending.
    public static func percentile(sorted s: [Double], _ p: Double) -> Double {
        guard !s.isEmpty else { return .nan }
        let rank = min(max(p, 0), 100) / 100 * Double(s.count - 1)
        let lo = Int(rank.rounded(.down))
        let hi = min(lo + 1, s.count - 1)
        return s[lo] + (s[hi] - s[lo]) * (rank - Double(lo))
    }

    /// The median (50th percentile).
    public static func median<C: Collection>(_ x: C) -> Double where C.Element == Double {
        percentile(x, 50)
    }

    /// The median absolute deviation from the median (unscaled).
    public static func medianAbsoluteDeviation<C: Collection>(_ x: C) -> Double where C.Element == Double {
        let m = median(x)
        return median(x.map { abs($0 - m) })
    }
}
