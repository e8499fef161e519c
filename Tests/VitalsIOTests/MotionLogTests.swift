import Foundation
import Testing
import MotionAnalysis
@testable import VitalsIO

@Suite struct MotionLogTests {
    func parse(_ text: String, _ options: MotionLogOptions = MotionLogOptions()) throws -> MotionLog {
        try MotionLog.parse(bytes: Array(text.utf8), source: "test.csv", options: options)
    }

    private func rawLog(rows: Int, dt: Double, gyroScale: Double = 1) -> String {
        "time,acc_x,acc_y,acc_z,gyro_x,gyro_y,gyro_z\n" + (0..<rows).map { i -> String in
            let t = Double(i) * dt
            return "\(t),0,0,\(-1 + 0.05 * sin(Double(i) / 3)),\(0.2 * sin(Double(i) / 7) * gyroScale),0.1,\(0.3 * gyroScale)"
        }.joined(separator: "\n")
    }

    @Test func rotationRatesBeyondEveryGyroscopeAreAnErrorWhateverTheUnit() throws {
        #expect(try parse(rawLog(rows: 200, dt: 0.02)).rotationRate != nil)
        // 1e200 was read as deg/s and the log analysed; 100 rad/s named as deg/s is 1.7 rad/s, fine.
        for (scale, unit) in [(1e200, nil), (1e200, RotationUnit.degreesPerSecond), (300.0, RotationUnit.radiansPerSecond)] as [(Double, RotationUnit?)] {
            #expect(throws: InputError.self) { try self.parse(self.rawLog(rows: 200, dt: 0.02, gyroScale: scale), MotionLogOptions(rotationUnit: unit)) }
        }
        #expect(try parse(rawLog(rows: 200, dt: 0.02, gyroScale: 300), MotionLogOptions(rotationUnit: .degreesPerSecond)).rotationRate != nil)
    }

    @Test func samplesBeyondEverySensorsRangeAreDroppedAndSaid() throws {
        // One gyro value of 1e200 turned a tennis log's 6 reps into 0, and an acceleration of 1e155
        // printed an impact of "inf g": such rows are dropped (as NaN rows are), with a note naming
        // the first one's line and column.
        var lines = rawLog(rows: 300, dt: 0.01).split(separator: "\n").map(String.init)
        lines[101] = "1.0,0,0,-1,1e200,0.1,0.3"
        lines[201] = "2.0,1e155,0,-1,0,0.1,0.3"
        let log = try parse(lines.joined(separator: "\n"))
        #expect(log.count == 298)
        #expect(log.notes.contains { $0.contains("dropped 2 of 300 rows") && $0.contains("line 102, column 'gyro_x'") })
        #expect(log.rotationRate!.allSatisfy { max(abs($0.x), abs($0.y), abs($0.z)) <= MotionLog.maximumRotationRate })
        #expect(log.acceleration!.allSatisfy { $0.magnitude <= MotionLog.maximumAcceleration })
        // 100 g in m/s² (981) is beyond the limit too; 10 g (98) is a hard impact and kept.
        lines = rawLog(rows: 300, dt: 0.01).split(separator: "\n").map(String.init)
        lines = [lines[0]] + lines.dropFirst().map { l in
            var f = l.split(separator: ",").map(String.init)
            f[3] = String(Double(f[3])! * -9.80665)
            return f.joined(separator: ",")
        }
        lines[50] = "0.49,0,0,981,0,0.1,0.3"
        lines[60] = "0.59,0,0,98,0,0.1,0.3"
        let mps2 = try parse(lines.joined(separator: "\n"))
        #expect(mps2.count == 299)
        #expect(mps2.acceleration!.contains { abs($0.z + 10) < 0.1 })
        // Every row out of range: an error, not an empty log.
        let all = "time,acc_x,acc_y,acc_z\n" + (0..<50).map { "\(Double($0) * 0.01),0,0,-100" }.joined(separator: "\n")
        #expect(throws: InputError.self) { try self.parse(all, MotionLogOptions(accelerationUnit: .g)) }
    }

    @Test func aRateFasterThanAnyMotionSensorIsAnError() throws {
        // Microseconds read as seconds: 1 MHz, before analysed as 3 ms of motion.
        do {
            _ = try parse(rawLog(rows: 300, dt: 1e-6))
            Issue.record("expected an error")
        } catch let e as InputError {
            #expect(e.code == .badRate)
        }
        let slow = try parse(rawLog(rows: 300, dt: 1))
        #expect(throws: InputError.self) { try slow.requireSampleRate(atLeast: 4, for: "the motion detectors") }
        // 100 Hz in milliseconds read as seconds is 0.1 Hz: the error asks whether they are milliseconds
        // (it did not); 1 Hz in dates or named milliseconds is not asked about.
        func message(_ log: MotionLog) -> String {
            do { try log.requireSampleRate(atLeast: 4, for: "the motion detectors") } catch let e as InputError { return e.message } catch {}
            return ""
        }
        #expect(message(try parse(rawLog(rows: 300, dt: 10))).contains("milliseconds?"))
        #expect(!message(slow).contains("milliseconds?"))
        let named = "time_ms" + rawLog(rows: 300, dt: 10_000).dropFirst(4)
        let namedMessage = message(try parse(named))
        #expect(namedMessage.contains("is too slow") && !namedMessage.contains("milliseconds?"))
        try parse(rawLog(rows: 300, dt: 0.1)).requireSampleRate(atLeast: 4, for: "the motion detectors")
    }

    @Test func timesNearTheLargestDoubleAreAnErrorNotATrap() {
        // A median step of 1e289 was converted with Int() for the "read as nanoseconds" note and
        // trapped; now the note states it and the rate check rejects the log.
        let text = "time,acc_x,acc_y,acc_z\n" + (0..<50).map { "\(1e300 + Double($0) * 1e289),0,0,-1" }.joined(separator: "\n")
        #expect(throws: InputError.self) { try self.parse(text).requireSampleRate(atLeast: 1, for: "a test") }
        #expect(MotionLog.timeScaleFromSpacing([0, 1e300, 2e300, 3e300])?.note == "time column read as nanoseconds (median step 1e+300)")
    }

    @Test func hugeNegativeTimeStepsAreAnErrorNotATrap() {
        // A median step of -1e20 trapped in Int() before the check that time increases.
        let text = "time,acc_x,acc_y,acc_z\n" + (0..<50).map { "\(-Double($0) * 1e20),0,0,-1" }.joined(separator: "\n")
        #expect(throws: InputError.self) { try self.parse(text) }
    }

    @Test func epochMicrosecondsAreReadAsMicroseconds() throws {
        // 100 Hz in epoch microseconds was announced as epoch milliseconds and rejected as 0.1 Hz.
        let text = "time,acc_x,acc_y,acc_z\n" + (0..<300).map { "\(1_700_000_000_000_000 + $0 * 10_000),0,0,-1" }.joined(separator: "\n")
        let log = try parse(text)
        #expect(abs(log.sampleRate - 100) < 1e-3)
        #expect(log.notes.contains { $0.contains("epoch microseconds") })
    }

    @Test func aFastGyroLogInRadiansPerSecondIsRead() throws {
        // 42 rad/s (2400 deg/s) is within the 4000 deg/s gyroscopes; it was rejected as "not rad/s".
        let log = try parse(rawLog(rows: 200, dt: 0.01, gyroScale: 140), MotionLogOptions(rotationUnit: .radiansPerSecond))
        #expect(abs((log.rotationRate?.map(\.z).max() ?? 0) - 42) < 0.01)
    }

    @Test func gravityWithRawAccelerationGivesUserAcceleration() throws {
        // Gravity and total acceleration but no user acceleration: user = total - gravity (it was zero,
        // so no stroke or impact could ever pass its acceleration gate).
        let text = "time,gravity_x,gravity_y,gravity_z,acc_x,acc_y,acc_z,gyro_x,gyro_y,gyro_z\n"
            + (0..<100).map { "\(Double($0) * 0.01),0,0,-1,0.5,0,-1,0,0,0" }.joined(separator: "\n")
        let log = try parse(text)
        #expect(log.hasDeviceMotion && log.userAcceleration == nil)
        let user = try log.deviceMotion().map(\.userAcceleration)
        #expect(user.count == 100)
        #expect(user.allSatisfy { abs($0.x - 0.5) < 1e-12 && abs($0.z) < 1e-12 })
    }

    @Test func aBareAltitudeColumnInMetresIsTheRelativeAltitude() throws {
        let log = try parse("time_s,altitude (m),pressure\n0,0.0,101.2\n1,0.5,101.19\n2,1.25,101.18\n")
        #expect(log.relativeAltitude == [0, 0.5, 1.25])
        #expect(log.pressure?.count == 3)
    }

    @Test func readsTheExermoteLayoutSkippingEmptyLeadingRowsAndIgnoringLabels() throws {
        let text = """
        Device: xGravity,Device: yGravity,Device: zGravity,Device: xAcceleration,Device: yAcceleration,Device: zAcceleration,Device: pitch,Device: roll,Device: yaw,Device: xRotationRate,Device: yRotationRate,Device: zRotationRate,exerciseType,exerciseSubType,timeStampSaved,individual
        ,,,,,,,,,,,,setBreak,setBreak,2017-03-30 18:45:36:794,1
        -0.27,0.94,0.21,0.04,0.03,0.03,-1.22,-2.23,-1.92,-0.58,0.07,0.29,setBreak,setBreak,2017-03-30 18:45:36:887,1
        -0.24,0.94,0.25,0.01,0.09,0.08,-1.21,-2.39,-2.1,-0.57,0.29,0.43,setBreak,setBreak,2017-03-30 18:45:36:986,1
        -0.21,0.93,0.3,0.04,0.07,0.14,-1.2,-2.54,-2.29,-0.59,0.29,0.46,setBreak,setBreak,2017-03-30 18:45:37:085,1
        """
        let log = try parse(text)
        #expect(log.count == 3)
        #expect(abs(log.time[1] - 0.099) < 1e-6 && abs(log.time[2] - 0.198) < 1e-6)  // epoch seconds keep ~0.1 µs
        #expect(log.notes.contains { $0.contains("dropped 1") })
        #expect(abs(log.rotationRate![0].x + 0.58) < 1e-12)
        #expect(abs(log.userAcceleration![2].z - 0.14) < 1e-12)
        // Attitude from pitch/roll reproduces the logged gravity (to the log's 2 decimals).
        let g = log.attitude![0].gravity
        #expect((g - log.gravity![0]).magnitude < 0.02)
        #expect(log.acceleration == nil)
    }

    @Test func readsInfluxAnnotatedCSVWithUnitsInferredAndStated() throws {
        var text = """
        #group,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE
        #datatype,string,long,dateTime:RFC3339,double,double,double,double,double,double,double,double
        #default,_result,,,,,,,,,,
        ,result,table,_time,Amag,Ax,Ay,Az,Gmag,Gx,Gy,Gz

        """
        for k in 0..<200 {
            let gx = k % 10 == 0 ? 200.0 : 20.0
            text += ",,0,2025-11-18T17:40:\(String(format: "%06.3f", Double(k) * 0.01))Z,9.8,0,0,9.81,1,\(gx),0,0\n"
        }
        let log = try parse(text)
        #expect(log.count == 200)
        #expect(abs(log.sampleRate - 100) < 0.01)
        #expect(abs(log.acceleration![0].z + 9.81 / 9.80665) < 1e-9)  // specific force -> Core Motion sign
        #expect(abs(log.rotationRate![0].x - 200 * Double.pi / 180) < 1e-9)
        #expect(log.notes.contains { $0.contains("deg/s") })
        #expect(log.notes.contains { $0.contains("m/s2") })
    }

    @Test func influxAnnotatedCSVWithAByteOrderMarkIsReadAndMessagesNameFileLines() throws {
        // With a BOM the '#group' line was kept as the header ("no time column"); and row numbers
        // counted from the plain CSV, 3 annotation lines (plus blank lines, repeated headers) short.
        func table(_ range: Range<Int>) -> String {
            ",result,table,_time,Ax,Ay,Az,Gx,Gy,Gz\n" + range.map {
                ",,0,2025-11-18T17:40:\(String(format: "%06.3f", Double($0) * 0.01))Z,0,0,9.81,\($0 == 150 ? "1e200" : "0.1"),0,0\n"
            }.joined()
        }
        let text = "\u{FEFF}#group,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE\r\n"
            + "#datatype,string,long,dateTime:RFC3339,double,double,double,double,double,double\n"
            + "#default,_result,,,,,,,,\n" + table(0..<100) + "\n" + table(100..<200)
        let log = try parse(text)
        #expect(log.count == 199)
        #expect(log.notes.contains { $0.contains("read as InfluxDB") })
        // Row 150 is on file line 4 (header) + 100 + 2 (blank line, repeated header) + 50 + 1 = 157.
        #expect(log.notes.contains { $0.contains("line 157, column 'Gx'") })
        #expect(String(decoding: InfluxAnnotatedCSV.plainCSV(Array(text.utf8)), as: UTF8.self).hasPrefix(",result,table,_time"))
    }

    @Test func columnsMappingAndExplicitUnitsOverrideRecognition() throws {
        let text = "ts,p,q,r,u,v,w\n0,0,0,1,0,0,0\n0.02,0,0,1,0.1,0,0\n0.04,0,0,1,0.2,0,0\n"
        let columns = try MotionLogOptions.parseColumns("time=ts,accel.x=p,accel.y=q,accel.z=r,gyro.x=u,gyro.y=v,gyro.z=w")
        let log = try parse(text, MotionLogOptions(columns: columns, accelerationUnit: .g, rotationUnit: .radiansPerSecond))
        #expect(log.count == 3)
        #expect(abs(log.rotationRate![2].x - 0.2) < 1e-12)
        #expect(abs(log.sampleRate - 50) < 1e-6)
    }

    @Test func missingColumnErrorNamesWhatExists() {
        #expect {
            _ = try parse("time,acc_x,acc_y\n0,1,2\n")
        } throws: { error in
            guard let e = error as? InputError else { return false }
            return e.code == .missingColumn && e.message.contains("acc_x") && e.message.contains("accel.z")
        }
        #expect {
            _ = try parse("when,foo\n0,1\n")
        } throws: { error in
            (error as? InputError)?.code == .missingColumn && "\(error)".contains("when,foo")
        }
    }

    @Test func aDuplicatedMotionColumnIsRefused() {
        #expect {
            _ = try parse("time,acc_x,acc_y,acc_z,acc_z\n0,0,0,1,2\n0.02,0,0,1,2\n")
        } throws: { error in
            (error as? InputError)?.code == .duplicateColumn && "\(error)".contains("columns 4 and 5 are both named 'acc_z'")
        }
    }

    @Test func slowSensorsLoggedLessOftenKeepEveryMotionRow() {
        // A 50 Hz accelerometer with the altimeter written once a second: every row is kept, the
        // altitude is NaN between its readings, and the rate is the accelerometer's.
        var text = "time,acc_x,acc_y,acc_z,altitude,pressure\n"
        for i in 0..<500 {
            let slow = i % 50 == 0 ? "\(Double(i) / 500),101.3" : ","
            text += "\(Double(i) / 50),0,0,1,\(slow)\n"
        }
        let log = try! parse(text)
        #expect(log.count == 500)
        #expect(abs(log.sampleRate - 50) < 1e-6)
        #expect(log.relativeAltitude?.filter(\.isFinite).count == 10)
        #expect(log.pressure?.filter(\.isFinite).count == 10)
        #expect(!log.notes.contains { $0.contains("dropped") })
    }

    @Test func timeGoingBackwardsIsAClearError() {
        #expect {
            _ = try parse("time,acc_x,acc_y,acc_z\n0,0,0,1\n0.02,0,0,1\n0.01,0,0,1\n")
        } throws: { error in
            (error as? InputError)?.code == .badTimestamps && "\(error)".contains("line 4")
        }
        // A blank line before it still counts as a line of the file.
        #expect {
            _ = try parse("time,acc_x,acc_y,acc_z\n0,0,0,1\n\n0.02,0,0,1\n0.01,0,0,1\n")
        } throws: { error in
            (error as? InputError)?.code == .badTimestamps && "\(error)".contains("line 5")
        }
    }

    @Test func unitsThatContradictTheDataAreRejected() {
        #expect {
            _ = try parse("time,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.02,0,0,9.8\n0.04,0,0,9.8\n",
                          MotionLogOptions(accelerationUnit: .g))
        } throws: { error in
            (error as? InputError)?.code == .unsupportedFormat && "\(error)".contains("m/s2")
        }
        #expect(throws: InputError.self) {
            _ = try MotionLogOptions.parseColumns("speed=x")
        }
    }

    /// Gravity is a unit vector: a log whose gravity turns to m/s² part way is refused at the first
    /// such row (the median had read g, and the rows after were normalised without a word).
    @Test func gravityInAnotherUnitPartWayIsAnError() throws {
        func log(switchAt: Int?) -> String {
            "loggingTime,motionGravityX,motionGravityY,motionGravityZ\n" + (0..<200).map { i -> String in
                let s = switchAt.map { i >= $0 ? 9.81 : 1 } ?? 1
                return "\(Double(i) * 0.02),\(0.1 * s),\(-0.9 * s),\(0.42 * s)"
            }.joined(separator: "\n")
        }
        #expect(try parse(log(switchAt: nil)).gravity != nil)
        #expect {
            _ = try parse(log(switchAt: 150))
        } throws: { error in
            (error as? InputError)?.code == .unsupportedFormat && "\(error)".contains("line 152") && "\(error)".contains("50 of 200")
        }
    }

    @Test func gapsAreFoundAndStated() throws {
        var text = "time,acc_x,acc_y,acc_z\n"
        for k in 0..<50 { text += "\(Double(k) * 0.01),0,0,1\n" }
        for k in 0..<50 { text += "\(1.0 + Double(k) * 0.01),0,0,1\n" }
        let log = try parse(text)
        #expect(log.gaps.count == 1 && log.gaps[0].index == 50)
        #expect(log.notes.contains { $0.contains("gap") })
    }

    @Test func dateTextParsesLoggerFormats() {
        let a = DateText.seconds("2017-03-30 18:45:36:794")!
        let b = DateText.seconds("2017-03-30T18:45:37.794Z")!
        #expect(abs(b - a - 1) < 1e-6)
        #expect(DateText.seconds("1970-01-01T00:00:00Z") == 0)
        #expect(abs(DateText.seconds("1970-01-01 01:00:00 +0100")!) < 1e-9)
        #expect(DateText.seconds("yesterday") == nil)
        // Days past the month's end are no dates (30 February rolled into 2 March); leap days are.
        for text in ["2017-02-29 10:00:00", "2017-02-30 10:00:00", "2017-04-31 10:00:00", "1900-02-29 10:00:00"] {
            #expect(DateText.seconds(text) == nil, "\(text)")
        }
        #expect(DateText.seconds("2016-02-29 10:00:00") == DateText.seconds("2016-03-01 10:00:00")! - 86_400)
        #expect(DateText.seconds("2000-02-29 00:00:00") != nil && DateText.seconds("2017-12-31 23:59:59") != nil)
    }
}

@Suite struct MotionEvaluationTests {
    @Test func exermoteTruthCountsRepsBetweenBreaksAndSetsBetweenSetBreaks() throws {
        var text = "Device: xGravity,Device: yGravity,Device: zGravity,Device: xAcceleration,Device: yAcceleration,Device: zAcceleration,Device: pitch,Device: roll,Device: yaw,Device: xRotationRate,Device: yRotationRate,Device: zRotationRate,exerciseType,exerciseSubType,timeStampSaved,individual\n"
        let labels = ["setBreak", "setBreak", "Squat", "Squat", "Break", "Squat", "Break", "Squat", "setBreak", "Situp", "Break", "Situp"]
        for (k, l) in labels.enumerated() {
            text += "0,-1,0,0,0,0,0,0,0,0,0,0,\(l),x,2017-03-30 18:45:\(String(format: "%02d", 10 + k)):000,1\n"
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("exermote-truth-test.csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let sets = try MotionEvaluation.exermoteTruth(file: path)
        #expect(sets.map(\.exercise) == ["Squat", "Situp"])
        #expect(sets.map(\.reps) == [3, 2])
        #expect(sets[0].start_s == 2 && sets[0].end_s == 7)
    }

    @Test func repsAndAttitudeEvaluationsReadOnlyExermoteLogs() throws {
        // An unrelated CSV in the folder had stopped both evaluations ("no time column").
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("exermote-files-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "Device: xGravity,exerciseType,timeStampSaved\n0,Squat,2017-03-30 18:45:10:000\n".write(
            toFile: dir + "/2017-03-30_Individual_1.csv", atomically: true, encoding: .utf8)
        try "session,notes\n1,calm\n".write(toFile: dir + "/sessions.csv", atomically: true, encoding: .utf8)
        let found = try MotionEvaluation.exermoteFiles(in: dir)
        #expect(found.files.map { ($0 as NSString).lastPathComponent } == ["2017-03-30_Individual_1.csv"])
        #expect(found.ignored == ["sessions.csv"])
        try FileManager.default.removeItem(atPath: dir + "/2017-03-30_Individual_1.csv")
        #expect(throws: InputError.self) { try MotionEvaluation.exermoteFiles(in: dir) }
    }

    @Test func swingEvaluationNeedsFilesOfAKnownStrokeType() throws {
        // A directory of other logs was evaluated as type "unknown", no gate applied, and
        // `vitals eval swings --check` passed.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("swing-files-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["2017-03-30_Individual_1.csv", "notes.txt"] {
            try "time,acc_x,acc_y,acc_z\n".write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        }
        do {
            _ = try MotionEvaluation.swingFiles(in: dir)
            Issue.record("expected an error")
        } catch let e as InputError {
            #expect(e.code == .fileNotFound && e.message.contains("2017-03-30_Individual_1.csv"))
        }
        try "time,acc_x,acc_y,acc_z\n".write(toFile: dir + "/Serves_100Hz.csv", atomically: true, encoding: .utf8)
        let found = try MotionEvaluation.swingFiles(in: dir)
        #expect(found.files.map { ($0 as NSString).lastPathComponent } == ["Serves_100Hz.csv"])
        #expect(found.ignored == ["2017-03-30_Individual_1.csv"])
    }

    @Test func referenceStrokesArePeaksAboveTheRateAtLeastApart() {
        let time = (0..<1000).map { Double($0) / 100 }
        let rate = time.map { t in Vector3(x: 0, y: 0, z: [1.0, 2.5, 3.2, 6.0].contains { abs(t - $0) < 0.05 } ? 7 : 1) }
        // Peaks at 1.0, 2.5 (1.5 s later: counted), 3.2 (0.7 s later: not), 6.0.
        #expect(MotionEvaluation.referenceStrokes(time: time, rotationRate: rate) == 3)
    }
}
