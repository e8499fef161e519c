import Testing
import SignalProcessing
@testable import PulseDetection

@Suite struct SortedWindowChangesTests {
    /// A ring of `capacity` values fed `perUpdate` values between merges (ties included, and more
    /// changes than the window holds when `perUpdate > capacity`): after every merge the sorted copy
    /// equals the window's values sorted.
    @Test(arguments: [(100, 10), (8, 10), (10, 1), (5, 50), (1, 3)])
    func mergedCopyEqualsTheWindowSorted(capacity: Int, perUpdate: Int) {
        var random = SplitMix64(seed: UInt64(capacity * 1000 + perUpdate))
        var ring = RingBuffer<Double>(capacity: capacity)
        var changes = SortedWindowChanges(capacity: capacity)
        var sorted: [Double] = []
        for _ in 0..<40 {
            for _ in 0..<perUpdate {
                // Coarse values, so that equal values arrive and leave together.
                let z = (random.gaussian() * 4).rounded() / 4
                changes.record(arrival: z, departure: ring.append(z))
            }
            changes.apply(to: &sorted)
            #expect(sorted == Array(ring).sorted())
        }
    }

    @Test func nothingRecordedLeavesTheSortedCopyAlone() {
        var changes = SortedWindowChanges(capacity: 4)
        var sorted = [1.0, 2, 3]
        changes.apply(to: &sorted)
        #expect(sorted == [1, 2, 3])
    }
}

@Suite struct SortedRingTests {
    /// The sorted copy of an 8-value sliding window equals the window sorted after every step (ties
    /// included); a leaving value that cannot be found (a NaN) makes it sort the window afresh.
    @Test func followsASlidingWindowAndRecoversFromAValueItCannotFind() {
        var random = SplitMix64(seed: 8)
        var ring = RingBuffer<Double>(capacity: 8)
        var sorted = SortedRing(capacity: 8)
        for _ in 0..<500 {
            let v = (random.uniform() * 6).rounded() / 2
            ring.append(v)
            sorted.append(v)
            #expect(sorted.count == ring.count)
            #expect(sorted.sorted == Array(ring).sorted())
        }
        sorted.append(.nan)
        let after = (0..<8).map { Double(8 - $0) }
        for v in after { sorted.append(v) }
        #expect(sorted.sorted == after.sorted())
    }
}

@Suite struct SortingNetworkTests {
    /// The 8- and 10-value networks sort every input of 0s and 1s (2^8 and 2^10 of them), hence, by
    /// the 0-1 principle, every input; other counts go by insertion. Random values with ties, and
    /// every count up to 12, come out as `sorted()` gives them.
    @Test(arguments: [8, 10])
    func networksSortEveryInputOfZerosAndOnes(count: Int) {
        for bits in 0..<(1 << count) {
            var values = (0..<count).map { Double((bits >> $0) & 1) + 1 }  // 1s and 2s: no zeros
            let want = values.sorted()
            values.withUnsafeMutableBufferPointer { $0.sortDistinctlyOrdered() }
            #expect(values == want, "\(bits)")
        }
    }

    @Test func everyCountSortsAsSortedDoes() {
        var random = SplitMix64(seed: 42)
        for count in 0...12 {
            for _ in 0..<200 {
                var values = (0..<count).map { _ in (random.gaussian() * 3).rounded() + 20 }
                let want = values.sorted()
                values.withUnsafeMutableBufferPointer { $0.sortDistinctlyOrdered() }
                #expect(values == want)
            }
        }
    }
}
