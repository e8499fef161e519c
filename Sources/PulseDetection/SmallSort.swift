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
