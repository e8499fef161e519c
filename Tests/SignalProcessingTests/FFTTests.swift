import Foundation
import Testing
@testable import SignalProcessing

/// The O(n²) definition, in extended-precision-friendly form (angles reduced mod n).
private func directDFT(re: [Double], im: [Double]) -> (re: [Double], im: [Double]) {
    let n = re.count
    var outRe = [Double](repeating: 0, count: n), outIm = [Double](repeating: 0, count: n)
    for k in 0..<n {
        var sr = 0.0, si = 0.0
        for j in 0..<n {
            let a = -2 * Double.pi * Double((j * k) % n) / Double(n)
            sr += re[j] * cos(a) - im[j] * sin(a)
            si += re[j] * sin(a) + im[j] * cos(a)
        }
        outRe[k] = sr
        outIm[k] = si
    }
    return (outRe, outIm)
}

@Suite struct FFTTests {
    static let lengths = [1, 2, 3, 4, 5, 7, 8, 12, 16, 100, 127, 128, 1000]

    @Test(arguments: lengths)
    func forwardMatchesDirectDFT(n: Int) {
        var g = SplitMix64(seed: UInt64(n))
        let re = (0..<n).map { _ in g.gaussian() }
        let im = (0..<n).map { _ in g.gaussian() }
        let (er, ei) = directDFT(re: re, im: im)
        let (fr, fi) = FFT(count: n).forward(re: re, im: im)
        // Round-off grows like sqrt(n) log n × eps × |x|; 1e-10 × n is a loose, safe bound.
        let tol = 1e-10 * Double(n)
        for k in 0..<n {
            #expect(abs(fr[k] - er[k]) <= tol)
            #expect(abs(fi[k] - ei[k]) <= tol)
        }
    }

    @Test(arguments: lengths)
    func realForwardMatchesComplexForward(n: Int) {
        var g = SplitMix64(seed: 99 + UInt64(n))
        let x = (0..<n).map { _ in g.gaussian() }
        let a = FFT(count: n).forward(real: x)
        let b = FFT(count: n).forward(re: x, im: [Double](repeating: 0, count: n))
        #expect(a.re == b.re && a.im == b.im)
    }

    @Test(arguments: lengths)
    func inverseUndoesForward(n: Int) {
        var g = SplitMix64(seed: 7 * UInt64(n))
        let re = (0..<n).map { _ in g.gaussian() }
        let im = (0..<n).map { _ in g.gaussian() }
        var plan = FFT(count: n)
        var r = re, i = im
        plan.forward(re: &r, im: &i)
        plan.inverse(re: &r, im: &i)
        for k in 0..<n {
            #expect(abs(r[k] - re[k]) < 1e-12 * Double(max(n, 10)))
            #expect(abs(i[k] - im[k]) < 1e-12 * Double(max(n, 10)))
        }
    }

    @Test func aPureToneLandsInItsBin() {
        // cos(2π 5 j / 100) has X[5] = X[95] = 50 and zeros elsewhere (Bluestein length).
        let n = 100
        let x = (0..<n).map { cos(2 * Double.pi * 5 * Double($0) / Double(n)) }
        let (re, im) = FFT(count: n).forward(real: x)
        for k in 0..<n {
            let expected = (k == 5 || k == 95) ? 50.0 : 0
            #expect(abs(re[k] - expected) < 1e-10 && abs(im[k]) < 1e-10)
        }
    }

    @Test func aPlanIsReusableAndCopiesAreIndependent() {
        var a = FFT(count: 12)
        var b = a
        var r1 = (0..<12).map(Double.init), i1 = [Double](repeating: 0, count: 12)
        var r2 = r1, i2 = i1
        a.forward(re: &r1, im: &i1)
        b.forward(re: &r2, im: &i2)
        #expect(r1 == r2 && i1 == i2)
        var r3 = (0..<12).map(Double.init), i3 = [Double](repeating: 0, count: 12)
        a.forward(re: &r3, im: &i3)
        #expect(r3 == r1 && i3 == i1)
    }
}

@Suite struct RealFFTTests {
    @Test(arguments: [1, 2, 3, 4, 6, 8, 10, 12, 100, 127, 128, 1000])
    func realTransformMatchesTheComplexOne(n: Int) {
        var g = SplitMix64(seed: 500 + UInt64(n))
        let x = (0..<n).map { _ in g.gaussian() }
        let full = FFT(count: n).forward(real: x)
        let half = RealFFT(count: n).forward(x)
        #expect(half.re.count == n / 2 + 1)
        let tol = 1e-10 * Double(max(n, 1))
        for k in 0...(n / 2) {
            #expect(abs(half.re[k] - full.re[k]) <= tol)
            #expect(abs(half.im[k] - full.im[k]) <= tol)
        }
    }

    @Test func aReusedPlanGivesTheSameAnswer() {
        var plan = RealFFT(count: 64)
        let x = (0..<64).map { cos(Double($0) * 0.3) }
        var r1 = [Double](repeating: 0, count: 33), i1 = r1, r2 = r1, i2 = r1
        plan.forward(x, re: &r1, im: &i1)
        plan.forward(x, re: &r2, im: &i2)
        #expect(r1 == r2 && i1 == i2)
    }
}

/// A plan longer than ``FFT/maximumCount`` stops with a message naming the length: Int.max trapped
/// doubling it for Bluestein's padding without one.
@Suite struct FFTPreconditionTests {
    @Test(arguments: [FFT.maximumCount + 1, Int.max])
    func aLengthPastTheMaximumIsNamed(count: Int) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [count] in
            _ = FFT(count: count)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("FFT length must be 1...") == true)
        let real = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [count] in
            _ = RealFFT(count: count)
        }
        #expect(real.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("FFT length must be 1...") == true)
        let welch = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [count] in
            _ = Spectrum.welch([1, 2, 3, 4], sampleRate: 10, fftLength: count)
        }
        #expect(welch.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("FFT length must be 1...") == true)
    }
}
