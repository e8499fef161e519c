/// A local maximum of a sampled signal.
public struct Peak: Sendable, Hashable {
    /// Index of the sample at the maximum (the middle of a flat plateau, rounded down).
    public var index: Int
    /// Sub-sample position of the vertex of the parabola through the sample and its two neighbours,
    /// in samples (`index + offset`, offset in [-0.5, 0.5]).
    public var position: Double
    /// The parabola's vertex value (>= the sample value).
    public var value: Double
    /// Topographic prominence, scipy's definition: the height of the peak above the higher of the two
    /// minima found on each side before reaching a higher sample (or the signal's end).
    public var prominence: Double

    public init(index: Int, position: Double, value: Double, prominence: Double) {
        self.index = index
        self.position = position
        self.value = value
        self.prominence = prominence
    }
}

/// Peak finding in the manner of scipy.signal.find_peaks, with sub-sample refinement.
public enum Peaks {
    /// The local maxima of `x` that pass the given filters, in increasing index order.
    ///
    /// A local maximum is a sample (or flat plateau) higher than both neighbours; the first and last
    /// samples never are. Filters are applied in scipy's order: `minHeight` on the sample value, then
    /// `minDistance` (the highest peaks are kept first; any peak closer than `minDistance` samples to a
    /// kept one is dropped), then `minProminence`.
    /// - Parameters:
    ///   - x: the signal.
    ///   - minDistance: minimum index distance between peaks (>= 1; 1 disables the filter).
    ///   - minProminence: minimum prominence, in signal units, or nil.
    ///   - minHeight: minimum sample value, in signal units, or nil.
    /// - Complexity: O(n) to find maxima, O(p log p) for the distance filter, and for prominence
    ///   O(p × w) where w is the typical distance to a higher sample (O(n p) worst case).
    public static func find(_ x: [Double], minDistance: Int = 1, minProminence: Double? = nil,
                            minHeight: Double? = nil) -> [Peak] {
        let n = x.count
        guard n >= 3 else { return [] }
        var candidates: [Int] = []
        x.withUnsafeBufferPointer { xs in
            var i = 1
            let last = n - 1
            while i < last {
                if xs[i - 1] < xs[i] {
                    // Walk over a plateau.
                    var ahead = i + 1
                    while ahead < last && xs[ahead] == xs[i] { ahead += 1 }
                    if xs[ahead] < xs[i] {
                        candidates.append((i + ahead - 1) / 2)
                        i = ahead
                    }
                }
                i += 1
            }
        }
        if let h = minHeight {
            candidates.removeAll { x[$0] < h }
        }
        if minDistance > 1 && candidates.count > 1 {
            var keep = [Bool](repeating: true, count: candidates.count)
            // Highest first; ties keep the later position first, like scipy's stable argsort reversed.
            let order = candidates.indices.sorted { a, b in
                x[candidates[a]] != x[candidates[b]] ? x[candidates[a]] > x[candidates[b]] : a > b
            }
            for j in order where keep[j] {
                var k = j - 1
                while k >= 0 && candidates[j] - candidates[k] < minDistance {
                    keep[k] = false
                    k -= 1
                }
                k = j + 1
                while k < candidates.count && candidates[k] - candidates[j] < minDistance {
                    keep[k] = false
                    k += 1
                }
            }
            candidates = candidates.indices.filter { keep[$0] }.map { candidates[$0] }
        }
        var peaks: [Peak] = []
        peaks.reserveCapacity(candidates.count)
        x.withUnsafeBufferPointer { xs in
            for i in candidates {
                let p = prominence(xs, i)
                if let mp = minProminence, p < mp { continue }
                let (offset, value) = parabolicVertex(xs[i - 1], xs[i], xs[i + 1])
                peaks.append(Peak(index: i, position: Double(i) + offset, value: value, prominence: p))
            }
        }
        return peaks
    }

    /// The vertex of the parabola through `(-1, y0)`, `(0, y1)`, `(1, y2)`.
    /// - Returns: the vertex's abscissa relative to the middle sample (in samples; within [-0.5, 0.5]
    ///   when `y1` is a maximum) and its value. A straight line gives offset 0 and `y1`.
    @inlinable
    public static func parabolicVertex(_ y0: Double, _ y1: Double, _ y2: Double) -> (offset: Double, value: Double) {
        let curvature = y0 - 2 * y1 + y2
        guard curvature != 0, curvature.isFinite else { return (0, y1) }
        let offset = 0.5 * (y0 - y2) / curvature
        return (offset, y1 - 0.25 * (y0 - y2) * offset)
    }

    /// Prominence of the sample at `i` (scipy's `peak_prominences` with no window).
    static func prominence(_ xs: UnsafeBufferPointer<Double>, _ i: Int) -> Double {
        let h = xs[i]
        var leftMin = h
        var j = i - 1
        while j >= 0 && xs[j] <= h {
            if xs[j] < leftMin { leftMin = xs[j] }
            j -= 1
        }
        var rightMin = h
        j = i + 1
        while j < xs.count && xs[j] <= h {
            if xs[j] < rightMin { rightMin = xs[j] }
            j += 1
        }
        return h - max(leftMin, rightMin)
    }
}
