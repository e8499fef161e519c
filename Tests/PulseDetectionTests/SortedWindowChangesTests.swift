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

@Suite struct SortedReplaceTests {
    /// A sorted copy of an 8-value sliding window kept by `sortedReplace` equals the window sorted
    /// after every step (ties included); a value that is not there is reported, nothing changed.
    @Test func followsASlidingWindowAndReportsAMissingValue() {
        var random = SplitMix64(seed: 8)
        var ring = RingBuffer<Double>(capacity: 8)
        var sorted: [Double] = []
        for _ in 0..<500 {
            let v = (random.uniform() * 6).rounded() / 2
            let evicted = ring.append(v)
            let found = sorted.sortedReplace(removing: evicted, inserting: v)
            #expect(found)
            #expect(sorted == Array(ring).sorted())
        }
        let before = sorted
        let found = sorted.sortedReplace(removing: .nan, inserting: 1)
        #expect(!found)
        #expect(sorted == before)
    }
}
