import SignalProcessing

/// Medians of the few recent step sizes the pedometer stages keep (eight at most).
enum PedometerMedian {
    /// The most values `of(_:)` takes (the stages keep eight).
    static let maximumCount = 8

    /// The median of `values` (the mean of the middle two for an even count); 0 when empty.
    /// - Complexity: selection (``Statistics/selectMedian(_:)``) on a copy in stack memory of a fixed
    ///   size, for the handful of values it is used on; no allocation.
    static func of(_ values: RingBuffer<Double>) -> Double {
        let n = values.count
        guard n > 0 else { return 0 }
        precondition(n <= maximumCount, "median of more values than the stages keep")
        // A fixed capacity: the buffer is a plain stack slot, with no run-time size check.
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: maximumCount) { s in
            var i = 0
            for v in values {
                s[i] = v
                i += 1
            }
            return Statistics.selectMedian(UnsafeMutableBufferPointer(rebasing: s[0..<n]))
        }
    }
}
