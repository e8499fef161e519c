/// The One Euro filter: a first-order low-pass whose cutoff rises with the signal's speed, so it
/// smooths jitter when the signal holds still and follows it with little lag when it moves.
///
/// Casiez, Roussel and Vogel, "1 € Filter: A Simple Speed-based Low-pass Filter for Noisy Input in
/// Interactive Systems", CHI 2012. Each step takes the time of the sample, so a variable rate (a
/// camera dropping frames) is filtered the same as a steady one:
///
///     α(fc, Δt) = 1 / (1 + τ/Δt),  τ = 1 / (2π fc)
///     ẋ  = low-pass of (x - x₋₁)/Δt at `derivativeCutoff` (raw samples, as in the authors' code)
///     fc = minimumCutoff + speedCoefficient · |ẋ|
///     x̂  = x̂₋₁ + α(fc, Δt) · (x - x̂₋₁)
///
/// The first finite sample passes through unchanged. A later sample whose time is not after the
/// previous one (or is not finite), or whose value is not finite, leaves the state untouched and
/// returns the last output (before any finite sample, the input is returned as it is).
/// - Complexity: O(1) per sample, no allocation.
public struct OneEuroFilter: Sendable, Equatable {
    public struct Parameters: Sendable, Equatable {
        /// Cutoff while the signal holds still, Hz. Lower smooths more and lags more at low speed.
        public var minimumCutoff: Double
        /// How much the cutoff rises per unit of speed, Hz per (signal unit per second). Higher
        /// lags less when the signal moves, and lets more jitter through.
        public var speedCoefficient: Double
        /// Cutoff of the low-pass on the speed estimate, Hz (1 Hz in the paper).
        public var derivativeCutoff: Double
        public init(minimumCutoff: Double = 1, speedCoefficient: Double = 0, derivativeCutoff: Double = 1) {
            self.minimumCutoff = minimumCutoff
            self.speedCoefficient = speedCoefficient
            self.derivativeCutoff = derivativeCutoff
        }
    }

    public var parameters: Parameters
    /// The last output, in the signal's unit; nil before the first sample.
    public private(set) var value: Double?
    /// The low-passed speed, signal units per second (0 before the second sample).
    public private(set) var derivative = 0.0
    private var lastTime = 0.0
    private var lastInput = 0.0

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// The smoothing factor α of a first-order low-pass with cutoff `cutoff` (Hz) over a step of
    /// `interval` seconds: 1 / (1 + 1/(2π · cutoff · interval)), in 0...1.
    @inlinable
    public static func smoothingFactor(cutoff: Double, interval: Double) -> Double {
        let r = 2 * Double.pi * cutoff * interval
        return r / (r + 1)
    }

    /// Filters the sample `x` taken at `time` (seconds); returns the smoothed value.
    public mutating func filter(_ x: Double, at time: Double) -> Double {
        guard let previous = value else {
            guard x.isFinite && time.isFinite else { return x }
            value = x
            lastTime = time
            lastInput = x
            return x
        }
        let dt = time - lastTime
        guard x.isFinite && dt > 0 && dt.isFinite else { return previous }
        let raw = (x - lastInput) / dt
        derivative += Self.smoothingFactor(cutoff: parameters.derivativeCutoff, interval: dt) * (raw - derivative)
        let cutoff = parameters.minimumCutoff + parameters.speedCoefficient * abs(derivative)
        let next = previous + Self.smoothingFactor(cutoff: cutoff, interval: dt) * (x - previous)
        value = next
        lastTime = time
        lastInput = x
        return next
    }

    /// Forgets the signal; the next sample passes through unchanged.
    public mutating func reset() {
        value = nil
        derivative = 0
    }
}
