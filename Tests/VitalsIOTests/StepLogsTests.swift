import Foundation
import MotionAnalysis
import Testing
@testable import VitalsIO

@Suite("Step logs")
struct StepLogsTests {
    func write(_ text: String, name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-steplogs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("reads the Oxford layout (no header, nanoseconds, m/s², CRLF) as seconds and g")
    func oxford() throws {
        let path = try write("1000000000000,3,0,0,9.80665\r\n1000010000000,3,9.80665,0,0\r\n1000020000000,3,0,-4.903325,0\r\n",
                             name: "accelerometer.csv")
        let r = try StepLogs.read(path: path)
        #expect(r.format == "oxford")
        #expect(r.time == [0, 0.01, 0.02])
        #expect(abs(r.acceleration[0].z - 1) < 1e-12 && abs(r.acceleration[1].x - 1) < 1e-12 && abs(r.acceleration[2].y + 0.5) < 1e-12)
    }

    @Test("an Oxford file that mixes sensor types is refused, not read as one accelerometer")
    func oxfordMixedSensors() throws {
        let path = try write("1000000000000,3,0,0,9.80665\n1000010000000,4,0.1,0.2,0.3\n1000020000000,3,0,-4.903325,0\n",
                             name: "accelerometer.csv")
        #expect(throws: InputError(.unsupportedFormat, "\(path): rows of more than one sensor type (3 and 4 at line 2); keep the accelerometer's rows only")) {
            try StepLogs.read(path: path)
        }
    }

    @Test("a headerless Oxford file with a UTF-8 byte-order mark is the Oxford layout")
    func oxfordByteOrderMark() throws {
        // The mark stayed on the first timestamp, which was then no number: the file was read as a
        // motion log, "no time column (...); header: 1000000000000,3,...".
        let path = try write("\u{FEFF}1000000000000,3,0,0,9.80665\r\n1000010000000,3,9.80665,0,0\r\n1000020000000,3,0,-4.903325,0\r\n",
                             name: "accelerometer.csv")
        let r = try StepLogs.read(path: path)
        #expect(r.format == "oxford" && r.time == [0, 0.01, 0.02] && abs(r.acceleration[1].x - 1) < 1e-12)
    }

    @Test("reads an Oxford file with the header its help names; motion-log options reach the motion-log reader")
    func oxfordHeaderAndOptions() throws {
        // The header line `timestamp_ns,sensor_type,x,y,z` made the file a motion log: "no motion
        // columns recognised (...; or pass --columns)", an option `steps` did not have.
        let rows = "1000000000000,3,0,0,9.80665\n1000010000000,3,9.80665,0,0\n1000020000000,3,0,-4.903325,0\n"
        let r = try StepLogs.read(path: try write("\u{FEFF}timestamp_ns, sensor_type,x,y,z\r\n" + rows, name: "accelerometer.csv"))
        #expect(r.format == "oxford" && r.time == [0, 0.01, 0.02] && abs(r.acceleration[1].x - 1) < 1e-12)
        // A trailing separator after the header's last name (a spreadsheet's export) is the same header.
        #expect(try StepLogs.read(path: try write("timestamp_ns,sensor_type,x,y,z,\n" + rows, name: "accelerometer.csv")).format == "oxford")
        // --accel-unit g reads an Oxford-layout file written in g (it had been ignored, and the file
        // refused as "not accelerations in the layout's (m/s²) unit").
        let inG = try StepLogs.read(path: try write("1000000000000,3,0,0,1\n1000010000000,3,1,0,0\n1000020000000,3,0,-0.5,0\n",
                                                    name: "accelerometer.csv"), options: MotionLogOptions(accelerationUnit: .g))
        #expect(abs(inG.acceleration[0].z - 1) < 1e-12 && abs(inG.acceleration[2].y + 0.5) < 1e-12)
        #expect(inG.notes.contains { $0.contains("acceleration read in g as --accel-unit says") })
        let columns0 = try MotionLogOptions.parseColumns("time=a,accel.x=b,accel.y=c,accel.z=d")
        #expect(try StepLogs.read(path: try write(rows, name: "accelerometer.csv"), options: MotionLogOptions(columns: columns0))
            .notes.contains { $0.contains("not used for the oxford layout") })
        // A motion log with unusual column names is read through the options.
        let log = "ts,p,q,r\n" + (0..<300).map { "\(Double($0) / 100),0,0,\(-1 + 0.1 * sin(Double($0) / 5))" }.joined(separator: "\n")
        let path = try write(log, name: "log.csv")
        #expect(throws: InputError.self) { try StepLogs.read(path: path) }
        let columns = try MotionLogOptions.parseColumns("time=ts,accel.x=p,accel.y=q,accel.z=r")
        #expect(try StepLogs.read(path: path, options: MotionLogOptions(columns: columns)).time.count == 300)
        // Headerless numbers of another width are not taken for a motion log's header.
        do {
            _ = try StepLogs.read(path: try write("1000000000000,3,0,0\n1000010000000,3,9.8,0\n", name: "four.csv"))
            Issue.record("expected an error")
        } catch let e as InputError {
            #expect(e.code == .unsupportedFormat && e.message.contains("timestamp_ns,sensor_type,x,y,z"))
        }
    }

    @Test("reads the IPOL layout at its stated acquisition frequency")
    func ipol() throws {
        let path = try write("""
            Acquisition frequency: 50 Hz
            PacketCounter\tAcc_X\tAcc_Y\tAcc_Z\tGyr_X\tGyr_Y\tGyr_Z
            0.0\t9.80665\t0\t0\t0\t0\t0
            1.0\t0\t9.80665\t0\t0\t0\t0
            2.0\t0\t0\t9.80665\t0\t0\t0

            """, name: "1-1_lb.txt")
        let r = try StepLogs.read(path: path)
        #expect(r.format == "ipol")
        #expect(r.time == [0, 0.02, 0.04])
        #expect(abs(r.acceleration[2].z - 1) < 1e-12)
        // The stated rate is one number and Hz: a filter keeping digits and dots read "1e2 Hz" as
        // 12 Hz and "100 Hz (v2.0)" as 1002 Hz, and "0.1 kHz" as 0.1 Hz.
        let body = "PacketCounter\tAcc_X\tAcc_Y\tAcc_Z\n0.0\t0\t0\t9.8\n1.0\t0\t0\t9.8\n"
        #expect(try StepLogs.read(path: write("Acquisition frequency: 1e2 Hz\n" + body, name: "1-1_lb.txt")).time == [0, 0.01])
        for stated in ["100 Hz (v2.0)", "0.1 kHz", "fast"] {
            #expect(throws: InputError.self, "\(stated)") {
                try StepLogs.read(path: write("Acquisition frequency: \(stated)\n" + body, name: "1-1_lb.txt"))
            }
        }
    }

    @Test("rejects a field that is not a number, naming the line")
    func notANumber() throws {
        let path = try write("1000000000000,3,0,0,9.8\n1000010000000,3,x,0,9.8\n", name: "accelerometer.csv")
        let e = #expect(throws: InputError.self) { try StepLogs.read(path: path) }
        #expect(e?.code == .notANumber)
        #expect(e?.message.contains("line 2") == true)
    }

    @Test("errors in IPOL and Oxford files name the file line")
    func errorLines() throws {
        // IPOL said "row 499" for file line 501 (data rows counted below the two header lines).
        func message(_ text: String, name: String) throws -> String {
            do { _ = try StepLogs.read(path: try write(text, name: name)) } catch let e as InputError { return e.message }
            return ""
        }
        var ipol = ["Acquisition frequency: 100 Hz", "PacketCounter\tAcc_X\tAcc_Y\tAcc_Z"]
            + (0..<600).map { "\($0).0\t0\t0\t\(9.8 + sin(Double($0) / 8))" }
        ipol[500] = "1.0\t0\t0\t9.8"
        #expect(try message(ipol.joined(separator: "\n"), name: "1-1_lb.txt").hasSuffix("time goes backwards at line 501"))
        ipol[500] = "498.0\tx\t0\t9.8"
        #expect(try message(ipol.joined(separator: "\n"), name: "1-1_lb.txt").contains("line 501, column 'Acc_X'"))
        var oxford = ["timestamp_ns,sensor_type,x,y,z"] + (0..<600).map { "\(1_000_000_000_000 + $0 * 10_000_000),3,0,0,9.8" }
        oxford[500] = "1000004990000000,3,,0,9.8"
        #expect(try message(oxford.joined(separator: "\n"), name: "accelerometer.csv").hasSuffix("line 501 has an empty or non-finite value"))
    }

    @Test("gaps over 1 s in Oxford and IPOL files are stated and counted in the JSON")
    func gaps() throws {
        // A 1-hour hole (Oxford) and 5 s of dropped IPOL packets passed without a word.
        let walk = (0..<3000).map { i -> String in
            let t = 1_000_000_000_000 + i * 10_000_000 + (i >= 1500 ? 3_600_000_000_000 : 0)
            return "\(t),3,0,0,\(9.80665 + 3 * sin(Double(i) / 8))"
        }
        let oxford = try StepLogs.read(path: try write(walk.joined(separator: "\n"), name: "accelerometer.csv"))
        #expect(oxford.gaps.count == 1 && oxford.gaps[0].index == 1500 && abs(oxford.gaps[0].seconds - 3600.01) < 1e-6)
        #expect(oxford.notes.contains { $0.hasPrefix("1 gap longer than 1 s") && $0.contains("from 14.99 s") })
        #expect(StepAnalysis(recording: oxford).json.serialized().hasSuffix(#", "gaps": 1}"#))
        var ipol = "Acquisition frequency: 100 Hz\nPacketCounter\tAcc_X\tAcc_Y\tAcc_Z\n"
        for i in 0..<3000 where !(1000..<1500).contains(i) || i % 125 == 0 { ipol += "\(i).0\t0\t0\t\(9.8 + sin(Double(i) / 8))\n" }
        let r = try StepLogs.read(path: try write(ipol, name: "1-1_lb.txt"))
        #expect(r.gaps.count == 4 && r.notes.contains { $0.hasPrefix("4 gaps longer than 1 s") && $0.contains("5.0 s in all") })
        // Short holes (dropped 0.1-s packets) are not gaps.
        let few = (0..<3000).filter { $0 % 50 != 0 }.map { "\(1_000_000_000_000 + $0 * 10_000_000),3,0,0,9.8" }
        #expect(try StepLogs.read(path: try write(few.joined(separator: "\n"), name: "accelerometer.csv")).gaps.isEmpty)
    }

    @Test("samples beyond any accelerometer's range are said to be skipped")
    func outOfRange() throws {
        // One 1e308 in an Oxford file was skipped by the pedometer without a word.
        var walk = (0..<600).map { "\(1_000_000_000_000 + $0 * 10_000_000),3,0,0,\(9.80665 + 3 * sin(Double($0) / 8))" }
        walk[500] = "1005000000000,3,1e308,0,9.8"
        let r = try StepLogs.read(path: try write(walk.joined(separator: "\n"), name: "accelerometer.csv"))
        #expect(r.notes.contains { $0.hasPrefix("1 sample with |acceleration| over 64 g") && $0.contains("line 501") })
    }

    @Test("rejects time going backwards")
    func backwards() throws {
        let path = try write("1000000000000,3,0,0,9.8\n999990000000,3,0,0,9.8\n", name: "accelerometer.csv")
        do {
            _ = try StepLogs.read(path: path)
            Issue.record("expected an error")
        } catch let e as InputError {
            #expect(e.code == .badTimestamps)
        }
    }

    @Test("a rate no pedometer can use, or accelerations that are not, is an error rather than 0 steps")
    func implausibleRateOrMagnitude() throws {
        func code(_ text: String, name: String = "accelerometer.csv") throws -> InputError.Code? {
            let path = try write(text, name: name)
            do { _ = try StepLogs.read(path: path) } catch let e as InputError { return e.code }
            return nil
        }
        let walk = (0..<200).map { "\(1_000_000_000_000 + $0 * 10_000_000),3,0,0,\(9.80665 + sin(Double($0) / 8))" }
        #expect(try code(walk.joined(separator: "\n")) == nil)
        // Milliseconds where nanoseconds belong: 100 MHz, before read as 0 steps in 2 µs.
        let ms = (0..<200).map { "\(1_000_000 + $0 * 10),3,0,0,\(9.80665 + sin(Double($0) / 8))" }
        #expect(try code(ms.joined(separator: "\n")) == .badRate)
        // One sample a second cannot show steps.
        let slow = (0..<200).map { "\(1_000_000_000_000 + $0 * 1_000_000_000),3,0,0,9.8" }
        #expect(try code(slow.joined(separator: "\n")) == .badRate)
        // All zeros (or 1e308) are no accelerometer's output.
        let zeros = (0..<200).map { "\(1_000_000_000_000 + $0 * 10_000_000),3,0,0,0" }
        #expect(try code(zeros.joined(separator: "\n")) == .unsupportedFormat)
        let huge = (0..<200).map { "\(1_000_000_000_000 + $0 * 10_000_000),3,1e308,-1e308,1e308" }
        #expect(try code(huge.joined(separator: "\n")) == .unsupportedFormat)
        // A stated frequency of 0 Hz was silently replaced by 100 Hz.
        let ipol = "Acquisition frequency: 0 Hz\nPacketCounter\tAcc_X\tAcc_Y\tAcc_Z\n"
            + (0..<200).map { "\($0).0\t0\t0\t9.8" }.joined(separator: "\n") + "\n"
        #expect(try code(ipol, name: "1-1_lb.txt") == .badRate)
        let log = "time,acc_x,acc_y,acc_z\n" + (0..<200).map { "\($0),0,0,\(-1 + 0.1 * sin(Double($0)))" }.joined(separator: "\n")
        #expect(try code(log, name: "log.csv") == .badRate)
    }

    @Test("eval steps reads Oxford files with their header line, as steps does")
    func oxfordEvaluationReadsHeaderLines() throws {
        // One header line in accelerometer.csv or stepcounter.csv had stopped the whole evaluation
        // ("'timestamp_ns' is not a number").
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-oxford-\(UUID().uuidString)").path
        let rec = dir + "/Phone_Person_Hard_InHand_1"
        try FileManager.default.createDirectory(atPath: rec, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let start = 1_000_000_000_000
        let accel = (0..<2000).map { i in "\(start + i * 10_000_000),3,0,0,\(9.80665 * (1 + 0.3 * sin(Double(i) * 0.06)))" }
        try ("timestamp_ns,sensor_type,x,y,z\n" + accel.joined(separator: "\n")).write(toFile: rec + "/accelerometer.csv", atomically: true, encoding: .utf8)
        let switches = (0..<200).map { i in "\(start + i * 100_000_000),\(i % 10 == 5 ? 1 : 0),0" }
        try ("timestamp_ns,left,right\n" + switches.joined(separator: "\n")).write(toFile: rec + "/stepcounter.csv", atomically: true, encoding: .utf8)
        try #"{"clean_steps": 20}"#.write(toFile: rec + "/steps_truth.json", atomically: true, encoding: .utf8)
        let results = try StepEvaluation.oxford(directory: dir)
        #expect(results.count == 1 && abs(results[0].firstTruthStep - 0.5) < 1e-9)
    }

    @Test("the gait gates leave out the pause gates when no trial scores a pause, instead of failing them on NaN")
    func gaitPauseGatesNeedAScoredPause() {
        var s = StepEvaluation.GaitSummary(trials: 3, f1: 0.97, precision: 0.96, recall: 0.97, medianTimingError: 0.02,
                                           resumeMedian: 1, resume95: 1.2, resumesMissing: 0, pausesScored: 0,
                                           pauseMedian: .nan, pause95: .nan, pausesMissing: 0, trialsWithFalsePause: 0,
                                           trialsWithResumeBeforeWalking: 0)
        var gates = StepEvaluation.gaitGates(s)
        #expect(gates.count == 5)  // the step and resume gates are still there
        #expect(gates.allSatisfy(\.1) && !gates.contains { $0.0.hasPrefix("pause") })
        s.pausesScored = 2
        s.pauseMedian = 1.2
        s.pause95 = 3
        gates = StepEvaluation.gaitGates(s)
        #expect(gates.first { $0.0 == "pause median <= 1.5 s" }?.1 == true)
        #expect(gates.first { $0.0 == "pause p95 <= 2.5 s" }?.1 == false)
    }

    @Test("a missing file is a clear error")
    func missing() {
        do {
            _ = try StepLogs.read(path: "/nonexistent/steps.csv")
            Issue.record("expected an error")
        } catch let e as InputError {
            #expect(e.code == .fileNotFound)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("the steps JSON has the issue's fields in order; a still recording has 0 steps, no events, null pace")
    func jsonFields() {
        let n = 3000
        let rec = AccelerationRecording(format: "oxford", source: "test", time: (0..<n).map { Double($0) / 100 },
                                        acceleration: [Vector3](repeating: Vector3(x: 0, y: 0, z: -1), count: n))
        let doc = StepAnalysis(recording: rec).json.serialized()
        #expect(doc.hasPrefix(#"{"steps": 0, "distance_m": 0, "cadence_steps_per_s": 0, "floors_ascended": null, "step_times_s": [], "events": [], "active_s": 0, "average_active_pace_s_per_m": null"#))
    }

    @Test("matching pairs each true contact with the nearest unused detection within tolerance")
    func matching() {
        let m = StepEvaluation.match(detected: [0.95, 1.1, 2.3, 5.0], truth: [1.0, 2.0, 3.0], tolerance: 0.15)
        #expect(m.matched == 1)
        #expect(abs(m.errors[0] + 0.05) < 1e-12)
    }
}

@Suite struct XsensCounterTests {
    @Test func theSixteenBitSampleCounterIsUnwrapped() {
        // 700 s at 100 Hz: the counter wraps at 65536 (it was read as time going backwards).
        let counter = (0..<70_000).map { Double($0 % 65_536) }
        let unwrapped = StepLogs.unwrapSampleCounter(counter)
        #expect(unwrapped == (0..<70_000).map(Double.init))
        #expect(StepLogs.unwrapSampleCounter([5, 4, 3]) == [5, 4, 3])  // a real step back is left for the time check
        #expect(StepLogs.unwrapSampleCounter([]) == [])
    }
}
