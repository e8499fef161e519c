import Foundation
import Testing
@testable import VitalsIO
import PulseDetection

@Test func aSpuriousRPeakMarksItsNeighboursImplausibleAndNothingElse() {
    var r = (0..<40).map { Double($0) * 0.8 }
    r.insert(20 * 0.8 + 0.3, at: 21)  // an extra R-peak 0.3 s after the 21st
    let marks = BeatEvaluation.implausibleReferences(r)
    #expect(marks.indices.filter { marks[$0] } == [20, 21, 22])
}

@Test func beatsOnEveryPlausibleRPeakScoreFullyWhereTheReferenceIsPlausible() {
    var r = (0..<60).map { Double($0) * 0.8 }
    r.insert(30 * 0.8 + 0.3, at: 31)
    // The pulse follows each true R-peak by 0.2 s; the spurious R-peak has no pulse.
    let beats = (0..<60).map { Beat(time: Double($0) * 0.8 + 0.2, interval: 0.8, strength: 1) }
    let e = BeatEvaluation.score(name: "t", beats: beats, rPeaks: r)
    #expect(e.sensitivity < 1)
    #expect(e.sensitivityPlausible == 1)
    #expect(e.ppvPlausible == 1)
    #expect(abs(e.arrivalDelay - 0.2) < 1e-9)
}

@Test func theBeatRateOfARecordingAgreesWithItsPulse() throws {
    var s = SimulatedFinger.Settings()
    s.bpm = 64
    var finger = SimulatedFinger(settings: s)
    let analysis = PulseAnalysis.run(finger.inputs(duration: 60), sampleRate: 30)
    let beats = try #require(FingertipEvaluation.beatRate(analysis))
    #expect(beats.intervals >= 40)
    #expect(abs(beats.bpm - 64) < 2)
}

@Test func anArrivalDelayNearlyAsLongAsAnIntervalIsFoundAsSuch() {
    // R-R 0.58 s and the pulse 0.57 s after its R-peak, with ±25 ms of spread: the lag from each beat
    // to the R-peak before it splits between ~0 and ~0.57 s, and their median lands in between.
    let r = (0..<200).map { Double($0) * 0.58 }
    let beats = (0..<199).map { k -> Beat in
        let jitter = 0.025 * sin(Double(k) * 1.7)
        return Beat(time: r[k] + 0.57 + jitter, interval: 0.58, strength: 1)
    }
    let e = BeatEvaluation.score(name: "t", beats: beats, rPeaks: r)
    #expect(abs(e.arrivalDelay - 0.57) < 0.01, "delay \(e.arrivalDelay)")
    #expect(e.sensitivity > 0.98)
}
