import Foundation
import Testing
import TestSupport
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

@Test func beatsAndRPeaksWhosePartnerFallsOutsideTheRecordingAreNotScored() {
    // R-peaks every 0.8 s from 0.5 s to 39.7 s; each pulse 0.2 s later. The recording covers 0...40 s;
    // a beat at 0.1 s belongs to an R-peak at -0.1 s, before the ECG starts.
    let r = (0..<50).map { 0.5 + Double($0) * 0.8 }  // 0.5 ... 39.7
    var beats = r.map { Beat(time: $0 + 0.2, interval: 0.8, strength: 1) }
    beats.insert(Beat(time: 0.1, interval: nil, strength: 1), at: 0)  // its R-peak (-0.1 s) precedes the ECG
    let unbounded = BeatEvaluation.score(name: "t", beats: beats, rPeaks: r)
    #expect(unbounded.beats == 51 && unbounded.truePositives == 50)
    let bounded = BeatEvaluation.score(name: "t", beats: beats, rPeaks: r, span: 0...40)
    #expect(bounded.beats == 50 && bounded.positivePredictiveValue == 1)
    // A reference whose pulse would come after the end is not missed.
    let shortBeats = Array(beats.dropLast())  // the PPG ends before the last pulse
    let cut = BeatEvaluation.score(name: "t", beats: shortBeats, rPeaks: r, span: 0...39.8)
    #expect(cut.references == 49 && cut.sensitivity == 1)
}

@Test func recordingsWhoseClockDoesNotStartAtZeroAreScoredOnTheirOwnClock() throws {
    // A PPG and its R-peaks both 100 s into their clock: the analysis counts from the first sample,
    // the R-peaks from the file's zero; the scores must not depend on where the clock starts.
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-beats-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    try writeSimulatedPPGWithRPeaks(directory: dir.path, name: "r", clockOffset: 100)
    let e = try #require(try BeatEvaluation.run(directory: dir.path).first)
    #expect(e.sensitivity > 0.9)
    #expect(e.positivePredictiveValue > 0.9)
}

@Test func everyMatchedIntervalIsScoredAndThoseHRVKeepsAreAlsoScoredApart() {
    // Beats on every R-peak (0.2 s later), one 40 ms late and flagged an artefact: the IBI
    // figure counts both intervals it touches; the HRV figure leaves out the one HRV rejected.
    let r = (0..<20).map { Double($0) * 0.8 }
    var beats = r.map { Beat(time: $0 + 0.2, interval: 0.8, strength: 1) }
    beats[10].time += 0.04
    beats[10].isArtifact = true
    let e = BeatEvaluation.score(name: "t", beats: beats, rPeaks: r)
    #expect(e.intervalErrorsMS.count == 19)
    #expect(e.intervalErrorsMS.filter { $0 > 30 }.count == 2)
    #expect(e.keptIntervalErrorsMS.count == 18)
    #expect(e.keptIntervalErrorsMS.filter { $0 > 30 }.count == 1)
}

@Test func halfAndDoubleRatesAreWithinTenPercentOfHalfOrTwiceTheTruth() {
    #expect(FingertipEvaluation.isHalfOrDouble(40, truth: 80))
    #expect(FingertipEvaluation.isHalfOrDouble(43.9, truth: 80) && !FingertipEvaluation.isHalfOrDouble(44.1, truth: 80))
    #expect(FingertipEvaluation.isHalfOrDouble(175.9, truth: 80) && !FingertipEvaluation.isHalfOrDouble(176.1, truth: 80))
    #expect(!FingertipEvaluation.isHalfOrDouble(80, truth: 80))
}

/// A folder like MTHS with the faults a held-back set may have: one recording repeats a timestamp
/// (unreadable), one truth file has no value, one recording and one truth file have no partner.
/// The evaluation scores what it can: the unreadable subject's windows count as not answered, the
/// subject without truth is left out of the whole-recording count, the unpaired files are listed.
@Test func fingertipEvaluationScoresWhatItCanOfAFaultyFolder() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-mths-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    var s = SimulatedFinger.Settings()
    s.bpm = 75
    var finger = SimulatedFinger(settings: s)
    var colour = "time_s,r,g,b\n"
    for case .color(let c) in finger.inputs(duration: 40) { colour += "\(c.time),\(c.red),\(c.green),\(c.blue)\n" }
    let truth = "time_s,hr_bpm\n" + (0..<40).map { "\($0),75" }.joined(separator: "\n")
    func write(_ text: String, _ name: String) throws { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
    try write(colour, "subject_01.csv")
    try write(truth, "subject_01_truth.csv")
    var lines = colour.split(separator: "\n", omittingEmptySubsequences: false)
    lines.insert(lines[300], at: 300)  // the same time twice
    try write(lines.joined(separator: "\n"), "subject_02.csv")
    try write(truth, "subject_02_truth.csv")
    try write(colour, "subject_03.csv")
    try write("time_s,hr_bpm\n" + (0..<40).map { "\($0)," }.joined(separator: "\n"), "subject_03_truth.csv")
    try write(colour, "subject_04.csv")
    try write(truth, "subject_05_truth.csv")
    // Times on a Unix clock against an oximeter counted from 0: no window can be scored.
    var epoch = "time_s,r,g,b\n"
    var fingerAgain = SimulatedFinger(settings: s)
    for case .color(let c) in fingerAgain.inputs(duration: 40) { epoch += "\(c.time + 1.7e9),\(c.red),\(c.green),\(c.blue)\n" }
    try write(epoch, "subject_06.csv")
    try write(truth, "subject_06_truth.csv")

    let e = try FingertipEvaluation.run(directory: dir.path)
    #expect(e.subjects.map(\.name) == ["subject_01", "subject_02", "subject_03", "subject_06"])
    #expect(e.subjects[3].windows.isEmpty && e.subjects[3].truthNotes.contains { $0.contains("do not overlap") })
    #expect(e.unpaired == ["subject_04.csv (no subject_04_truth.csv)", "subject_05_truth.csv (no subject_05.csv)"])
    let unreadable = e.subjects[1]
    #expect(unreadable.failure?.contains("does not increase") == true)
    #expect(unreadable.windows.count == 4 && unreadable.windows.allSatisfy { $0.bpm == nil })
    #expect(e.subjects[0].failure == nil && e.subjects[0].windows.count == 4)
    let summary = FingertipEvaluation.summarize(Array(e.subjects.prefix(3)))
    #expect(summary.subjects == 2)  // subject_03 has no oximeter value to be scored against
    #expect(summary.scored == 8)
}

/// R-peak times that cannot be a reference are refused with their line, not scored as 0 %.
@Test func aReferenceThatCannotBeOneIsRefused() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("beats-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var ppg = "time_s,ppg\n"
    for i in 0..<3000 {
        let t = Double(i) / 100
        ppg += "\(t),\(sin(2 * .pi * 1.2 * t))\n"
    }
    try ppg.write(toFile: dir + "/r.csv", atomically: true, encoding: .utf8)
    let peaks = (0..<35).map { Double($0) / 1.2 }
    func run(_ times: [String]) throws -> [BeatEvaluation] {
        try ("time_s\n" + times.joined(separator: "\n") + "\n").write(toFile: dir + "/r_rpeaks.csv", atomically: true, encoding: .utf8)
        return try BeatEvaluation.run(directory: dir)
    }
    #expect(try run(peaks.map { "\($0)" }).count == 1)
    var withNaN = peaks.map { "\($0)" }
    withNaN[4] = "nan"
    #expect { try run(withNaN) } throws: { "\($0)".contains("line 6, column 'time_s' is empty or not finite") }
    #expect { try run(peaks.reversed().map { "\($0)" }) } throws: { "\($0)".contains("does not increase") }
    #expect { try run(peaks.map { "\($0 * 1000)" }) } throws: { "\($0)".contains("lie outside the recording") }
    #expect { try run(["1.0"]) } throws: { "\($0)".contains("at least 2") }
}
