import SignalProcessing

/// Medians of the few recent step sizes the pedometer stages keep (eight at most).
enum PedometerMedian {
    /// The median of `values` (the mean of the middle two for an even count); 0 when empty.
    /// - Complexity: O(n²) insertion sort in stack memory, for the handful of values it is used on;
    ///   no allocation.
    static func of(_ values: RingBuffer<Double>) -> Double {
        let n = values.count
        guard n > 0 else { return 0 }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { s in
            for i in 0..<n {
                let v = values[i]
                var j = i
                while j > 0 && v < s[j - 1] {
                    s[j] = s[j - 1]
                    j -= 1
                }
                s[j] = v
            }
            return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2])
        }
    }
}
