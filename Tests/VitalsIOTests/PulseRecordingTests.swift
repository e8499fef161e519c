import Foundation
import PulseDetection
import SignalProcessing
import Testing
@testable import VitalsIO

@Suite struct PulseRecordingTests {
    private func load(_ text: String, column: String? = "ppg", rate: Double? = nil) throws -> PulseRecording {
        try PulseRecording.load(try CSVFile(bytes: Array(text.utf8), source: "t.csv"), column: column, rate: rate)
    }

    private func sine(rows: Int, rate: Double, time: (Int) -> Double = { Double($0) }) -> String {
        "time_s,ppg\n" + (0..<rows).map { i in "\(time(i) / rate),\(sin(Double(i) / 5))" }.joined(separator: "\n")
    }

    /// A recording at exactly the lowest rate (5 Hz) is read, from times or from --rate: its steps of
    /// 0.2 s plus rounding were counted as holes and the file refused as too irregular.
    @Test func aRecordingAtTheMinimumRateIsRead() throws {
        let timed = try load(sine(rows: 200, rate: 5))
        #expect(abs(timed.sampleRate - 5) < 1e-9)
        let untimed = try load("ppg\n" + (0..<200).map { "\(sin(Double($0) / 5))" }.joined(separator: "\n"), rate: 5)
        #expect(untimed.inputs.count == 200)
    }

    @Test func measuresTheRateFromTimestampsAndStartsTimeAtZero() throws {
        let text = "time_s,ppg\n" + (0..<500).map { "\(100 + Double($0) / 50),\(sin(Double($0) / 5))" }.joined(separator: "\n")
        let r = try load(text)
        #expect(abs(r.sampleRate - 50) < 1e-9)
        #expect(try r.inputs.array().first?.time == 0)
        #expect(abs(r.duration - 9.98) < 1e-9)
    }

    /// Colour means exported as 0-1 fractions read as a dark, unlit frame (rate declined as "signal
    /// quality too low"); they are scaled to 0-255, with a note, and give the same rate.
    @Test func colourMeansAsFractionsAreScaledAndSaid() throws {
        var finger = SimulatedFinger(settings: SimulatedFinger.Settings())
        let frames = finger.inputs(duration: 20).compactMap { if case .color(let c) = $0 { c } else { nil } }
        func csv(_ scale: Double) -> String {
            "time_s,r,g,b\n" + frames.map { "\($0.time),\($0.red * scale),\($0.green * scale),\($0.blue * scale)" }.joined(separator: "\n")
        }
        let bytes = try load(csv(1), column: nil), fractions = try load(csv(1 / 255), column: nil)
        #expect(bytes.notes.isEmpty)
        #expect(fractions.notes.count == 1 && fractions.notes[0].contains("0-1 values"))
        let a = try bytes.analyse().heartRate
        let b = try fractions.analyse().heartRate
        #expect(a != nil && b != nil && abs(a!.bpm - b!.bpm) < 0.5)
    }

    /// 16-bit colour means (x257) passed the channel-level floor, which is in 0-255 units, and
    /// brought back near-black channels' ripple as confident 60-bpm answers; they are scaled back.
    @Test func deeperColourMeansAreScaledToBytesAndSaid() throws {
        var finger = SimulatedFinger(settings: SimulatedFinger.Settings())
        let frames = finger.inputs(duration: 10).compactMap { if case .color(let c) = $0 { c } else { nil } }
        let text = "time_s,r,g,b\n" + frames.map { "\($0.time),\($0.red * 257),\($0.green * 257),\($0.blue * 257)" }.joined(separator: "\n")
        let r = try load(text, column: nil)
        #expect(r.notes.count == 1 && r.notes[0].contains("16-bit"))
        // 8-bit means converted from Y'CbCr without clipping pass 255 (a saturated red reaches
        // about 434): they are left as they are.
        let unclipped = try load("time_s,r,g,b\n" + (0..<300).map { "\(Double($0) / 30),\(300 + 5 * sin(Double($0) / 4)),-0.5,20" }.joined(separator: "\n"), column: nil)
        #expect(unclipped.notes.isEmpty)
        #expect(try r.inputs.array().count == frames.count)
        for (input, frame) in zip(try r.inputs.array(), frames) {
            guard case .color(let c) = input else { Issue.record("expected colour"); return }
            #expect(abs(c.red - frame.red) < 1e-9 && abs(c.blue - frame.blue) < 1e-9)
        }
    }

    @Test func timesInAMillisecondColumnAreRead() throws {
        let r = try load("time_ms,ppg\n" + (0..<300).map { "\(Double($0) * 10),\(sin(Double($0) / 4))" }.joined(separator: "\n"))
        #expect(abs(r.sampleRate - 100) < 1e-6 && abs(r.duration - 2.99) < 1e-9)
        #expect(r.notes.contains { $0.contains("time_ms") })
    }

    /// A PPG recorded as absorbance times each beat at the diastolic fall unless it is read with
    /// `.inverted`, which turns it back: the same beats as the upright recording.
    @Test func anInvertedPPGIsReadTheRightWayUpWhenSaidSo() throws {
        var s = SimulatedFinger.Settings()
        s.output = .ppg
        s.frameRate = 100
        var finger = SimulatedFinger(settings: s)
        let samples = finger.inputs(duration: 60).compactMap { if case let .ppg(t, v) = $0 { (t, v) } else { nil } }
        func csv(_ sign: Double) -> CSVFile {
            try! CSVFile(bytes: Array(("time_s,ppg\n" + samples.map { "\($0.0),\(sign * $0.1)" }.joined(separator: "\n")).utf8), source: "t.csv")
        }
        let upright = try PulseRecording.load(csv(1), column: "ppg")
        let inverted = try PulseRecording.load(csv(-1), column: "ppg")
        let turned = try PulseRecording.load(csv(-1), column: "ppg", polarity: .inverted)
        let beats = { (r: PulseRecording) in try r.analyse().beats.map(\.time) }
        #expect(try beats(turned) == beats(upright))
        #expect(try beats(inverted) != beats(upright))
    }

    @Test func colourColumnsMakeColourInputs() throws {
        let text = "time_s,r,g,b\n" + (0..<100).map { "\(Double($0) / 30),250,\(30 + sin(Double($0))),20" }.joined(separator: "\n")
        let r = try load(text, column: nil)
        #expect(r.columns == "r,g,b")
        guard case .color(let c) = try r.inputs.array()[0] else {
            Issue.record("expected colour input")
            return
        }
        #expect(c.red == 250 && c.blue == 20)
    }

    @Test func aMissingColumnNamesTheColumnsThatExist() {
        #expect(throws: InputError(.missingColumn, "t.csv: no r,g,b colour columns; name the signal column with --column (columns: time_s,x)")) {
            try load("time_s,x\n0,1\n1,2\n", column: nil)
        }
    }

    @Test("a column read that shares its name with another is refused (the first was read without a word)")
    func aDuplicatedColumnNameIsRefused() {
        #expect(throws: InputError(.duplicateColumn, "t.csv: columns 3 and 4 are both named 'g': rename one (header: time_s,r,g,G,b)")) {
            try load("time_s,r,g,G,b\n0,200,50,60,40\n1,201,51,61,41\n", column: nil)
        }
        #expect(throws: InputError.self) { try load("time_s,ppg,ppg\n0,1,2\n1,2,3\n", column: "ppg") }
        // A duplicated column that is not read is no problem.
        let rows = (0..<300).map { "\(Double($0) / 30),\(200 + $0 % 3),50,40,1,1" }.joined(separator: "\n")
        #expect(throws: Never.self) { try load("time_s,r,g,b,x,x\n" + rows, column: nil) }
    }

    @Test func noTimeColumnAsksForTheRate() throws {
        #expect(throws: InputError.self) { try load("ppg\n1\n2\n3\n") }
        let r = try load("ppg\n" + (0..<300).map { "\(sin(Double($0) / 4))" }.joined(separator: "\n"), rate: 100)
        #expect(r.sampleRate == 100 && abs(r.duration - 2.99) < 1e-9)
    }

    @Test func timestampsThatRepeatOrGoBackAreRejectedWithTheirLine() {
        let repeated = sine(rows: 300, rate: 100) { $0 == 100 ? 99 : Double($0) }
        #expect(throws: InputError(.badTimestamps, "t.csv: line 102: time 0.99 s does not increase (previous 0.99 s)")) {
            try load(repeated)
        }
    }

    @Test func errorsNameTheFileLineEvenAfterBlankLines() {
        // Blank lines are skipped as data but still count as lines of the file.
        #expect(throws: InputError(.nonFinite, "t.csv: line 5, column 'ppg' has the value 1e+200, beyond ±1e+100 (no sensor reads that)")) {
            try load("time_s,ppg\n0,1\n\n0.01,2\n0.02,1e200\n0.03,1\n")
        }
        let rows = (0..<300).map { "\(Double($0 == 200 ? 199 : $0) / 100),\(sin(Double($0) / 4))" }
        let spaced = "time_s,ppg\n" + rows[..<100].joined(separator: "\n") + "\n\n\n" + rows[100...].joined(separator: "\n")
        #expect(throws: InputError(.badTimestamps, "t.csv: line 204: time 1.99 s does not increase (previous 1.99 s)")) {
            try load(spaced)
        }
    }

    @Test func videoFramesAreNamedAsFramesInErrors() {
        let frames = (0..<60).map { ColorSample(time: $0 == 30 ? 0.9 : Double($0) / 30, red: 200, green: 50, blue: 40) }
        #expect(throws: InputError(.badTimestamps, "v.mp4: frame 31: time 0.9 s does not increase (previous 0.9666666666666667 s)")) {
            try PulseRecording.colors(frames, source: "v.mp4")
        }
    }

    @Test func nonFiniteValuesAreRejected() {
        #expect(throws: InputError.self) { try load("time_s,ppg\n0,1\n0.01,nan\n0.02,1\n") }
        #expect(throws: InputError.self) { try load("time_s,ppg\n0,1\n0.01,inf\n0.02,1\n") }
    }

    @Test func valuesNoSensorReadsAreRejectedWithTheirLine() {
        #expect(throws: InputError(.nonFinite, "t.csv: line 3, column 'ppg' has the value 1e+200, beyond ±1e+100 (no sensor reads that)")) {
            try load("time_s,ppg\n0,1\n0.01,1e200\n0.02,1\n")
        }
    }

    @Test func timesInMillisecondsAreSuspectedByName() {
        #expect(throws: InputError(.badRate, "t.csv: sample rate 0.1 Hz is outside 5 Hz...10 kHz (are the times in milliseconds? time_s must be seconds)")) {
            try load(sine(rows: 300, rate: 100) { Double($0) * 1000 })
        }
    }

    @Test func aMissingDirectoryIsNamedByTheEvaluations() {
        #expect(throws: InputError(.fileNotFound, "/no/such/dir: no such directory")) {
            try FingertipEvaluation.run(directory: "/no/such/dir")
        }
        #expect(throws: InputError(.fileNotFound, "/no/such/dir: no such directory")) {
            try BeatEvaluation.run(directory: "/no/such/dir")
        }
    }

    @Test func absurdRatesAndFlatSignalsAreRejected() {
        #expect(throws: InputError.self) { try load(sine(rows: 100, rate: 2)) }
        #expect(throws: InputError.self) { try load(sine(rows: 300_000, rate: 100_000)) }
        let flat = "time_s,ppg\n" + (0..<500).map { "\(Double($0) / 100),1.5" }.joined(separator: "\n")
        #expect(throws: InputError(.flatSignal, "t.csv: the signal (ppg) is flat: no pulse to measure")) { try load(flat) }
    }

    @Test func gapsOverOneSecondAreReportedNotRejected() throws {
        let r = try load(sine(rows: 1000, rate: 100) { $0 >= 500 ? Double($0) + 300 : Double($0) })
        #expect(r.gaps.count == 1)
        #expect(abs(r.gaps[0].from - 4.99) < 1e-9 && abs(r.gaps[0].to - 8.0) < 1e-9)
    }

    @Test func aStatedRateThatContradictsTheTimeColumnIsAnError() throws {
        // Before: --rate 100 on a 50 Hz file was reported as sample_rate_hz 100 and set the pipeline up for it.
        #expect(throws: InputError.self) { try load(sine(rows: 500, rate: 50), rate: 100) }
        #expect(abs(try load(sine(rows: 500, rate: 50), rate: 50).sampleRate - 50) < 1e-9)
        #expect(abs(try load(sine(rows: 500, rate: 50), rate: 50.5).sampleRate - 50.5) < 1e-9)
    }

    @Test func samplingTooSparseBetweenGapsIsAnErrorNotARate() throws {
        // Every other interval 0.9 s (under the 1-s gap limit), the others 1/30 s: the median says
        // 30 Hz, but 96 % of the time lies in 0.9-s holes. Before: a heart rate of 44 bpm.
        var t = 0.0
        let uneven = sine(rows: 600, rate: 1) { i in
            defer { t += i % 2 == 1 ? 0.9 : 1.0 / 30 }
            return t
        }
        do {
            _ = try load(uneven)
            Issue.record("expected an error")
        } catch let e as InputError {
            #expect(e.code == .badTimestamps)
        }
        // 2 % of frames dropped at 30 fps, and a real gap of 5 s, are fine.
        var u = 0.0
        let dropped = sine(rows: 900, rate: 1) { i in
            defer { u += (i % 50 == 0 ? 2.0 : 1.0) / 30 + (i == 450 ? 5 : 0) }
            return u
        }
        let r = try load(dropped)
        #expect(r.gaps.count == 1)
    }

    @Test func noiseWhoseRateIsDeclinedGetsNoHRVEither() throws {
        // White noise: the rate is declined, yet the beat tracker finds "beats" and their HRV was reported.
        var g = SplitMix64(seed: 5)
        let text = "time_s,ppg\n" + (0..<900).map { "\(Double($0) / 30),\(g.gaussian())" }.joined(separator: "\n")
        let recording = try load(text)
        let analysis = try recording.analyse()
        #expect(analysis.heartRate == nil)
        #expect(HRVReport.json(analysis.hrv) != .null)  // what would have been reported
        let report = HeartRateReport.json(input: "t.csv", recording: recording, analysis: analysis,
                                          hrv: HRVReport.json(analysis.hrv), window: nil)
        guard case .object(let fields) = report else {
            Issue.record("not an object")
            return
        }
        #expect(fields.first { $0.0 == "hrv" }?.1 == .null)
        // Each beat says whether the rate was declined when it was found: most of noise's are.
        guard let beats = fields.first(where: { $0.0 == "beats" })?.1.elements, !beats.isEmpty else {
            Issue.record("no beats")
            return
        }
        let declined = beats.filter { beat in
            guard case .object(let b) = beat else { return false }
            return b.first { $0.0 == "rate_declined" }?.1 == .bool(true)
        }
        #expect(Double(declined.count) >= 0.75 * Double(beats.count), "\(declined.count) of \(beats.count)")
    }

    @Test func prematureBeatsAreReportedAsEctopicInTheJSON() throws {
        // 90 s of PPG at 100 Hz, 70 bpm with ±2 % sinus arrhythmia; every 15th beat comes 15 % early
        // and is followed by a full compensatory pause.
        var beatTimes: [Double] = []
        var t = 0.5, premature: [Double] = []
        for k in 0..<105 {
            var interval = 0.857 * (1 + 0.02 * sin(2 * Double.pi * 0.25 * t))
            if k % 15 == 14 { interval *= 0.85 }
            if k % 15 == 0 && k > 0 { interval = 0.857 * 1.15 }
            t += interval
            if k % 15 == 14 && t < 88 { premature.append(t) }  // within the 90 s
            beatTimes.append(t)
        }
        var g = SplitMix64(seed: 3)
        let rows = (0..<9000).map { i -> String in
            let time = Double(i) / 100
            var v = 0.01 * g.gaussian()
            for b in beatTimes where abs(time - b - 0.2) < 0.6 {
                v += exp(-pow((time - b - 0.15) / 0.09, 2)) + 0.3 * exp(-pow((time - b - 0.45) / 0.1, 2))
            }
            return "\(time),\(v)"
        }
        let recording = try load("time_s,ppg\n" + rows.joined(separator: "\n"))
        let analysis = try recording.analyse()
        let report = HeartRateReport.json(input: "t.csv", recording: recording, analysis: analysis,
                                          hrv: HRVReport.json(analysis.hrv), window: nil)
        guard case .object(let fields) = report, let beats = fields.first(where: { $0.0 == "beats" })?.1.elements,
              case .object(let hrv)? = fields.first(where: { $0.0 == "hrv" })?.1 else {
            Issue.record("no beats or no HRV")
            return
        }
        var ectopicTimes: [Double] = []
        for case .object(let b) in beats where b.first(where: { $0.0 == "ectopic" })?.1 == .bool(true) {
            guard case .number(let time)? = b.first(where: { $0.0 == "time_s" })?.1 else { continue }
            ectopicTimes.append(time)
            #expect(b.first { $0.0 == "artifact_reason" }?.1 == .string("ectopic_or_misplaced_beat"))
        }
        // The beat time is the upstroke, about 0.1 s after the simulated onset.
        let found = premature.filter { p in ectopicTimes.contains { abs($0 - p - 0.1) < 0.1 } }
        #expect(found.count == premature.count, "\(found.count) of \(premature.count) premature beats marked ectopic")
        #expect(ectopicTimes.count == premature.count)
        #expect(hrv.first { $0.0 == "ectopic_beats" }?.1 == .number(Double(ectopicTimes.count)))
    }

    @Test func aHopGivingMillionsOfWindowsIsAnErrorNotAHang() throws {
        for (d, l, h) in [(26.0, 10.0, 5.0), (9.9, 10.0, 5.0), (30, 0.5, 0.5), (30, 10, 1e9), (10, 10, 3)] {
            #expect(HeartRateReport.windowCount(duration: d, length: l, hop: h)
                    == Double(HeartRateReport.windowStarts(duration: d, length: l, hop: h).count))
        }
        #expect(throws: InputError.self) { try HeartRateReport.checkWindows(duration: 30, length: 10, hop: 1e-6, source: "t") }
        #expect(throws: InputError.self) { try HeartRateReport.checkWindows(duration: 30, length: 1e-9, hop: 1e-9, source: "t") }
        try HeartRateReport.checkWindows(duration: 86_400, length: 10, hop: 1, source: "t")
    }

    @Test func windowStartsFollowTheIssuesRule() {
        #expect(HeartRateReport.windowStarts(duration: 26, length: 10, hop: 5) == [0, 5, 10, 15])
        #expect(HeartRateReport.windowStarts(duration: 9.9, length: 10, hop: 5) == [])
    }

    @Test func jsonKeepsKeyOrderAndWritesNullsForMissingNumbers() {
        let doc = JSON.object([("bpm", .num(nil)), ("x", .num(.nan)), ("n", .number(3)), ("f", .num(1.23456, digits: 2)),
                               ("s", .string("a\"b"))])
        #expect(doc.serialized() == #"{"bpm": null, "x": null, "n": 3, "f": 1.23, "s": "a\"b"}"#)
    }

    @Test func numbersTooLargeToRoundStayNumbersAndJSONNeverHoldsInfinity() {
        // 1e306 s scaled by 10^3 for rounding is infinite: the value is kept, not written as "inf".
        #expect(JSON.num(1e306, digits: 3).serialized() == "1e+306")
        #expect(JSON.number(.infinity).serialized() == "null")
    }
}

@Test func windowsCoverTheLastFrameInterval() throws {
    // A minute of 30-fps frames: the last frame is at 59.97 s but stands for the frame time after it,
    // so 10-s windows every 5 s end with 50-60 s.
    let rows = (0..<1800).map { "\(Double($0) / 30),\(200 + sin(Double($0) / 5)),40,30" }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-cover-\(UUID().uuidString).csv").path
    try ("time_s,r,g,b\n" + rows.joined(separator: "\n")).write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let r = try PulseRecording.load(path: path)
    #expect(abs(r.coveredDuration - 60) < 1e-9)
    #expect(HeartRateReport.windowStarts(duration: r.coveredDuration, length: 10, hop: 5).last == 50)
    #expect(HeartRateReport.windowStarts(duration: r.duration, length: 10, hop: 5).last == 45)
}
