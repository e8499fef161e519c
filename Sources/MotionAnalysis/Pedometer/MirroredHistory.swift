/// The last `capacity` values of a stream, always readable as one contiguous run (each value is
/// written twice, `capacity` apart), so windows can be scanned with plain pointers and SIMD loads.
///
/// This complements `RingBuffer` (which wraps) for the detector's hot windows.
/// - Complexity: `append` O(1), no allocation after `init`.
struct MirroredHistory: Sendable {
    let capacity: Int
    private var storage: [Double]
    private var next = 0
    /// Values appended so far (may exceed `capacity`).
    private(set) var total = 0

    init(capacity: Int) {
        self.capacity = capacity
        storage = [Double](repeating: 0, count: 2 * capacity)
    }

    /// Number of values available (at most `capacity`).
    var count: Int { min(total, capacity) }

    mutating func append(_ v: Double) {
        storage.withUnsafeMutableBufferPointer { s in
            s[next] = v
            s[next + capacity] = v
        }
        next += 1
        if next == capacity { next = 0 }
        total += 1
    }

    /// Calls `body` with the last `n` values before skipping the newest `skip`, oldest first.
    func withWindow<R>(last n: Int, skipping skip: Int = 0, _ body: (UnsafeBufferPointer<Double>) -> R) -> R {
        precondition(n + skip <= count, "window longer than the history")
        // The newest value sits at next-1 (and next-1+capacity); the run ending there is contiguous
        // in the upper copy.
        let end = next + capacity - skip
        return storage.withUnsafeBufferPointer { s in
            body(UnsafeBufferPointer(rebasing: s[(end - n)..<end]))
        }
    }
}
