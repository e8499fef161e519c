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

    /// A peak at sample `index`, vertex at `position` (samples) with `value`, and its `prominence`.
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
        return x.withUnsafeBufferPointer { xs in
            let maxima = localMaxima(xs)
            if maxima.isEmpty { return [] }
            let prominences = prominences(xs, maxima: maxima)
            var keep = [Bool](repeating: true, count: maxima.count)
            if let h = minHeight {
                for j in maxima.indices where xs[maxima[j]] < h { keep[j] = false }
            }
            if minDistance > 1 {
                // Highest first (ties: later position first, as scipy's argsort walked backwards);
                // each kept peak removes its lower neighbours closer than minDistance.
                var order: [(height: Double, j: Int)] = []
                order.reserveCapacity(maxima.count)
                for j in maxima.indices where keep[j] { order.append((xs[maxima[j]], j)) }
                order.sort { $0.height != $1.height ? $0.height > $1.height : $0.j > $1.j }
                for (_, j) in order where keep[j] {
                    var k = j - 1
                    while k >= 0 && maxima[j] - maxima[k] < minDistance {
                        keep[k] = false
                        k -= 1
                    }
                    k = j + 1
                    while k < maxima.count && maxima[k] - maxima[j] < minDistance {
                        keep[k] = false
                        k += 1
                    }
                }
            }
            var peaks: [Peak] = []
            for j in maxima.indices where keep[j] {
                if let mp = minProminence, prominences[j] < mp { continue }
                let i = maxima[j]
                let (offset, value) = parabolicVertex(xs[i - 1], xs[i], xs[i + 1])
                peaks.append(Peak(index: i, position: Double(i) + offset, value: value, prominence: prominences[j]))
            }
            return peaks
        }
    }

    /// Every local maximum (scipy's `_local_maxima_1d`): a sample, or the middle of a flat plateau,
    /// strictly higher than the samples on both sides; never the first or last sample.
    static func localMaxima(_ xs: UnsafeBufferPointer<Double>) -> [Int] {
        var result: [Int] = []
        let last = xs.count - 1
        var i = 1
        while i < last {
            if xs[i - 1] < xs[i] {
                var ahead = i + 1
                while ahead < last && xs[ahead] == xs[i] { ahead += 1 }
                if xs[ahead] < xs[i] {
                    result.append((i + ahead - 1) / 2)
                    i = ahead
                }
            }
            i += 1
        }
        return result
    }

    /// Prominences of all local maxima in O(n + p). Between two consecutive local maxima the signal
    /// falls then rises, so scipy's walk from a peak to the first higher sample passes exactly the
    /// valleys (segment minima) between the peak and the nearest higher maximum; a monotonic stack
    /// over the maxima finds that maximum and the smallest valley on the way, on each side. The
    /// first and last samples act as boundary "maxima" so that walks reaching an end include it.
    static func prominences(_ xs: UnsafeBufferPointer<Double>, maxima: [Int]) -> [Double] {
        let p = maxima.count, n = xs.count
        // valley[k] = min of xs strictly between boundary/maximum k-1 and maximum k; valley[p] after the last.
        var valley = [Double](repeating: .infinity, count: p + 1)
        var previous = 0
        for k in 0...p {
            let end = k < p ? maxima[k] : n - 1
            var m = Double.infinity
            if previous + 1 < end {
                for i in (previous + 1)..<end where xs[i] < m { m = xs[i] }
            }
            valley[k] = m
            previous = end
        }
        var leftMin = [Double](repeating: 0, count: p)
        var stackValue: [Double] = [xs[0]]
        var stackMin: [Double] = [xs[0]]
        stackValue.reserveCapacity(p + 1)
        stackMin.reserveCapacity(p + 1)
        for k in 0..<p {
            let h = xs[maxima[k]]
            var m = valley[k]
            while let top = stackValue.last, top <= h {
                m = min(m, stackMin.removeLast())
                stackValue.removeLast()
            }
            leftMin[k] = min(m, h)
            stackValue.append(h)
            stackMin.append(min(m, h))
        }
        var result = [Double](repeating: 0, count: p)
        stackValue.removeAll(keepingCapacity: true)
        stackMin.removeAll(keepingCapacity: true)
        stackValue.append(xs[n - 1])
        stackMin.append(xs[n - 1])
        for k in stride(from: p - 1, through: 0, by: -1) {
            let h = xs[maxima[k]]
            var m = valley[k + 1]
            while let top = stackValue.last, top <= h {
                m = min(m, stackMin.removeLast())
                stackValue.removeLast()
            }
            let rightMin = min(m, h)
            result[k] = h - max(leftMin[k], rightMin)
            stackValue.append(h)
            stackMin.append(rightMin)
        }
        return result
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

    /// Prominence of the sample at `i` by scipy's direct walk (`peak_prominences`, no window);
    /// O(distance to a higher sample). The reference for ``prominences(_:maxima:)`` in tests.
    static func prominenceByWalking(_ xs: UnsafeBufferPointer<Double>, _ i: Int) -> Double {
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
