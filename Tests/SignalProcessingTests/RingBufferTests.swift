import Testing
@testable import SignalProcessing

@Suite struct RingBufferTests {
    @Test(arguments: 1...8)
    func keepsTheNewestElementsOldestFirstAtEveryWrapPosition(capacity: Int) {
        var ring = RingBuffer<Int>(capacity: capacity)
        var reference: [Int] = []
        #expect(ring.isEmpty)
        for value in 0..<(3 * capacity + 1) {
            let dropped = ring.append(value)
            reference.append(value)
            if reference.count > capacity {
                #expect(dropped == reference.removeFirst())
            } else {
                #expect(dropped == nil)
            }
            #expect(Array(ring) == reference)
            #expect(ring.count == reference.count)
            #expect(ring.isFull == (reference.count == capacity))
            #expect(ring.first == reference.first && ring.last == reference.last)
            for i in reference.indices { #expect(ring[i] == reference[i]) }
        }
    }

    @Test(arguments: 1...8)
    func subscriptSetWritesTheLogicalPosition(capacity: Int) {
        var ring = RingBuffer<Int>(capacity: capacity)
        for v in 0..<(capacity + capacity / 2) { ring.append(v) }
        var reference = Array(ring)
        for i in ring.indices {
            ring[i] = 100 + i
            reference[i] = 100 + i
        }
        #expect(Array(ring) == reference)
        #expect(Array(ring.reversed()) == reference.reversed())
    }

    @Test func removeAllEmptiesAndStartsOver() {
        var ring = RingBuffer<Double>(capacity: 3)
        for v in 0..<5 { ring.append(Double(v)) }
        ring.removeAll()
        #expect(ring.isEmpty)
        ring.append(9)
        #expect(Array(ring) == [9])
        #expect(ring == { var r = RingBuffer<Double>(capacity: 3); r.append(9); return r }())
    }
}

@Suite struct RingBufferCopyTests {
    @Test(arguments: [0, 1, 3, 5, 8, 13])
    func appendingTheElementsToAnArrayGivesThemOldestFirst(appended: Int) {
        var ring = RingBuffer<Int>(capacity: 5)
        for v in 0..<appended { ring.append(v) }
        var out = [-1]
        ring.appendElements(to: &out)
        #expect(out == [-1] + Array(ring))
        #expect(out == [-1] + Array(max(0, appended - 5)..<appended))
    }
}

@Suite struct RingBufferBulkAppendTests {
    @Test(arguments: [(0, 3), (2, 2), (4, 7), (6, 13), (9, 1)])
    func appendingManyAtOnceEqualsAppendingOneAtATime(before: Int, count: Int) {
        var one = RingBuffer<Int>(capacity: 5), many = RingBuffer<Int>(capacity: 5)
        for v in 0..<before {
            one.append(v)
            many.append(v)
        }
        for k in 0..<count { one.append(100 + k) }
        many.append(count: count) { 100 + $0 }
        #expect(Array(one) == Array(many))
        one.append(-1)
        many.append(-1)
        #expect(Array(one) == Array(many))
    }
}
