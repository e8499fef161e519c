import Testing
import PulseDetection
@testable import VitalsIO

@Suite struct SimulatedFingerEvaluationTests {
    @Test func measuresAgainstTheSimulatorsOwnTruth() {
        let c = SimulatedFingerEvaluation.evaluate(bpm: 120)
        #expect(abs(c.truthBPM - 120) < 1.5)  // 1 % beat-to-beat variation around 120 bpm
        #expect(c.trueBeats >= 88 && c.trueBeats <= 92)  // 45 s of beats at 2 per second
        #expect(c.contactLatencies.count == 3)  // found, lost at 20 s, found at 25 s
        #expect(c.firstRateDelays.count == 2)
        #expect(abs(c.rmssdTrue - 0.04 * 500 * 2.0.squareRoot()) < 0.25 * 0.04 * 500 * 2.0.squareRoot())
    }

    @Test func theGatesFailWhenAFigureFallsShort() {
        var c = SimulatedFingerEvaluation.evaluate(bpm: 150)
        let before = Dictionary(uniqueKeysWithValues: SimulatedFingerEvaluation.gates([c]))
        c.answeredBPM = c.truthBPM + 1.5
        c.rmssdMeasured = c.rmssdTrue * 1.06
        let after = Dictionary(uniqueKeysWithValues: SimulatedFingerEvaluation.gates([c]))
        #expect(before["whole-recording rate within 1 bpm at every rate"] == true)
        #expect(after["whole-recording rate within 1 bpm at every rate"] == false)
        #expect(after["RMSSD within 5 % of the known intervals"] == false)
    }
}
