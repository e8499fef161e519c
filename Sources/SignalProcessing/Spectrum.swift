#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A one-sided power spectral density.
public struct PowerSpectrum: Sendable, Hashable {
    /// Bin frequencies in Hz, `k × sampleRate / fftLength` for k in 0...fftLength/2.
    public var frequencies: [Double]
    /// Power spectral density in (signal unit)² / Hz at each frequency.
    public var power: [Double]

    /// A spectrum from bin frequencies (Hz, equally spaced from 0) and densities.
    public init(frequencies: [Double], power: [Double]) {
        self.frequencies = frequencies
        self.power = power
    }

    /// Bin spacing in Hz (0 when there is one bin or none).
    public var resolution: Double { frequencies.count > 1 ? frequencies[1] - frequencies[0] : 0 }

    /// The power in `[low, high]` Hz: trapezoidal integral of the density over the bins whose frequency
    /// lies in the closed interval (numpy's `trapz(power[mask], frequencies[mask])`; HeartPy's own band power is
    /// half-open, `low <= f < high`, which HRV computes itself).
    /// Units: (signal unit)². 0 when fewer than two bins fall in the band.
    public func bandPower(low: Double, high: Double) -> Double {
        var total = 0.0
        var previous: (f: Double, p: Double)?
        for k in frequencies.indices where frequencies[k] >= low && frequencies[k] <= high {
            if let q = previous { total += (frequencies[k] - q.f) * (power[k] + q.p) / 2 }
            previous = (frequencies[k], power[k])
        }
        return total
    }

    /// The index of the largest density among bins with frequency in `[low, high]` Hz, or nil if none.
    public func peakIndex(low: Double = 0, high: Double = .infinity) -> Int? {
        var best: Int?
        for k in frequencies.indices where frequencies[k] >= low && frequencies[k] <= high {
            if best == nil || power[k] > power[best!] { best = k }
        }
        return best
    }
}

/// Spectral window functions.
public enum Window: Sendable, Hashable {
    /// All ones.
    case rectangular
    /// Periodic Hann window `0.5 - 0.5 cos(2πk/N)` (scipy's `get_window('hann', N)`, the spectral-analysis form).
    case hann

    /// The window's `count` coefficients (`count` ≥ 0).
    public func coefficients(_ count: Int) -> [Double] {
        precondition(count >= 0, "a window has a count of coefficients >= 0 (got \(count))")
        switch self {
        case .rectangular:
            return [Double](repeating: 1, count: count)
        case .hann:
            if count == 1 { return [1] }
            return (0..<count).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(count)) }
        }
    }
}

/// Power spectra of real signals.
public enum Spectrum {
    /// Welch's averaged-periodogram power spectral density, with scipy.signal.welch's defaults: Hann
    /// window (periodic), 50 % overlap, each segment's mean removed ('constant' detrend), one-sided,
    /// 'density' scaling (`1 / (fs Σw²)`, doubled except at DC and Nyquist), mean over segments.
    /// Segments start at 0, step, 2 step, … and trailing samples that do not fill a segment are ignored
    /// (as scipy does).
    /// - Parameters:
    ///   - x: the signal.
    ///   - sampleRate: samples per second (Hz), a positive finite number.
    ///   - segmentLength: samples per segment (scipy's `nperseg`, default 256), clamped to `x.count`.
    ///   - overlap: fraction of a segment shared with the next, in [0, 1); the overlap in samples is
    ///     `floor(overlap × segmentLength)` (0.5 gives scipy's `nperseg // 2`).
    ///   - fftLength: segment length after zero padding (scipy's `nfft`), default `segmentLength`;
    ///     at most ``FFT/maximumCount``.
    ///   - window: the window (default Hann).
    /// - Returns: an empty spectrum for an empty signal.
    /// - Complexity: O(n log segmentLength); one ``RealFFT`` plan, buffers allocated once per call.
    public static func welch(_ x: [Double], sampleRate: Double, segmentLength: Int = 256, overlap: Double = 0.5,
                             fftLength: Int? = nil, window: Window = .hann) -> PowerSpectrum {
        guard !x.isEmpty else { return PowerSpectrum(frequencies: [], power: []) }
        precondition(sampleRate > 0 && sampleRate.isFinite, "sample rate must be a positive finite number (got \(sampleRate))")
        precondition(overlap >= 0 && overlap < 1, "overlap must be in [0, 1)")
        let nper = max(1, min(segmentLength, x.count))
        let noverlap = min(nper - 1, Int((overlap * Double(nper)).rounded(.down)))
        let nfft = max(nper, fftLength ?? nper)
        precondition(nfft <= FFT.maximumCount, "FFT length must be 1...\(FFT.maximumCount) (got \(nfft))")
        let step = nper - noverlap
        let segments = (x.count - noverlap) / step
        let w = window.coefficients(nper)
        var wss = 0.0
        for v in w { wss += v * v }
        let bins = nfft / 2 + 1
        var power = [Double](repeating: 0, count: bins)
        var plan = RealFFT(count: nfft)
        var segment = [Double](repeating: 0, count: nfft)
        var re = [Double](repeating: 0, count: bins)
        var im = [Double](repeating: 0, count: bins)
        x.withUnsafeBufferPointer { xs in
            for s in 0..<segments {
                let start = s * step
                var mean = 0.0
                for k in 0..<nper { mean += xs[start + k] }
                mean /= Double(nper)
                for k in 0..<nper { segment[k] = (xs[start + k] - mean) * w[k] }
                plan.forward(segment, re: &re, im: &im)
                for k in 0..<bins { power[k] += re[k] * re[k] + im[k] * im[k] }
            }
        }
        let scale = 1 / (sampleRate * wss * Double(segments))
        for k in 0..<bins {
            let isEdge = k == 0 || (nfft % 2 == 0 && k == nfft / 2)
            power[k] *= isEdge ? scale : 2 * scale
        }
        let frequencies = (0..<bins).map { Double($0) * sampleRate / Double(nfft) }
        return PowerSpectrum(frequencies: frequencies, power: power)
    }

    /// The periodogram (one segment, the whole signal), as scipy.signal.periodogram's defaults:
    /// rectangular window, mean removed, one-sided, density scaling. With the rectangular window the
    /// integral of the density equals the signal's (population) variance (Parseval).
    /// - Complexity: O(n log n).
    public static func periodogram(_ x: [Double], sampleRate: Double, window: Window = .rectangular,
                                   fftLength: Int? = nil) -> PowerSpectrum {
        welch(x, sampleRate: sampleRate, segmentLength: x.count, overlap: 0, fftLength: fftLength, window: window)
    }
}
