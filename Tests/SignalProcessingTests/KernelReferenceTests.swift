import Foundation
import Testing
@testable import SignalProcessing

/// The hand-optimised kernels against plain reference computations, over many sizes (0, 1, small,
/// odd, around the widths the kernels work in) and seeded random inputs with ties.
@Suite struct KernelReferenceTests {
    static let sizes = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 255, 256, 257]

    private static func signal(_ n: Int, seed: UInt64) -> [Double] {
        var g = SplitMix64(seed: seed)
        return (0..<n).map { _ in g.gaussian() }
    }

    // MARK: Biquad cascades

    /// Cascades of 1...5 sections (a lone section and pairs: `run` takes sections two at a time).
    private static func cascade(sections: Int) -> BiquadCascade {
        var all: [Biquad] = []
        all += Butterworth.bandPass(order: 2, low: 0.7, high: 3.5, sampleRate: 30).sections
        all += Butterworth.lowPass(order: 3, cutoff: 5, sampleRate: 30).sections
        return BiquadCascade(sections: Array(all.prefix(sections)))
    }

    /// Per-sample filtering, `Biquad.process` section by section: the reference for the block paths.
    private static func perSample(_ f: inout BiquadCascade, _ x: [Double]) -> [Double] {
        x.map { v in
            var y = v
            for i in f.sections.indices { y = f.sections[i].process(y) }
            return y
        }
    }

    @Test(arguments: 1...5)
    func blockFilteringEqualsPerSampleFilteringBitForBit(sections: Int) {
        for n in Self.sizes {
            let x = Self.signal(n, seed: UInt64(n * 10 + sections))
            var a = Self.cascade(sections: sections), b = a
            a.setSteadyState(input: 0.3)
            b.setSteadyState(input: 0.3)
            // Two blocks in a row (state carried), forwards, then one backwards.
            var y = x
            y.withUnsafeMutableBufferPointer { a.run($0, backward: false) }
            let reference = Self.perSample(&b, x)
            #expect(y == reference, "forward, \(sections) sections, n \(n)")
            var z = x
            z.withUnsafeMutableBufferPointer { a.run($0, backward: true) }
            let backward = Array(Self.perSample(&b, x.reversed()).reversed())
            #expect(z == backward, "backward, \(sections) sections, n \(n)")
            #expect(a == b, "state after, \(sections) sections, n \(n)")
        }
    }

    @Test(arguments: 1...5)
    func filtfiltEqualsAPlainOddExtensionForwardBackwardPass(sections: Int) {
        let f = Self.cascade(sections: sections)
        for n in Self.sizes where n > 0 {
            let x = Self.signal(n, seed: UInt64(n * 7 + sections))
            for padLength in [nil, 0, 1, 5, 1000] {
                let pad = max(0, min(padLength ?? f.defaultPadLength, n - 1))
                let left = (0..<pad).map { 2 * x[0] - x[pad - $0] }
                let right = (0..<pad).map { 2 * x[n - 1] - x[n - 2 - $0] }
                var g = f
                let extended = left + x + right
                g.setSteadyState(input: extended[0])
                let forward = Self.perSample(&g, extended)
                g.setSteadyState(input: forward[forward.count - 1])
                let backward = Array(Self.perSample(&g, forward.reversed()).reversed())
                let reference = Array(backward[pad..<(pad + n)])
                #expect(f.filtfilt(x, padLength: padLength) == reference, "\(sections) sections, n \(n), pad \(pad)")
            }
        }
    }

    // MARK: Selection

    /// Values with many ties (a few levels) or none, and sorted, reversed and constant inputs.
    private static func selectionInputs(_ n: Int, seed: UInt64) -> [[Double]] {
        var g = SplitMix64(seed: seed)
        let ties = (0..<n).map { _ in Double(Int(g.uniform() * 3)) }
        let spread = (0..<n).map { _ in g.gaussian() }
        return [ties, spread, spread.sorted(), spread.sorted().reversed(), [Double](repeating: 2.5, count: n)]
    }

    @Test func selectionEqualsTheSortedPercentilesWithTiesSortedAndConstantInputs() {
        for n in Array(1...40) + [63, 64, 65, 257] {
            for (i, x) in Self.selectionInputs(n, seed: UInt64(n)).enumerated() {
                let sorted = x.sorted()
                for p in [0.0, 10, 25, 50, 75, 90, 99.9, 100] {
                    var scratch = x
                    let v = scratch.withUnsafeMutableBufferPointer { Statistics.selectPercentile($0, p) }
                    #expect(v == Statistics.percentile(sorted: sorted, p), "n \(n), input \(i), p \(p)")
                    #expect(scratch.sorted() == sorted, "selection keeps the values")
                }
                var scratch = x
                let median = scratch.withUnsafeMutableBufferPointer { Statistics.selectMedian($0) }
                // The mean of the middle two for even n: within rounding of, but not always bit for
                // bit, `Statistics.median` (which interpolates: a + (b - a) / 2).
                let middle = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
                #expect(median == middle, "median, n \(n), input \(i)")
                #expect(abs(median - Statistics.percentile(sorted: sorted, 50)) <= 2 * middle.ulp)
                let m = Statistics.percentile(sorted: sorted, 50)
                let mad = Statistics.percentile(sorted: x.map { abs($0 - m) }.sorted(), 50)
                #expect(Statistics.medianAbsoluteDeviation(x) == mad, "MAD, n \(n), input \(i)")
                #expect(Statistics.medianAbsoluteDeviation(x[...]) == mad, "MAD of a slice, n \(n), input \(i)")
            }
        }
    }

    // MARK: Spectra

    /// Welch's estimate written out: a direct DFT of each windowed, mean-removed, zero-padded segment.
    private static func directWelch(_ x: [Double], fs: Double, nper: Int, noverlap: Int, nfft: Int,
                                    window: [Double]) -> [Double] {
        let step = nper - noverlap
        let segments = (x.count - noverlap) / step
        let bins = nfft / 2 + 1
        var power = [Double](repeating: 0, count: bins)
        for s in 0..<segments {
            let seg = Array(x[(s * step)..<(s * step + nper)])
            let mean = seg.reduce(0, +) / Double(nper)
            let y = (0..<nper).map { (seg[$0] - mean) * window[$0] }
            for k in 0..<bins {
                var re = 0.0, im = 0.0
                for j in 0..<nper {
                    let a = -2 * Double.pi * Double(j * k % nfft) / Double(nfft)
                    re += y[j] * cos(a)
                    im += y[j] * sin(a)
                }
                power[k] += re * re + im * im
            }
        }
        let wss = window.reduce(0) { $0 + $1 * $1 }
        return power.enumerated().map { k, p in
            let edge = k == 0 || (nfft % 2 == 0 && k == nfft / 2)
            return p / (fs * wss * Double(segments)) * (edge ? 1 : 2)
        }
    }

    @Test(arguments: [(1, 1, nil as Int?), (2, 2, nil), (5, 5, nil), (7, 3, nil), (16, 8, nil), (17, 9, 32),
                      (33, 20, 45), (64, 64, 100), (100, 37, nil), (300, 64, 128)])
    func welchEqualsADirectDFTOfEverySegment(count: Int, segmentLength: Int, fftLength: Int?) {
        let x = Self.signal(count, seed: UInt64(count * 3 + segmentLength)).map { $0 + 5 }
        for (window, overlap) in [(Window.hann, 0.5), (.rectangular, 0), (.hann, 0.75)] {
            let s = Spectrum.welch(x, sampleRate: 20, segmentLength: segmentLength, overlap: overlap,
                                   fftLength: fftLength, window: window)
            let nper = min(segmentLength, count)
            let noverlap = min(nper - 1, Int((overlap * Double(nper)).rounded(.down)))
            let nfft = max(nper, fftLength ?? nper)
            let reference = Self.directWelch(x, fs: 20, nper: nper, noverlap: noverlap, nfft: nfft,
                                             window: window.coefficients(nper))
            #expect(s.power.count == reference.count)
            let scale = reference.max() ?? 0
            for k in reference.indices {
                #expect(abs(s.power[k] - reference[k]) <= 1e-9 * scale + 1e-12, "n \(count), bin \(k)")
            }
        }
    }

    // MARK: Interpolation

    @Test(arguments: [UInt64(1), 2, 3])
    func scanningSplineEvaluationEqualsPointEvaluation(seed: UInt64) {
        var g = SplitMix64(seed: seed)
        for n in [1, 2, 3, 4, 5, 17] {
            var x: [Double] = []
            var t = g.uniform()
            for _ in 0..<n {
                x.append(t)
                t += 0.1 + g.uniform()
            }
            let s = CubicSpline(x: x, y: x.map { _ in g.gaussian() })
            // Increasing queries: the knots themselves, points between and beyond them, repeats.
            var queries = x + x.map { $0 + 0.05 } + [x[0] - 1, x[n - 1] + 1, x[n - 1]]
            queries += (0..<50).map { _ in x[0] - 0.5 + g.uniform() * (x[n - 1] - x[0] + 1) }
            queries.sort()
            #expect(s.evaluate(at: queries) == queries.map { s.value(at: $0) }, "n \(n)")
        }
    }

    /// The streaming resampler against a plain search: grid point k at `t0 + k / rate` is the line
    /// through the accepted samples around it (the last accepted before it, the first at or after it).
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func uniformResamplingEqualsLinearInterpolationAtEachGridTime(seed: UInt64) {
        var g = SplitMix64(seed: seed)
        for count in [0, 1, 2, 3, 10, 200] {
            var times: [Double] = [], values: [Double] = []
            var t = 100 * g.uniform()
            for _ in 0..<count {
                times.append(t)
                values.append(g.gaussian())
                let r = g.uniform()
                // Mostly forward steps of a quarter to four grid periods; some repeats and steps back.
                t += r < 0.1 ? 0 : (r < 0.15 ? -0.03 : 0.01 + 0.15 * g.uniform())
            }
            let rate = 30.0
            let u = Resampling.uniform(times: times, values: values, rate: rate)
            var at: [Double] = [], vs: [Double] = []
            for i in times.indices where at.last.map({ times[i] > $0 }) ?? true {
                at.append(times[i])
                vs.append(values[i])
            }
            var reference: [Double] = []
            if let t0 = at.first {
                reference.append(vs[0])
                var k = 1
                while true {
                    let tk = t0 + Double(k) / rate
                    guard let j = at.firstIndex(where: { $0 >= tk }) else { break }
                    let u = (tk - at[j - 1]) / (at[j] - at[j - 1])
                    reference.append(vs[j - 1] + (vs[j] - vs[j - 1]) * u)
                    k += 1
                }
            }
            #expect(u.values == reference, "seed \(seed), \(count) samples")
        }
    }
}
