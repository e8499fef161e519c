/// The values that entered and left a sliding window since its sorted copy was last brought up to
/// date, and the merge that brings it up to date.
///
/// The rate tracker reads each window's median and MAD from a sorted copy once per hop, while values
/// arrive and leave every decimated sample. Recording them and merging once per hop (one pass over
/// the sorted values) costs less than searching and shifting the sorted copy for every value, and
/// gives the same sorted values.
struct SortedWindowChanges: Sendable {
    private var arrivals: [Double] = []
    private var departures: [Double] = []
    /// Scratch for the merged values (swapped with the sorted copy after each merge).
    private var merged: [Double] = []

    /// Storage reserved for `capacity` values of each kind and for a window of that many values.
    init(capacity: Int) {
        arrivals.reserveCapacity(capacity)
        departures.reserveCapacity(capacity)
        merged.reserveCapacity(capacity)
    }

    /// Notes that `arrival` entered the window and `departure` (if any) left it.
    /// - Complexity: O(1); allocates nothing within the reserved capacity.
    @inline(__always)
    mutating func record(arrival: Double, departure: Double?) {
        arrivals.append(arrival)
        if let departure { departures.append(departure) }
    }

    /// Forgets the changes (the window was emptied).
    mutating func removeAll() {
        arrivals.removeAll(keepingCapacity: true)
        departures.removeAll(keepingCapacity: true)
    }

    /// Applies the recorded changes to `sorted`, the window's values ascending as of the last call:
    /// afterwards it holds the window's current values ascending. Every departure must be a value of
    /// the window (sorted before, or arrived since).
    /// - Complexity: O(window + changes²) (the changes, a hop's worth, sorted by insertion);
    ///   allocates nothing once the scratch has grown to the window's size.
    mutating func apply(to sorted: inout [Double]) {
        guard !arrivals.isEmpty || !departures.isEmpty else { return }
        Self.sortAscending(&arrivals)
        Self.sortAscending(&departures)
        let count = sorted.count + arrivals.count - departures.count
        precondition(count >= 0, "sorted window out of step with its ring")
        if merged.count > count {
            merged.removeLast(merged.count - count)
        } else if merged.count < count {
            merged.append(contentsOf: repeatElement(0, count: count - merged.count))
        }
        merged.withUnsafeMutableBufferPointer { out in
            sorted.withUnsafeBufferPointer { s in
                arrivals.withUnsafeBufferPointer { a in
                    departures.withUnsafeBufferPointer { d in
                        // The sorted values and the arrivals taken in ascending order together (a
                        // merge); each departure is dropped at the first equal value met, which
                        // exists as the departures are values of the window.
                        var i = 0, j = 0, k = 0, o = 0
                        while i < s.count || j < a.count {
                            // The sorted values before the next arrival (ties: sorted first) that
                            // are not the next departure go out in a tight loop: the merge's own
                            // steps for them, without its hard-to-predict choice per value (most of
                            // the window lies between a hop's few changes).
                            // (A value the tight loop stops at, such as a NaN, goes by the merge below.)
                            let dk = k < d.count ? d[k] : .nan  // NaN equals nothing: none left
                            let next = j < a.count ? a[j] : .infinity
                            while i < s.count, s[i] <= next, s[i] != dk {
                                precondition(o < out.count, "sorted window out of step with its ring")
                                out[o] = s[i]
                                o += 1
                                i += 1
                            }
                            guard i < s.count || j < a.count else { break }
                            let v: Double
                            if j == a.count || (i < s.count && s[i] <= a[j]) {
                                v = s[i]
                                i += 1
                            } else {
                                v = a[j]
                                j += 1
                            }
                            if k < d.count, d[k] == v {
                                k += 1
                            } else {
                                precondition(o < out.count, "sorted window out of step with its ring")
                                out[o] = v
                                o += 1
                            }
                        }
                        precondition(k == d.count && o == out.count, "sorted window out of step with its ring")
                    }
                }
            }
        }
        swap(&sorted, &merged)
        removeAll()
    }

    /// A hop's few changes by insertion (10, a hop at the default rates, by a sorting network when
    /// no value is a zero or NaN: then equal values are equal bits, and any sort puts them alike);
    /// many (a long first window) by the general sort. The same order either way.
    private static func sortAscending(_ values: inout [Double]) {
        guard values.count <= 32 else { return values.sort() }
        values.withUnsafeMutableBufferPointer { v in
            if v.allSatisfy({ $0 != 0 && !$0.isNaN }) { v.sortDistinctlyOrdered() } else { v.insertionSort() }
        }
    }
}
