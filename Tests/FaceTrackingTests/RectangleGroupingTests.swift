import Testing
@testable import FaceTracking

@Suite struct RectangleGroupingTests {
    func r(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> PixelRect { PixelRect(x: x, y: y, width: w, height: h) }

    @Test func withoutAMinimumEveryRectangleIsReturnedAlone() {
        let input = [r(0, 0, 10, 10), r(1, 1, 10, 10)]
        #expect(groupRectangles(input, minNeighbors: 0) == input.map { Detection(rect: $0, neighbors: 1) })
    }

    @Test func similarRectanglesAreAveragedWithTheirCount() {
        // Edges within 0.2 * (20 + 20) / 2 = 4 pixels of each other.
        let input = [r(10, 10, 20, 20), r(12, 11, 21, 20), r(13, 13, 20, 22), r(11, 10, 20, 21)]
        // x: 46 / 4 = 11.5 -> 12 (ties to even), y: 44 / 4 = 11, width 81 / 4 = 20.25 -> 20, height 83 / 4 = 20.75 -> 21.
        #expect(groupRectangles(input, minNeighbors: 3) == [Detection(rect: r(12, 11, 20, 21), neighbors: 4)])
    }

    @Test func groupsWithMinNeighborsMembersOrFewerAreDropped() {
        let input = [r(10, 10, 20, 20), r(11, 10, 20, 20), r(10, 11, 20, 20), r(100, 100, 20, 20)]
        #expect(groupRectangles(input, minNeighbors: 3).isEmpty)
        #expect(groupRectangles(input, minNeighbors: 2) == [Detection(rect: r(10, 10, 20, 20), neighbors: 3)])
    }

    @Test func similarityIsTransitive() {
        // a ~ b and b ~ c (4-pixel steps with a 4-pixel tolerance) but a and c are 8 apart.
        let input = [r(0, 0, 20, 20), r(4, 0, 20, 20), r(8, 0, 20, 20)]
        #expect(groupRectangles(input, minNeighbors: 1) == [Detection(rect: r(4, 0, 20, 20), neighbors: 3)])
    }

    @Test func aSmallGroupInsideABiggerStrongerOneIsDropped() {
        let big = Array(repeating: r(0, 0, 100, 100), count: 6)
        let small = Array(repeating: r(30, 30, 20, 20), count: 4)
        #expect(groupRectangles(small + big, minNeighbors: 2) == [Detection(rect: r(0, 0, 100, 100), neighbors: 6)])
        // Kept when the bigger group has no more than max(3, its own count) members.
        let weakBig = Array(repeating: r(0, 0, 100, 100), count: 4)
        #expect(groupRectangles(small + weakBig, minNeighbors: 2).count == 2)
    }

    @Test func intersectionOverUnion() {
        #expect(r(0, 0, 10, 10).intersectionOverUnion(r(0, 0, 10, 10)) == 1)
        #expect(r(0, 0, 10, 10).intersectionOverUnion(r(5, 0, 10, 10)) == 50.0 / 150)
        #expect(r(0, 0, 10, 10).intersectionOverUnion(r(10, 0, 10, 10)) == 0)
    }

    /// Rectangles at the ends of `Int` (a caller's, not a detector's) are measured and grouped
    /// without trapping: their edges, areas and sums overflowed an Int.
    @Test func rectanglesNearIntMaxDoNotTrap() {
        let huge = r(.max, .max, .max, .max), far = r(.min, .min, .max, .max), ordinary = r(0, 0, 10, 10)
        for a in [huge, far, ordinary] {
            for b in [huge, far, ordinary] {
                let iou = a.intersectionOverUnion(b)
                #expect(iou.isNaN || (0...1).contains(iou), "\(a) \(b)")
            }
        }
        #expect(huge.intersectionOverUnion(ordinary) == 0 && far.intersectionOverUnion(huge) == 0)
        // Averages of Int.max and Int.min stay at the ends of Int.
        #expect(groupRectangles([huge, huge, ordinary, r(1, 1, 10, 10)], minNeighbors: 1)
                == [Detection(rect: huge, neighbors: 2), Detection(rect: ordinary, neighbors: 2)])
        #expect(groupRectangles([far, far], minNeighbors: 1) == [Detection(rect: far, neighbors: 2)])
        let rects = [huge, huge, far, far, ordinary, r(1, 1, 10, 10)]
        #expect(groupRectangles(rects, minNeighbors: 1, eps: .nan).isEmpty)  // nothing is similar
        #expect(groupRectangles(rects, minNeighbors: 1, eps: .infinity).count == 1)  // everything is
    }
}
