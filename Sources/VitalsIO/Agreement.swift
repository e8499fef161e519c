/// How a method's rates agree with a reference's, as rPPG-Toolbox and most papers report it: mean
/// absolute error, root mean square error, mean absolute percentage error, Pearson's r, and
/// Bland-Altman's bias (the mean of answer - truth) with its 95 % limits of agreement (bias ± 1.96
/// sample standard deviations of the differences). NaN (nil for the limits) where there are too few
/// pairs: none for the errors and the bias, fewer than two for the limits, and for r also no spread
/// in the answers or the truths.
public struct Agreement: Sendable, Equatable {
    /// Pairs compared.
    public var count = 0
    public var meanAbsoluteError = Double.nan
    public var rootMeanSquareError = Double.nan
    /// Percent of the truth.
    public var meanAbsolutePercentageError = Double.nan
    public var pearsonR = Double.nan
    public var bias = Double.nan
    public var limitsOfAgreement: ClosedRange<Double>?

    /// - Parameter pairs: each answer (bpm) with its truth (bpm, positive).
    public init(_ pairs: [(value: Double, truth: Double)]) {
        count = pairs.count
        guard !pairs.isEmpty else { return }
        let n = Double(pairs.count)
        let differences = pairs.map { $0.value - $0.truth }
        meanAbsoluteError = differences.reduce(0) { $0 + abs($1) } / n
        rootMeanSquareError = (differences.reduce(0) { $0 + $1 * $1 } / n).squareRoot()
        meanAbsolutePercentageError = 100 * pairs.reduce(0) { $0 + abs($1.value - $1.truth) / $1.truth } / n
        let bias = differences.reduce(0, +) / n
        self.bias = bias
        guard pairs.count >= 2 else { return }
        let sd = (differences.reduce(0) { $0 + ($1 - bias) * ($1 - bias) } / (n - 1)).squareRoot()
        limitsOfAgreement = (bias - 1.96 * sd)...(bias + 1.96 * sd)
        let meanValue = pairs.reduce(0) { $0 + $1.value } / n, meanTruth = pairs.reduce(0) { $0 + $1.truth } / n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for p in pairs {
            sxy += (p.value - meanValue) * (p.truth - meanTruth)
            sxx += (p.value - meanValue) * (p.value - meanValue)
            syy += (p.truth - meanTruth) * (p.truth - meanTruth)
        }
        if sxx > 0, syy > 0 { pearsonR = sxy / (sxx * syy).squareRoot() }
    }
}

/// Heart rates a truth file may hold, bpm: a value outside (1e308, 0.001) would be scored as a truth.
let truthHeartRates = 20.0...300.0

/// Refuses a truth heart rate outside ``truthHeartRates``, naming where it stands (`place`: a file, or
/// a file and line, made only for the error).
func checkTruthHeartRate(_ bpm: Double, at place: @autoclosure () -> String) throws {
    guard truthHeartRates.contains(bpm) else {
        throw InputError(.notANumber, String(format: "%@: a heart rate of %g bpm is no truth (20-300 bpm)", place(), bpm))
    }
}
