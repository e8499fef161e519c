import SignalProcessing

extension Array where Element == Double {
    /// Sorts a short array ascending in place by insertion: the same order as `sort()` (a sorted
    /// array of numbers is unique), without the general sort's set-up, for the handful of values
    /// (8-10) the stages sort on every beat or interval.
    /// - Complexity: O(count²); allocates nothing.
    mutating func insertionSort() {
        withUnsafeMutableBufferPointer { s in
            guard s.count > 1 else { return }
            for i in 1..<s.count {
                let v = s[i]
                var j = i
                while j > 0, s[j - 1] > v {
                    s[j] = s[j - 1]
                    j -= 1
                }
                s[j] = v
            }
        }
    }
}

/// A short sliding window of values (the last `capacity`) with a sorted copy kept up to date: one
/// removal and one insertion per value instead of a sort, for the medians and quartiles of the last
/// few beats' strengths the stages read on every beat.
struct SortedRing: Sendable {
    private var ring: RingBuffer<Double>
    /// The window's values, ascending.
    private(set) var sorted: [Double] = []

    init(capacity: Int) {
        ring = RingBuffer(capacity: capacity)
        sorted.reserveCapacity(capacity)
    }

    /// Values in the window.
    var count: Int { ring.count }

    /// Adds `x`, dropping the oldest value once the window is full.
    /// - Complexity: O(capacity); allocates nothing.
    mutating func append(_ x: Double) {
        if let old = ring.append(x) {
            guard let i = sorted.firstIndex(of: old) else {
                // Not found (a NaN equals nothing): sort the window afresh.
                sorted.removeAll(keepingCapacity: true)
                ring.appendElements(to: &sorted)
                sorted.insertionSort()
                return
            }
            sorted.remove(at: i)
        }
        sorted.insert(x, at: sorted.firstIndex(where: { $0 > x }) ?? sorted.count)
    }

    mutating func removeAll() {
        ring.removeAll()
        sorted.removeAll(keepingCapacity: true)
    }
}
