import SignalProcessing

extension Array where Element == Double {
    /// Sorts a short array ascending in place by insertion: the same order as `sort()` (a sorted
    /// array of numbers is unique), without the general sort's set-up, for the handful of values
    /// (8-10) the stages sort on every beat or interval.
    /// - Complexity: O(count²); allocates nothing.
    mutating func insertionSort() {
        withUnsafeMutableBufferPointer { $0.insertionSort() }
    }
}

extension UnsafeMutableBufferPointer where Element == Double {
    /// Sorts the values ascending in place by insertion (see `Array.insertionSort()`).
    /// - Complexity: O(count²); allocates nothing.
    func insertionSort() {
        guard count > 1 else { return }
        for i in 1..<count {
            let v = self[i]
            var j = i
            while j > 0, self[j - 1] > v {
                self[j] = self[j - 1]
                j -= 1
            }
            self[j] = v
        }
    }

    /// Sorts the values ascending in place: 8 and 10 values by a sorting network (a fixed sequence
    /// of compare-exchanges, no branch to mispredict), other counts by insertion. For values that
    /// equal each other only when they are the same bits (no NaN, no zeros of both signs) the
    /// result is the insertion sort's; others must use ``insertionSort()``.
    func sortDistinctlyOrdered() {
        // Networks of the least known size (19 and 29 compare-exchanges); each sorts every input of
        // 0s and 1s, hence (by the 0-1 principle) every input.
        switch count {
        case 8:
            exchange(0, 2); exchange(1, 3); exchange(4, 6); exchange(5, 7); exchange(0, 4); exchange(1, 5)
            exchange(2, 6); exchange(3, 7); exchange(0, 1); exchange(2, 3); exchange(4, 5); exchange(6, 7)
            exchange(2, 4); exchange(3, 5); exchange(1, 4); exchange(3, 6); exchange(1, 2); exchange(3, 4)
            exchange(5, 6)
        case 10:
            exchange(0, 8); exchange(1, 9); exchange(2, 7); exchange(3, 5); exchange(4, 6); exchange(0, 2)
            exchange(1, 4); exchange(5, 8); exchange(7, 9); exchange(0, 3); exchange(2, 4); exchange(5, 7)
            exchange(6, 9); exchange(0, 1); exchange(3, 6); exchange(8, 9); exchange(1, 5); exchange(2, 3)
            exchange(4, 8); exchange(6, 7); exchange(1, 2); exchange(3, 5); exchange(4, 6); exchange(7, 8)
            exchange(2, 3); exchange(4, 5); exchange(6, 7); exchange(3, 4); exchange(5, 6)
        default:
            insertionSort()
        }
    }

    /// Puts the smaller of the values at `i` and `j` at `i`, the larger at `j` (`i < j`).
    @inline(__always)
    private func exchange(_ i: Int, _ j: Int) {
        let a = self[i], b = self[j]
        self[i] = b < a ? b : a
        self[j] = b < a ? a : b
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
