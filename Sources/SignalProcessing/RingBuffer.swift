/// A fixed-capacity first-in-first-out buffer: appending to a full buffer overwrites the oldest element.
/// Indices run from 0 (oldest) to `count - 1` (newest).
///
/// Storage is allocated once, at the first append (capacity elements); after that, appends never
/// allocate (unless the value was copied, when copy-on-write duplicates the storage once).
///
/// - Complexity: `append` O(1); subscript O(1).
public struct RingBuffer<Element>: RandomAccessCollection, MutableCollection {
    /// The maximum number of elements kept.
    public let capacity: Int
    @usableFromInline var storage: [Element]
    /// Physical index of the oldest element once the buffer is full.
    @usableFromInline var head: Int = 0

    /// An empty buffer holding at most `capacity` (>= 1) elements.
    public init(capacity: Int) {
        precondition(capacity >= 1, "ring buffer capacity must be at least 1")
        self.capacity = capacity
        storage = []
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }
    @inlinable public var count: Int { storage.count }
    /// True when `count == capacity` (the next append overwrites the oldest element).
    public var isFull: Bool { storage.count == capacity }

    /// The element `i` places after the oldest.
    @inlinable
    public subscript(i: Int) -> Element {
        get {
            precondition(i >= 0 && i < storage.count, "ring buffer index out of range")
            var p = head + i
            if p >= capacity { p -= capacity }
            return storage[p]
        }
        set {
            precondition(i >= 0 && i < storage.count, "ring buffer index out of range")
            var p = head + i
            if p >= capacity { p -= capacity }
            storage[p] = newValue
        }
    }

    /// Appends `element` as the newest; when full, the oldest is dropped and returned.
    @inlinable
    @discardableResult
    public mutating func append(_ element: Element) -> Element? {
        if storage.count < capacity {
            if storage.isEmpty { storage.reserveCapacity(capacity) }
            storage.append(element)
            return nil
        }
        let old = storage[head]
        storage[head] = element
        head += 1
        if head == capacity { head = 0 }
        return old
    }

    /// Appends `count` elements, `element(0)` first: the same as `count` calls to ``append(_:)``,
    /// without the per-element checks.
    /// - Complexity: O(count).
    @inlinable
    public mutating func append(count: Int, _ element: (Int) -> Element) {
        var i = 0
        if storage.count < capacity {
            if storage.isEmpty { storage.reserveCapacity(capacity) }
            while i < count, storage.count < capacity {
                storage.append(element(i))
                i += 1
            }
        }
        guard i < count else { return }
        let cap = capacity
        head = storage.withUnsafeMutableBufferPointer { s in
            var h = head
            while i < count {
                s[h] = element(i)
                h += 1
                if h == cap { h = 0 }
                i += 1
            }
            return h
        }
    }

    /// Appends the elements, oldest first, to `array` (at most two contiguous copies).
    /// - Complexity: O(count).
    @inlinable
    public func appendElements(to array: inout [Element]) {
        if head == 0 {
            array.append(contentsOf: storage)
        } else {
            array.append(contentsOf: storage[head...])
            array.append(contentsOf: storage[..<head])
        }
    }

    /// Removes every element, keeping the storage.
    public mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        head = 0
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
extension RingBuffer: Equatable where Element: Equatable {
    /// Equal when the elements, oldest first, and the capacities are equal.
    public static func == (a: Self, b: Self) -> Bool {
        a.capacity == b.capacity && a.elementsEqual(b)
    }
}
