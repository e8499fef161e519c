/// Robust summary statistics over samples. NaN inputs are the caller's to remove.
public enum Statistics {
    /// The arithmetic mean; NaN for an empty collection.
    @inlinable
    public static func mean<C: Collection>(_ x: C) -> Double where C.Element == Double {
        guard !x.isEmpty else { return .nan }
        var s = 0.0
        for v in x { s += v }
        return s / Double(x.count)
    }

    /// The sample standard deviation (n - 1 in the denominator); NaN for fewer than two values.
    @inlinable
    public static func standardDeviation<C: Collection>(_ x: C) -> Double where C.Element == Double {
        guard x.count > 1 else { return .nan }
        let m = mean(x)
        var s = 0.0
        for v in x { s += (v - m) * (v - m) }
        return (s / Double(x.count - 1)).squareRoot()
    }

    /// The skewness (third standardised moment, population form: m3 / m2^1.5, as scipy's default);
    /// 0 for fewer than three values or no spread.
    @inlinable
    public static func skewness<C: Collection>(_ x: C) -> Double where C.Element == Double {
        let n = Double(x.count)
        guard n > 2 else { return 0 }
        let m = mean(x)
        var m2 = 0.0, m3 = 0.0
        for v in x {
            let d = v - m
            m2 += d * d
            m3 += d * d * d
        }
        m2 /= n
        m3 /= n
        return m2 > 0 ? m3 / (m2 * m2.squareRoot()) : 0
    }

    /// The `p`-th percentile (0...100; outside it, clamped) with linear interpolation between order
    /// statistics (the definition numpy uses by default); NaN for an empty collection or a NaN `p`.
    /// - Complexity: O(n log n).
    @inlinable
    public static func percentile<C: Collection>(_ x: C, _ p: Double) -> Double where C.Element == Double {
        guard !x.isEmpty else { return .nan }
        return percentile(sorted: x.sorted(), p)
    }

    /// The `p`-th percentile of values already sorted ascending (NaN for none or a NaN `p`): an array,
    /// or scratch storage sorted in place (an `UnsafeBufferPointer`).
    @inlinable
    public static func percentile<C: RandomAccessCollection>(sorted s: C, _ p: Double) -> Double
    where C.Element == Double, C.Index == Int {
        guard !s.isEmpty, !p.isNaN else { return .nan }
        let rank = min(max(p, 0), 100) / 100 * Double(s.count - 1)
        let lo = Int(rank.rounded(.down))
        let hi = min(lo + 1, s.count - 1)
        let low = s[s.startIndex + lo], high = s[s.startIndex + hi]
        return low + (high - low) * (rank - Double(lo))
    }

    /// The median (50th percentile).
    @inlinable
    public static func median<C: Collection>(_ x: C) -> Double where C.Element == Double {
        percentile(x, 50)
    }

    /// The median absolute deviation from the median (unscaled); NaN for an empty collection.
    /// - Complexity: O(n) on average: two selections (``selectPercentile(_:_:)``, the same values as
    ///   sorting) on one scratch copy.
    @inlinable
    public static func medianAbsoluteDeviation<C: Collection>(_ x: C) -> Double where C.Element == Double {
        var scratch = Array(x)
        return scratch.withUnsafeMutableBufferPointer { s in
            let m = selectPercentile(s, 50)
            for (i, v) in x.enumerated() { s[i] = abs(v - m) }
            return selectPercentile(s, 50)
        }
    }
}

extension Statistics {
    /// The median of `buffer`, reordering it in place (Hoare's selection, expected O(n), no
    /// allocation). Use on scratch storage in hot loops; NaN for an empty buffer. For an even count
    /// it is `(a + b) / 2` of the two middle values, which can differ from ``median(_:)`` (the
    /// interpolated percentile, `a + (b − a) / 2`) in the last bit.
    @inlinable
    public static func selectMedian(_ buffer: UnsafeMutableBufferPointer<Double>) -> Double {
        let n = buffer.count
        guard n > 0 else { return .nan }
        let upper = select(buffer, n / 2)
        if n % 2 == 1 { return upper }
        // The lower middle is the largest value left of the upper one after selection.
        var lower = buffer[0]
        for i in 1..<(n / 2) where buffer[i] > lower { lower = buffer[i] }
        return (lower + upper) / 2
    }

    /// The `p`-th percentile of the values in `buffer`, equal to ``percentile(_:_:)`` of them (the
    /// same two order statistics, interpolated by the same formula), found by selection instead of a
    /// sort. Reorders `buffer`. For finite values (selection assumes a total order); NaN for an
    /// empty buffer or a NaN `p`.
    /// - Complexity: O(n) on average; allocates nothing.
    @inlinable
    public static func selectPercentile(_ buffer: UnsafeMutableBufferPointer<Double>, _ p: Double) -> Double {
        let n = buffer.count
        guard n > 0, !p.isNaN else { return .nan }
        let rank = min(max(p, 0), 100) / 100 * Double(n - 1)
        let lo = Int(rank.rounded(.down))
        let hi = min(lo + 1, n - 1)
        let a = select(buffer, lo)
        // After selection no value right of `lo` is smaller than `a`: the next order statistic is
        // their minimum.
        var b = a
        if hi > lo {
            b = buffer[hi]
            for i in hi..<n where buffer[i] < b { b = buffer[i] }
        }
        return a + (b - a) * (rank - Double(lo))
    }

    /// Reorders `a` so that `a[k]` is the k-th smallest value, smaller ones before it, larger after.
    @inlinable
    static func select(_ a: UnsafeMutableBufferPointer<Double>, _ k: Int) -> Double {
        var lo = 0
        var hi = a.count - 1
        while hi > lo {
            // Median-of-three pivot keeps sorted and reversed inputs linear.
            let mid = lo + (hi - lo) / 2
            if a[mid] < a[lo] { a.swapAt(mid, lo) }
            if a[hi] < a[lo] { a.swapAt(hi, lo) }
            if a[hi] < a[mid] { a.swapAt(hi, mid) }
            let pivot = a[mid]
            var i = lo, j = hi
            while i <= j {
                while a[i] < pivot { i += 1 }
                while a[j] > pivot { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { return a[k] }
        }
        return a[k]
    }
}
