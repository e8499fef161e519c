import Foundation
import Testing
@testable import SignalProcessing

@Suite struct PeaksTests {
    @Test(arguments: [(-0.3, 2.0, 1.5), (0.0, -1.0, 0.2), (0.49, 5.0, 10.0), (-0.5, 0.0, 0.01)])
    func parabolicVertexIsExactForAParabola(vertex: Double, peak: Double, curvature: Double) {
        // y(t) = peak - curvature (t - vertex)², sampled at t = -1, 0, 1.
        let y = { (t: Double) in peak - curvature * (t - vertex) * (t - vertex) }
        let (offset, value) = Peaks.parabolicVertex(y(-1), y(0), y(1))
        #expect(abs(offset - vertex) < 1e-12)
        #expect(abs(value - peak) < 1e-12)
    }

    @Test func parabolicVertexOfAStraightLineIsTheMiddleSample() {
        let (offset, value) = Peaks.parabolicVertex(1, 2, 3)
        #expect(offset == 0 && value == 2)
    }

    @Test func findsSinusoidPeaksToSubSamplePrecision() {
        // 1.3 Hz at 30 Hz: peaks at t = (0.25 + k) / 1.3 s, between samples. The parabola's error for
        // a sampled cosine peak is ≤ (ω Δt)² / 24 of a sample's span; here ~ 0.01 sample.
        let fs = 30.0, f = 1.3
        let x = (0..<600).map { sin(2 * Double.pi * f * Double($0) / fs) }
        let peaks = Peaks.find(x)
        #expect(peaks.count == 26)
        for (k, p) in peaks.enumerated() {
            let truth = (0.25 + Double(k)) / f * fs
            #expect(abs(p.position - truth) < 0.02)
            #expect(abs(p.value - 1) < 1e-3)
            #expect(p.value >= x[p.index])
        }
    }

    @Test func minDistanceKeepsTheHighestPeaks() {
        let x: [Double] = [0, 1, 0, 3, 0, 2, 0, 0, 5, 0, 4, 0]
        #expect(Peaks.find(x).map(\.index) == [1, 3, 5, 8, 10])
        #expect(Peaks.find(x, minDistance: 3).map(\.index) == [3, 8])
        #expect(Peaks.find(x, minDistance: 2).map(\.index) == [1, 3, 5, 8, 10])
    }

    @Test func prominenceFollowsScipysDefinition() {
        // scipy.signal.peak_prominences on this signal gives [1, 3, 2, 5, 1].
        let x: [Double] = [0, 1, 0, 3, 0, 2, 1, 0, 5, 3, 4, 0]
        let peaks = Peaks.find(x)
        #expect(peaks.map(\.index) == [1, 3, 5, 8, 10])
        #expect(peaks.map(\.prominence) == [1, 3, 2, 5, 1])
        #expect(Peaks.find(x, minProminence: 2).map(\.index) == [3, 5, 8])
        #expect(Peaks.find(x, minHeight: 3).map(\.index) == [3, 8, 10])
    }

    @Test func plateausReportTheirMiddleAndEndsAreNotPeaks() {
        let x: [Double] = [5, 1, 2, 2, 2, 1, 3, 3, 0, 4]
        let peaks = Peaks.find(x)
        #expect(peaks.map(\.index) == [3, 6])
        #expect(Peaks.find([1, 2]).isEmpty)
        #expect(Peaks.find([3, 2, 1]).isEmpty)
    }
}

@Suite struct PeakProminenceTests {
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func stackProminencesEqualScipysDirectWalk(seed: UInt64) {
        // Random walks with plateaus (rounded values) exercise ties, plateaus and both ends.
        var g = SplitMix64(seed: seed)
        var v = 0.0
        let x = (0..<2000).map { _ in
            v += g.gaussian()
            return (v * 2).rounded() / 2
        }
        x.withUnsafeBufferPointer { xs in
            let maxima = Peaks.localMaxima(xs)
            #expect(maxima.count > 100)
            let fast = Peaks.prominences(xs, maxima: maxima)
            for (k, i) in maxima.enumerated() {
                #expect(fast[k] == Peaks.prominenceByWalking(xs, i))
            }
        }
    }
}

@Suite struct PeaksScipyTests {
    // Reference: scipy 1.17.1 `find_peaks(x, **kwargs)` on `scipyReferenceSignal()`.
    @Test func matchesScipyFindPeaks() {
        let x = scipyReferenceSignal()
        #expect(Peaks.find(x).count == 80)
        #expect(Peaks.find(x, minDistance: 10).map(\.index) == [8, 19, 31, 46, 57, 72, 83, 95, 106, 117, 132, 147,
                                                              158, 170, 181, 192, 207, 222, 233, 245, 256, 271, 282, 297])
        #expect(Peaks.find(x, minProminence: 0.8).map(\.index) == [8, 31, 57, 83, 106, 132, 158, 181, 207, 233, 256, 282])
        #expect(Peaks.find(x, minHeight: 1.0).map(\.index) == [5, 8, 27, 31, 34, 53, 57, 61, 80, 83, 106, 109, 128, 132,
                                                             155, 158, 177, 181, 184, 203, 207, 211, 226, 230, 233,
                                                             237, 252, 256, 259, 263, 275, 278, 282, 286])
        #expect(Peaks.find(x, minDistance: 15, minProminence: 0.5, minHeight: 0.2).map(\.index)
                == [8, 31, 57, 83, 106, 132, 158, 181, 207, 233, 256, 282])
        let prominences = [0.456177200028, 0.755487876754, 1.313622342945, 0.498908687794, 0.620558700327,
                           0.604262287927, 0.488972883622, 0.658098634895]
        for (p, e) in zip(Peaks.find(x).prefix(8), prominences) { #expect(abs(p.prominence - e) < 1e-11) }
    }
}
