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

extension Array where Element == Double {
    /// For an ascending array: removes one value equal to `old` (when given) and inserts `new` in
    /// order, so that a sorted copy of a short sliding window follows it without a sort. Returns
    /// false, changing nothing, when `old` is not found (NaN equals nothing): sort afresh then.
    /// - Complexity: O(count); allocates nothing within the capacity.
    mutating func sortedReplace(removing old: Double?, inserting new: Double) -> Bool {
        if let old {
            guard let i = firstIndex(of: old) else { return false }
            remove(at: i)
        }
        insert(new, at: firstIndex(where: { $0 > new }) ?? count)
        return true
    }
}
