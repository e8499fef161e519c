/// Merges overlapping raw detections as OpenCV's `groupRectangles` does (what `detectMultiScale`
/// returns), so results match it.
///
/// 1. Rectangles are *similar* when each of their four edges differs by at most
///    `eps * (min of the widths + min of the heights) / 2`; groups are the transitive closure of
///    similarity (a union-find partition), numbered in the order their first member appears.
/// 2. Each group becomes the average of its members (each coordinate summed, multiplied by
///    1/count in single precision, rounded to nearest, ties to even) with `neighbors` = members.
/// 3. Groups with `minNeighbors` members or fewer are dropped.
/// 4. A group lying inside another kept group (grown by `eps` of that group's size on each side) is
///    dropped when the other has more than max(3, its own) members, or it has fewer than 3.
///
/// With `minNeighbors <= 0` nothing is merged: every rectangle is returned with 1 neighbour.
/// Coordinates are compared and summed in `Double`, exactly for any image's pixels (under 2^53),
/// so rectangles near `Int.max` (which overflowed an `Int`) group without trapping; an average
/// beyond an `Int` is clamped to it.
/// - Parameters:
///   - rects: raw detections, pixels.
///   - minNeighbors: a group needs more members than this to be kept.
///   - eps: relative tolerance of similarity (OpenCV's `detectMultiScale` uses 0.2).
/// - Returns: the kept groups, in order of their first member.
/// - Complexity: O(n^2) comparisons for n rectangles.
public func groupRectangles(_ rects: [PixelRect], minNeighbors: Int, eps: Double = 0.2) -> [Detection] {
    guard minNeighbors > 0, !rects.isEmpty else {
        return rects.map { Detection(rect: $0, neighbors: 1) }
    }
    // Union-find over similar pairs.
    var parent = Array(rects.indices)
    func root(_ i: Int) -> Int {
        var r = i
        while parent[r] != r { r = parent[r] }
        var j = i
        while parent[j] != r { (parent[j], j) = (r, parent[j]) }
        return r
    }
    for i in rects.indices {
        for j in rects.indices where j > i && similar(rects[i], rects[j], eps: eps) {
            let a = root(i), b = root(j)
            if a != b { parent[max(a, b)] = min(a, b) }
        }
    }
    // Classes numbered by first appearance.
    var classOfRoot: [Int: Int] = [:]
    var sums: [(x: Double, y: Double, width: Double, height: Double)] = []
    var counts: [Int] = []
    for i in rects.indices {
        let r = root(i)
        let c: Int
        if let known = classOfRoot[r] {
            c = known
        } else {
            c = sums.count
            classOfRoot[r] = c
            sums.append((0, 0, 0, 0))
            counts.append(0)
        }
        sums[c].x += Double(rects[i].x)
        sums[c].y += Double(rects[i].y)
        sums[c].width += Double(rects[i].width)
        sums[c].height += Double(rects[i].height)
        counts[c] += 1
    }
    let averages = sums.indices.map { c -> PixelRect in
        let s = 1 / Float(counts[c])
        func mean(_ total: Double) -> Int {
            let m = (Float(total) * s).rounded(.toNearestOrEven)
            return m >= 0x1p63 ? .max : m < -0x1p63 ? .min : Int(m)
        }
        return PixelRect(x: mean(sums[c].x), y: mean(sums[c].y), width: mean(sums[c].width), height: mean(sums[c].height))
    }
    var result: [Detection] = []
    for i in averages.indices where counts[i] > minNeighbors {
        let r1 = averages[i], n1 = counts[i]
        let inside = averages.indices.contains { j in
            let n2 = counts[j]
            guard j != i, n2 > minNeighbors else { return false }
            let r2 = averages[j]
            let dx = (Double(r2.width) * eps).rounded(.toNearestOrEven)
            let dy = (Double(r2.height) * eps).rounded(.toNearestOrEven)
            let (x1, y1, w1, h1) = (Double(r1.x), Double(r1.y), Double(r1.width), Double(r1.height))
            let (x2, y2, w2, h2) = (Double(r2.x), Double(r2.y), Double(r2.width), Double(r2.height))
            return x1 >= x2 - dx && y1 >= y2 - dy && x1 + w1 <= x2 + w2 + dx && y1 + h1 <= y2 + h2 + dy
                && (n2 > max(3, n1) || n1 < 3)
        }
        if !inside { result.append(Detection(rect: r1, neighbors: n1)) }
    }
    return result
}

/// OpenCV's `SimilarRects`: every edge within `eps * (min width + min height) / 2` pixels.
func similar(_ a: PixelRect, _ b: PixelRect, eps: Double) -> Bool {
    let (ax, ay, aw, ah) = (Double(a.x), Double(a.y), Double(a.width), Double(a.height))
    let (bx, by, bw, bh) = (Double(b.x), Double(b.y), Double(b.width), Double(b.height))
    let delta = eps * (min(aw, bw) + min(ah, bh)) * 0.5
    return abs(ax - bx) <= delta && abs(ay - by) <= delta
        && abs(ax + aw - bx - bw) <= delta && abs(ay + ah - by - bh) <= delta
}
