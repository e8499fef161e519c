import Foundation
import Testing
@testable import SignalProcessing

@Suite struct CubicSplineTests {
    @Test func matchesScipyNaturalCubicSpline() {
        // scipy 1.17.1: CubicSpline(x, y, bc_type='natural')(queries)
        let s = CubicSpline(x: [0, 0.7, 1.5, 2.1, 3.4, 4.0], y: [1, 3, 2, -1, 0.5, 2])
        let queries = [0.3, 1.0, 2.0, 2.5, 3.9]
        let expected = [2.0241170860736664, 3.1679484901842114, -0.5934126985092597, -1.5844391619048759,
                        1.768484034787179]
        for (q, e) in zip(queries, expected) { #expect(abs(s.value(at: q) - e) < 1e-12) }
        let batch = s.evaluate(at: queries)
        #expect(batch.count == expected.count)
        for (b, e) in zip(batch, expected) { #expect(abs(b - e) < 1e-12) }
    }

    @Test func passesThroughTheKnotsAndReproducesLines() {
        let x: [Double] = [0, 1, 2.5, 3, 7]
        let s = CubicSpline(x: x, y: x.map { 3 * $0 - 2 })
        for t in stride(from: -1.0, through: 8, by: 0.25) {
            let clamped = min(max(t, 0), 7)
            #expect(abs(s.value(at: t) - (3 * clamped - 2)) < 1e-12)
        }
    }

    @Test func oneAndTwoPoints() {
        #expect(CubicSpline(x: [1], y: [5]).value(at: 3) == 5)
        #expect(CubicSpline(x: [0, 2], y: [0, 4]).value(at: 0.5) == 1)
    }

    /// Two points in the wrong order made a spline that answered every query with the first value
    /// (the ordering was checked only where the tridiagonal system is solved, from three points on).
    @Test(arguments: [[2.0, 0.0], [1, 1], [0, -1e-300]])
    func abscissaeThatDoNotIncreaseAreNamedForTwoPointsToo(x: [Double]) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [x] in
            _ = CubicSpline(x: x, y: [0, 4])
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("spline abscissae must increase strictly") == true)
    }
}
