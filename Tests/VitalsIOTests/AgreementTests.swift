import Testing
@testable import VitalsIO

@Suite struct AgreementTests {
    private func subject(_ windows: [(bpm: Double?, truth: Double)]) -> FingertipEvaluation.Subject {
        FingertipEvaluation.Subject(
            name: "s", windows: windows.enumerated().map { .init(start: Double($0.offset) * 5, truth: $0.element.truth, bpm: $0.element.bpm, confidence: 1) },
            wholeBPM: nil, truthMedian: 70, truthNotes: [], failure: nil)
    }

    /// Errors of +2, -2, +1, -1 and 0 bpm: RMSE √2, MAPE the mean of |error| / truth, no bias and
    /// limits of ±1.96 × √(10 / 4). A declined window counts in none of them.
    @Test func agreementMeasuresOfKnownErrors() {
        let s = FingertipEvaluation.summarize([subject([(62, 60), (58, 60), (81, 80), (79, 80), (100, 100), (nil, 90)])])
        #expect(abs(s.agreement.rootMeanSquareError - 2.0.squareRoot()) < 1e-12)
        #expect(abs(s.agreement.meanAbsolutePercentageError - 100 * (2.0 / 60 + 2.0 / 60 + 1.0 / 80 + 1.0 / 80) / 5) < 1e-12)
        #expect(abs(s.agreement.bias) < 1e-12)
        let half = 1.96 * (10.0 / 4).squareRoot()
        #expect(abs(s.agreement.limitsOfAgreement!.lowerBound + half) < 1e-12 && abs(s.agreement.limitsOfAgreement!.upperBound - half) < 1e-12)
        #expect(s.agreement.pearsonR > 0.99 && s.agreement.pearsonR < 1)
        #expect(s.agreement.count == 5 && abs(s.agreement.meanAbsoluteError - s.meanAbsoluteError) < 1e-12)
    }

    /// One pair: errors and bias, but no limits (no spread to take) and no r.
    @Test func onePairHasNoLimits() {
        let a = Agreement([(value: 72, truth: 70)])
        #expect(a.rootMeanSquareError == 2 && a.bias == 2 && a.limitsOfAgreement == nil && a.pearsonR.isNaN)
    }

    /// Answers on a line through the truths have r = 1 (rising) or -1 (falling) whatever their error;
    /// the bias is the mean error. With no answer, none is given.
    @Test func pearsonAndBiasOnLines() {
        let truths = [55.0, 63, 71, 88, 104]
        let rising = FingertipEvaluation.summarize([subject(truths.map { (2 * $0 + 1, $0) })])
        #expect(abs(rising.agreement.pearsonR - 1) < 1e-12)
        #expect(abs(rising.agreement.bias - (truths.reduce(0, +) / 5 + 1)) < 1e-9)
        let falling = FingertipEvaluation.summarize([subject(truths.map { (200 - $0, $0) })])
        #expect(abs(falling.agreement.pearsonR + 1) < 1e-12)
        let none = FingertipEvaluation.summarize([subject([(nil, 70), (nil, 80)])])
        #expect(none.agreement.rootMeanSquareError.isNaN && none.agreement.pearsonR.isNaN && none.agreement.limitsOfAgreement == nil && none.agreement.count == 0)
    }
}
