import Foundation
import Testing
import TestSupport
import VitalsIO

/// The `vitals` binary `swift test` built: beside the test bundle, or in `.build/debug` of this
/// checkout.
let vitalsBinary: String? = {
    var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
    candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
    candidates.append(Bundle.main.bundleURL)
    candidates.append(
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug"))
    return candidates.map { $0.appendingPathComponent("vitals").path }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}()

/// What one run of `vitals` gave.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
    /// The lines of stderr.
    var errorLines: [Substring] { stderr.split(separator: "\n") }
}

/// Runs `vitals arguments` (or another `executable`) in `directory` and waits for it.
func vitals(_ arguments: [String], in directory: String, executable: String? = nil) throws -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try executable ?? #require(vitalsBinary, "the vitals binary was not found"))
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read stderr on another thread so neither pipe fills up and blocks the program.
    final class Box: @unchecked Sendable { var data = Data() }
    let errBox = Box()
    let errHandle = err.fileHandleForReading
    let errRead = DispatchSemaphore(value: 0)
    Thread {
        errBox.data = errHandle.readToEndRetryingInterrupts()
        errRead.signal()
    }.start()
    let outData = out.fileHandleForReading.readToEndRetryingInterrupts()
    process.waitUntilExit()
    errRead.wait()
    return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
               stderr: String(decoding: errBox.data, as: UTF8.self))
}

/// An Oxford-layout recording in g: 40 s at 100 Hz, standing 5 s, then steps at 2 Hz (0.25 g):
/// its accelerometer.csv (no header) and its stepcounter.csv (foot switches at 10 Hz).
func oxfordWalkInG() -> (accelerometer: String, switches: String) {
    var acc = "", switches = "timestamp_ns,left,right\n"
    for k in 0..<4000 {
        let t = Double(k) / 100
        let step = t > 5 ? 0.25 * sin(2 * Double.pi * 2 * (t - 5)) : 0
        acc += String(format: "%lld,3,%.5f,%.5f,%.5f\n", Int64(t * 1e9), 0.05 * step, 1 + step, 0.02)
    }
    for k in 0..<400 {
        let t = Double(k) / 10
        let down = t > 5 && (t - 5).truncatingRemainder(dividingBy: 0.5) < 0.25
        switches += "\(Int64(t * 1e9)),\(down ? 1 : 0),0\n"
    }
    return (acc, switches)
}

/// A fresh temporary folder.
func scratchFolder(_ name: String) throws -> String {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("vitals-cli-\(name)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite(.enabled(if: vitalsBinary != nil))
struct CLITests {
    @Test func anOutputFileThatIsTheInputIsRefusedBeforeAnythingIsWritten() throws {
        let dir = try scratchFolder("overwrite")
        let video = dir + "/victim.y4m"
        try FingerVideoSimulator(.init(bpm: 72, seconds: 1, width: 32, height: 24)).writeY4M(to: video)
        let before = try Data(contentsOf: URL(fileURLWithPath: video))
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.y4m", withDestinationPath: video)
        try FileManager.default.linkItem(atPath: video, toPath: dir + "/hard.y4m")
        for output in ["victim.y4m", "./victim.y4m", video, "link.y4m", "hard.y4m"] {
            let run = try vitals(["frames", "victim.y4m", "--csv", "-o", output], in: dir)
            #expect(run.status != 0, "frames -o \(output)")
            #expect(run.errorLines.count == 1)
            #expect(run.stderr.contains("same file as the input video"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: video)) == before)
        }
        let fine = try vitals(["frames", "victim.y4m", "--csv", "-o", "means.csv"], in: dir)
        #expect(fine.status == 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/means.csv"))

        // The simulator's two outputs.
        for truth in ["t.y4m", "./t.y4m"] {
            let run = try vitals(["simulate", "finger", "--seconds", "1", "t.y4m", "--truth", truth], in: dir)
            #expect(run.status != 0)
            #expect(run.errorLines.count == 1)
            #expect(run.stderr.contains("same file as the output video"))
            #expect(!FileManager.default.fileExists(atPath: dir + "/t.y4m"))
        }
    }

    /// A held-back folder will not hold a103l: `eval beats --check` had stopped with "no recording
    /// named a103l". Its gates now apply to every recording there.
    @Test func evalBeatsGatesEveryRecordingOfAFolderWithoutA103l() throws {
        let dir = try scratchFolder("beats")
        try writeSimulatedPPGWithRPeaks(directory: dir, name: "rec7")
        let run = try vitals(["eval", "beats", ".", "--json"], in: dir)
        #expect(run.status == 0)
        #expect(run.stdout.contains("\"rec7: sensitivity >= 97 %\""))
        let named = try vitals(["eval", "beats", ".", "--gate", "a103l"], in: dir)
        #expect(named.status != 0 && named.stderr.contains("(it has rec7)"))
    }

    /// With --annotator, a PhysioNet record (NAME.hea, its PLETH signal) is scored against the beat
    /// annotations of NAME.<annotator>, as the same finger is as CSV files against their R-peaks.
    @Test func evalBeatsScoresPhysioNetRecordsAgainstTheirAnnotations() throws {
        let dir = try scratchFolder("beats-wfdb")
        try writeSimulatedPPGWithRPeaks(directory: dir, name: "csv")
        try writeSimulatedPPGAsWFDB(directory: dir, name: "rec")
        let run = try vitals(["eval", "beats", ".", "--annotator", "atr", "--json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let recordings = try #require(doc["recordings"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: recordings.compactMap { r in (r["name"] as? String).map { ($0, r) } })
        let csv = try #require(byName["csv"]), rec = try #require(byName["rec"])
        for key in ["sensitivity", "ppv"] {
            let a = try #require(csv[key] as? Double), b = try #require(rec[key] as? Double)
            #expect(a >= 0.97 && b >= 0.97, "\(key): CSV \(a), WFDB \(b)")
        }
        #expect(rec["r_peaks"] as? Int == 70)
        let delay = try #require(rec["arrival_delay_ms"] as? Double)
        #expect(abs(delay - (csv["arrival_delay_ms"] as? Double ?? 0)) <= 15, "\(delay)")
        // Without --annotator the record is not scored; an annotator no record has is said.
        let plain = try vitals(["eval", "beats", ".", "--json"], in: dir)
        #expect(plain.status == 0 && !plain.stdout.contains("\"rec\""))
        let none = try vitals(["eval", "beats", ".", "--annotator", "qrs"], in: try scratchFolder("beats-none"))
        #expect(none.status != 0 && none.stderr.contains("nor NAME.hea records with NAME.qrs annotations"), "\(none.stderr)")
        // A record with the name of a CSV pair would be scored, and pooled, twice.
        try writeSimulatedPPGAsWFDB(directory: dir, name: "csv")
        let twice = try vitals(["eval", "beats", ".", "--annotator", "atr"], in: dir)
        #expect(twice.status != 0 && twice.stderr.contains("csv is both csv.csv with csv_rpeaks.csv and csv.hea with csv.atr"), "\(twice.stderr)")
    }

    /// A video without its NAME.json is named on stderr, not skipped without a word.
    @Test func evalVideoNamesTheVideosItDoesNotScore() throws {
        let dir = try scratchFolder("videos")
        for name in ["a", "b"] {
            try FingerVideoSimulator(.init(bpm: 72, seconds: 12, width: 32, height: 24)).writeY4M(to: dir + "/\(name).y4m")
        }
        try #"{"hr_bpm": 72}"#.write(toFile: dir + "/a.json", atomically: true, encoding: .utf8)
        let run = try vitals(["eval", "video", "."], in: dir)
        #expect(run.stderr.contains("not scored: b.y4m (no truth file b.json)"))
        #expect(run.stdout.contains("a.y4m") && !run.stdout.contains("b.y4m"))
    }

    /// The unit error on an Exermote log in deg/s says to pass --gyro-unit; the motion evaluations
    /// take it (and the other log-reading options) as the motion commands do. They had none.
    @Test func motionEvaluationsTakeTheLogReadingOptions() throws {
        let dir = try scratchFolder("eval-units")
        // 30 s at 10 Hz turning about x at 90 deg/s, gravity turning the other way in the device frame.
        var text = "Device: xGravity,Device: yGravity,Device: zGravity,Device: xAcceleration,Device: yAcceleration,"
            + "Device: zAcceleration,Device: pitch,Device: roll,Device: yaw,Device: xRotationRate,Device: yRotationRate,"
            + "Device: zRotationRate,exerciseType,exerciseSubType,timeStampSaved,individual\n"
        for k in 0..<300 {
            let angle = Double(k) / 10 * 90 * .pi / 180
            text += String(format: "0,%.6f,%.6f,0,0,0,0,0,0,90,0,0,Squat,firstHalf,2017-03-30 18:%02d:%02d:%03d,1\n",
                           -sin(angle), -cos(angle), 45 + k / 600, (k / 10) % 60, (k % 10) * 100)
        }
        try text.write(toFile: dir + "/2017-03-30_18-45-00_Individual_1.csv", atomically: true, encoding: .utf8)
        let refused = try vitals(["eval", "attitude", "."], in: dir)
        #expect(refused.status != 0 && refused.stderr.contains("--gyro-unit deg/s"), "\(refused.stderr)")
        let read = try vitals(["eval", "attitude", ".", "--gyro-unit", "deg/s", "--json"], in: dir)
        #expect(read.status == 0, "\(read.stderr)")
        let median = try #require(
            (try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any])?["median_deg"] as? Double)
        #expect(median < 1, "gravity \(median)° off with the rate read in deg/s")
        #expect(try vitals(["eval", "reps", ".", "--gyro-unit", "deg/s"], in: dir).status == 0)
    }

    /// An Oxford recording written in g is refused with "pass --accel-unit g"; `eval steps` takes it.
    @Test func evalStepsTakesTheAccelerationUnit() throws {
        let dir = try scratchFolder("eval-steps-unit")
        let rec = dir + "/walk"
        try FileManager.default.createDirectory(atPath: rec, withIntermediateDirectories: true)
        let (acc, switches) = oxfordWalkInG()
        try acc.write(toFile: rec + "/accelerometer.csv", atomically: true, encoding: .utf8)
        try switches.write(toFile: rec + "/stepcounter.csv", atomically: true, encoding: .utf8)
        try #"{"clean_steps": 70}"#.write(toFile: rec + "/steps_truth.json", atomically: true, encoding: .utf8)
        let refused = try vitals(["eval", "steps", "."], in: dir)
        #expect(refused.status != 0 && refused.stderr.contains("pass --accel-unit g"), "\(refused.stderr)")
        let read = try vitals(["eval", "steps", ".", "--accel-unit", "g"], in: dir)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.contains("walk"), "\(read.stdout)")
    }

    @Test func theSimulatorWritesOnlyToAY4MName() throws {
        let dir = try scratchFolder("simulate")
        for name in ["out.csv", "out", "out.mp4"] {
            let run = try vitals(["simulate", "finger", "--seconds", "1", name], in: dir)
            #expect(run.status != 0)
            #expect(run.errorLines == ["Error: the simulator writes Y4M video: name the output .y4m (got \(name))"])
            #expect(!FileManager.default.fileExists(atPath: dir + "/" + name))
        }
        #expect(try vitals(["simulate", "finger", "--seconds", "1", "out.Y4M"], in: dir).status == 0)
    }

    @Test func badOptionsAreOneLineOnStderr() throws {
        let dir = try scratchFolder("options")
        try FingerVideoSimulator(.init(bpm: 72, seconds: 1, width: 32, height: 24)).writeY4M(to: dir + "/clip.y4m")
        let cases: [([String], String)] = [
            (["simulate", "finger", "--bpm", "500", "o.y4m"], "heart rate must be"),
            (["simulate", "finger", "--seconds", "0", "o.y4m"], "length must be"),
            (["frames", "clip.y4m", "--stride", "0"], "stride"),
            (["frames", "clip.y4m", "--region", "1,2"], "--region"),
            (["heart-rate", "--hop", "0", "--window", "5"], "--hop"),
            (["heart-rate", "--window", "0"], "--window"),
            (["steps", "--height", "0", "x.csv"], "--height"),
            (["bench", "--rounds", "0"], "--rounds"),
            (["motion", "--wrist", "middle", "x.csv"], "middle"),
            (["frames"], "<video>"),
            (["nosuch"], "nosuch"),
        ]
        for (arguments, phrase) in cases {
            let run = try vitals(arguments, in: dir)
            #expect(run.status != 0, "\(arguments)")
            #expect(run.errorLines.count == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("Error: "), "\(arguments)")
            #expect(run.stderr.contains(phrase), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("Usage:"), "\(arguments)")
        }
        // Help still prints in full, on stdout, with status 0.
        let help = try vitals(["frames", "--help"], in: dir)
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: vitals frames"))
        #expect(help.stdout.contains("--max-size"))
    }

    /// A wrist PPG (pulse at 120 bpm) under an arm swing at 75 bpm that the accelerometer sees,
    /// 125 Hz, no time column: `ppg1,ppg2,acc_x,acc_y,acc_z`.
    static func wristCSV(seconds: Double = 30) -> String {
        var text = "ppg1,ppg2,acc_x,acc_y,acc_z\n"
        for i in 0..<Int(seconds * 125) {
            let t = Double(i) / 125
            let pulse = sin(2 * Double.pi * 2 * t), swing = sin(2 * Double.pi * 1.25 * t)
            text += String(format: "%.5f,%.5f,%.5f,%.5f,%.5f\n", pulse + 3 * swing, 0.8 * pulse + 2 * swing, swing, 0.5 * swing, 1 + 0.2 * swing)
        }
        return text
    }

    /// Skin seen by a camera at 30 fps: a pulse at 96 bpm (0.3 % in green, in the blood's proportions)
    /// under a brightness flicker at 70 bpm ten times its size.
    @Test func heartRateOfSkinCancelsTheFlicker() throws {
        let dir = try scratchFolder("skin")
        var text = "time_s,r,g,b\n"
        for n in 0..<900 {
            let t = Double(n) / 30
            let pulse = 0.003 * sin(2 * Double.pi * 1.6 * t), light = 1 + 0.03 * sin(2 * Double.pi * 70 / 60 * t)
            text += String(format: "%.5f,%.5f,%.5f,%.5f\n", t, 150 * light * (1 + pulse * 0.33 / 0.77),
                           100 * light * (1 + pulse), 80 * light * (1 + pulse * 0.53 / 0.77))
        }
        try text.write(toFile: dir + "/skin.csv", atomically: true, encoding: .utf8)
        let run = try vitals(["heart-rate", "skin.csv", "--skin", "--json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        for key in ["input", "duration_s", "sample_rate_hz", "heart_rate", "windows", "beats", "hrv", "quality"] {
            #expect(doc.keys.contains(key), "\(key)")
        }
        let bpm = try #require((doc["heart_rate"] as? [String: Any])?["bpm"] as? Double)
        #expect(abs(bpm - 96) < 1)
        #expect((doc["windows"] as? [Any])?.count == 12)  // 8-s windows every 2 s over 30 s
        let green = try vitals(["heart-rate", "skin.csv", "--skin", "--method", "green", "--json"], in: dir)
        let greenDoc = try #require(try JSONSerialization.jsonObject(with: Data(green.stdout.utf8)) as? [String: Any])
        #expect(abs(((greenDoc["heart_rate"] as? [String: Any])?["bpm"] as? Double ?? 0) - 70) < 1)

        let cases: [([String], String)] = [
            (["skin.csv", "--method", "pos"], "--method applies with --skin"),
            (["--skin"], "--skin needs an INPUT"),
            (["skin.csv", "--skin", "--column", "g"], "--skin reads the colour means"),
            (["skin.csv", "--skin", "--method", "ica"], "ica"),
            (["skin.csv", "--skin", "--window", "0.5"], "window"),
        ]
        for (arguments, phrase) in cases {
            let bad = try vitals(["heart-rate"] + arguments, in: dir)
            #expect(bad.status != 0, "\(arguments)")
            #expect(bad.errorLines.count == 1, "\(arguments): \(bad.stderr)")
            #expect(bad.stderr.contains(phrase), "\(arguments): \(bad.stderr)")
        }
    }

    /// The bundled astronaut's face, pulsing at 84 bpm under flicker and sway: found, followed and
    /// read; a fingertip video has no face and no rate.
    @Test func heartRateOfAFaceVideo() throws {
        let dir = try scratchFolder("face")
        let made = try vitals(["simulate", "face", "--bpm", "84", "--seconds", "12", "--fps", "15", "face.y4m"], in: dir)
        #expect(made.status == 0, "\(made.stderr)")
        let run = try vitals(["heart-rate", "face.y4m", "--face", "--json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let bpm = try #require((doc["heart_rate"] as? [String: Any])?["bpm"] as? Double)
        #expect(abs(bpm - 84) < 1.5)
        let faces = try #require(doc["faces"] as? [String: Any])
        #expect(faces["faces_tracked"] as? Double == 1)
        #expect((faces["frames_with_face"] as? Double ?? 0) >= 170)  // of 180: all but those before the face is confirmed
        #expect((doc["quality"] as? [String: Any])?["regions"] as? [String] == ["forehead", "left cheek", "right cheek"])

        _ = try vitals(["simulate", "finger", "--seconds", "3", "finger.y4m"], in: dir)
        let none = try vitals(["heart-rate", "finger.y4m", "--face", "--json"], in: dir)
        #expect(none.status == 0, "\(none.stderr)")
        let noneDoc = try #require(try JSONSerialization.jsonObject(with: Data(none.stdout.utf8)) as? [String: Any])
        #expect((noneDoc["heart_rate"] as? [String: Any])?["bpm"] is NSNull)
        #expect((noneDoc["faces"] as? [String: Any])?["frames_with_face"] as? Double == 0)
        #expect(none.stderr.contains("no face found"))

        for (arguments, phrase) in [(["face.y4m", "--cascade", "x.xml"], "--cascade applies with --face"),
                                    (["face.y4m", "--face", "--skin"], "choose one"),
                                    (["face.y4m", "--face", "--cascade", "missing.xml"], "missing.xml"),
                                    (["skin.csv", "--face"], "--face needs a video")] {
            let bad = try vitals(["heart-rate"] + arguments, in: dir)
            #expect(bad.status != 0, "\(arguments)")
            #expect(bad.errorLines.count == 1, "\(arguments): \(bad.stderr)")
            #expect(bad.stderr.contains(phrase), "\(arguments): \(bad.stderr)")
        }
    }

    @Test func heartRateWithMotionTracksTheWristPulse() throws {
        let dir = try scratchFolder("wrist")
        try Self.wristCSV().write(toFile: dir + "/wrist.csv", atomically: true, encoding: .utf8)
        let run = try vitals(["heart-rate", "wrist.csv", "--column", "ppg1,ppg2", "--motion", "acc_x,acc_y,acc_z", "--rate", "125", "--json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        for key in ["input", "duration_s", "sample_rate_hz", "heart_rate", "windows", "beats", "hrv", "quality"] {
            #expect(doc.keys.contains(key), "\(key)")
        }
        let bpm = try #require((doc["heart_rate"] as? [String: Any])?["bpm"] as? Double)
        #expect(abs(bpm - 120) < 2)
        let windows = try #require(doc["windows"] as? [[String: Any]])
        #expect(windows.count == 12)  // 8-s windows every 2 s over 30 s
        for w in windows {
            #expect(abs((w["bpm"] as? Double ?? 0) - 120) < 2)
            #expect(abs((w["motion_bpm"] as? Double ?? 0) - 75) < 2)
            #expect(w["start_s"] != nil && w["end_s"] != nil && w["confidence"] != nil)
        }
        #expect((doc["beats"] as? [Any])?.isEmpty == true)
        #expect(doc["hrv"] is NSNull)

        let cases: [([String], String)] = [
            (["--motion", "acc_x,acc_y"], "three accelerometer columns"),
            (["--motion", "acc_x,acc_y,gyro_z"], "gyro_z"),
            (["--motion", "acc_x,acc_y,acc_z", "--window", "1"], "window"),
            (["--motion", "acc_x,acc_y,acc_z", "--polarity", "inverted"], "--polarity"),
            (["--motion", "acc_x,acc_y,acc_z", "--window", "1e9"], "at most 600 s"),
            (["--motion", "acc_x,acc_y,acc_z", "--rate", "8"], "10 Hz"),
            (["--motion", "acc_x,acc_y,ppg1"], "more than once"),
            (["--motion", "acc_x,acc_y,acc_z", "--window", "inf"], "window"),
        ]
        for (extra, phrase) in cases {
            let bad = try vitals(["heart-rate", "wrist.csv", "--column", "ppg1", "--rate", "125"] + extra, in: dir)
            #expect(bad.status != 0, "\(extra)")
            #expect(bad.errorLines.count == 1, "\(extra): \(bad.stderr)")
            #expect(bad.stderr.contains(phrase), "\(extra): \(bad.stderr)")
        }
        // A longer window keeps the 2-s hop.
        let longer = try vitals(["heart-rate", "wrist.csv", "--column", "ppg1", "--motion", "acc_x,acc_y,acc_z", "--rate", "125",
                                 "--window", "10", "--json"], in: dir)
        let longerDoc = try #require(try JSONSerialization.jsonObject(with: Data(longer.stdout.utf8)) as? [String: Any])
        #expect((longerDoc["windows"] as? [Any])?.count == 11)

        // eval wrist: a folder of one recording with its truth; a file is not a folder.
        try FileManager.default.createDirectory(atPath: dir + "/set", withIntermediateDirectories: true)
        try Self.wristCSV().write(toFile: dir + "/set/run.csv", atomically: true, encoding: .utf8)
        try ("window_start_s,window_end_s,bpm\n" + (0..<12).map { "\(2 * $0),\(2 * $0 + 8),120\n" }.joined())
            .write(toFile: dir + "/set/run_bpm.csv", atomically: true, encoding: .utf8)
        let scored = try vitals(["eval", "wrist", "set", "--json"], in: dir)
        #expect(scored.status == 0, "\(scored.stderr)")
        let scoredDoc = try #require(try JSONSerialization.jsonObject(with: Data(scored.stdout.utf8)) as? [String: Any])
        let overall = try #require((scoredDoc["overall"] as? [String: Any])?["with_motion"] as? [String: Any])
        #expect((overall["mae_bpm"] as? Double ?? 99) < 2)
        // Truth that does not fit: windows of another length, a rate that is no heart rate, windows
        // off the tracker's grid (a warning, counted as not answered).
        for (truth, said) in [("0,30,120\n", "a truth window of 30 s"), ("0,8,0\n", "0 bpm is no truth"),
                              ("1,9,120\n3,11,120\n", "start off the tracker's 2-s grid")] {
            try ("window_start_s,window_end_s,bpm\n" + truth).write(toFile: dir + "/set/run_bpm.csv", atomically: true, encoding: .utf8)
            let bad = try vitals(["eval", "wrist", "set"], in: dir)
            #expect(bad.stderr.contains(said), "\(truth): \(bad.stderr)")
            #expect(bad.errorLines.count == 1, "\(bad.stderr)")
        }
        let notAFolder = try vitals(["eval", "wrist", "wrist.csv"], in: dir)
        #expect(notAFolder.status != 0 && notAFolder.errorLines.count == 1 && notAFolder.stderr.contains("is a file"))

        let several = try vitals(["heart-rate", "wrist.csv", "--column", "ppg1,ppg2", "--rate", "125"], in: dir)
        #expect(several.status != 0 && several.stderr.contains("--motion"))
        // A missing accelerometer value is named by line and column.
        var lines = Self.wristCSV(seconds: 10).split(separator: "\n").map(String.init)
        lines[50] = "0.1,0.1,,0.2,1"
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/hole.csv", atomically: true, encoding: .utf8)
        let hole = try vitals(["heart-rate", "hole.csv", "--column", "ppg1", "--motion", "acc_x,acc_y,acc_z", "--rate", "125"], in: dir)
        #expect(hole.status != 0 && hole.errorLines.count == 1)
        #expect(hole.stderr.contains("line 51, column 'acc_x'"), "\(hole.stderr)")
    }

    @Test func aBenchmarkFilterThatMatchesNothingNamesTheBenchmarks() throws {
        let dir = try scratchFolder("bench")
        for filter in ["nonsense", ""] {
            let run = try vitals(["bench", "--filter", filter], in: dir)
            #expect(run.status != 0)
            #expect(run.errorLines.count == 1)
            #expect(run.stderr.contains("ppg-batch-1h-100hz"))
            #expect(run.stderr.contains("memcpy-bgra-640x480"))
            #expect(run.stderr.contains("pedometer-detect-100Hz"))
            #expect(run.stderr.contains("motion-reps"))
            #expect(run.stdout.isEmpty)
        }
    }
}

@Suite(.enabled(if: vitalsBinary != nil && FileManager.default.fileExists(atPath: "/dev/full")))
struct CLIOutputFailureTests {
    /// Results that cannot be written (standard output on a full disk) are an error with one line,
    /// not a crash (`frames --csv` trapped on FileHandle's write) or an exit status of 0 (the
    /// others printed into the void and said they had succeeded).
    @Test(arguments: [["frames", "clip.y4m", "--csv"], ["frames", "clip.y4m"], ["heart-rate", "--json"], ["heart-rate"]])
    func resultsThatCannotBeWrittenAreAnError(arguments: [String]) throws {
        let dir = try scratchFolder("full")
        try FingerVideoSimulator(.init(bpm: 72, seconds: 3, width: 32, height: 24)).writeY4M(to: dir + "/clip.y4m")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(vitalsBinary))
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: dir)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        let err = Pipe()
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readToEndRetryingInterrupts(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 1, "\(arguments): \(stderr)")
        // (The bundled recording's text mode says on stderr what it analyses before it starts.)
        let errors = stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errors.count == 1 && errors[0].contains("standard output"), "\(arguments): \(stderr)")
    }
}

extension CLITests {
    /// Found by fuzzing: a clip larger than the disk's free space is refused before anything is
    /// written (the options allow terabytes); a truth file that is not JSON is named as such (it was
    /// "no heart rate 'hr_bpm'"); an evaluation where nothing was answered prints "-", not "nan".
    @Test func fuzzedInputsGetTheRightMessage() throws {
        let dir = try scratchFolder("fuzzed")
        // Through a shell that caps the files it may write at 1 MB: were the check to fail, the
        // command must not fill the disk.
        let binary = try #require(vitalsBinary)
        let huge = try vitals(["-c", "ulimit -f 2048; exec \"$0\" simulate finger --seconds 3600 --size 1024x1024 --fps 480 big.y4m", binary],
                              in: dir, executable: "/bin/sh")
        #expect(huge.status != 0 && huge.errorLines.count == 1 && huge.stderr.contains("GB free"), "\(huge.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/big.y4m"))
        // A 2000x2000 picture of skin: an hour at 240 fps is 5 TB of Y4M.
        var ppm = Data("P6\n2000 2000\n255\n".utf8)
        let row = Data((0..<2000).flatMap { _ in [UInt8(200), 120, 90] })  // skin-coloured
        for _ in 0..<2000 { ppm.append(row) }
        try ppm.write(to: URL(fileURLWithPath: dir + "/big.ppm"))
        let face = try vitals(["-c", "ulimit -f 2048; exec \"$0\" simulate face --seconds 3600 --fps 240 --image big.ppm face.y4m", binary],
                              in: dir, executable: "/bin/sh")
        #expect(face.status != 0 && face.errorLines.count == 1 && face.stderr.contains("GB free"), "\(face.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/face.y4m"))

        // Noise has no rate, and so no HRV: the summary says as little as --json.
        let noise = (0..<3000).map { i in "\(Double(i) / 100),\(sin(Double(i) * 12.9898) * 43758.5453 - (sin(Double(i) * 12.9898) * 43758.5453).rounded(.down))" }
        try (["time_s,ppg"] + noise).joined(separator: "\n").write(toFile: dir + "/noise.csv", atomically: true, encoding: .utf8)
        let text = try vitals(["heart-rate", "noise.csv", "--column", "ppg"], in: dir)
        #expect(text.stdout.contains("heart rate  not reported") && !text.stdout.contains("hrv "), "\(text.stdout)")
        // A report that is a folder or standard output is refused before the analysis.
        for (target, said) in [(".", "is a folder"), ("/dev/stdout", "mixed into what the command prints")] {
            let report = try vitals(["heart-rate", "noise.csv", "--column", "ppg", "--json", "--report", target], in: dir)
            #expect(report.status != 0 && report.stdout.isEmpty && report.stderr.contains(said), "\(report.stderr)")
        }
        // So is a CSV sent to standard output beside the JSON (it was printed into it).
        _ = try vitals(["simulate", "finger", "--seconds", "1", "clip.y4m"], in: dir)
        let mixed = try vitals(["frames", "clip.y4m", "--csv", "--json", "-o", "/dev/stdout"], in: dir)
        #expect(mixed.status != 0 && mixed.stdout.isEmpty && mixed.stderr.contains("the CSV would be mixed"), "\(mixed.stderr)")
        let apart = try vitals(["frames", "clip.y4m", "--csv", "--json", "-o", "clip.csv"], in: dir)
        #expect(apart.status == 0 && apart.stdout.hasPrefix("{"), "\(apart.stderr)")
        // An output file that the shell also sent standard output to keeps its content whole: the
        // summary goes to standard error (it was written over the CSV's header, and after the video).
        let redirected = try vitals(["-c", "\"$0\" frames clip.y4m --csv -o same.csv > same.csv && \"$0\" simulate finger --seconds 1 same.y4m > same.y4m", binary],
                                    in: dir, executable: "/bin/sh")
        #expect(redirected.status == 0 && redirected.stderr.contains("wrote same.y4m"), "\(redirected.stderr)")
        #expect(try String(contentsOfFile: dir + "/same.csv", encoding: .utf8).hasPrefix("time_s,r,g,b\n"))
        #expect(try vitals(["frames", "same.y4m", "--json"], in: dir).status == 0)

        try FileManager.default.createDirectory(atPath: dir + "/videos", withIntermediateDirectories: true)
        try Data("not json".utf8).write(to: URL(fileURLWithPath: dir + "/videos/c.json"))
        try Data([0, 1, 2]).write(to: URL(fileURLWithPath: dir + "/videos/c.mp4"))
        let video = try vitals(["eval", "video", "videos"], in: dir)
        #expect(video.status != 0 && video.errorLines.count == 1 && video.stderr.contains("not a JSON object"), "\(video.stderr)")

        try FileManager.default.createDirectory(atPath: dir + "/mths", withIntermediateDirectories: true)
        let signal = (0..<900).map { i in "\(Double(i) / 30),200,\(40 + sin(Double(i) / 5)),30" }
        try (["time_s,r,g,b"] + signal).joined(separator: "\n").write(toFile: dir + "/mths/subject_01.csv", atomically: true, encoding: .utf8)
        try "time_s,hr_bpm,spo2_pct\n0,,\n1,,\n".write(toFile: dir + "/mths/subject_01_truth.csv", atomically: true, encoding: .utf8)
        let none = try vitals(["eval", "fingertip", "mths"], in: dir)
        #expect(!none.stdout.contains("nan") && none.stdout.contains("MAE - bpm"), "\(none.stdout)")

        // A negative value is said to be one (the parser took "-1" for an option: "Missing value").
        for (arguments, said) in [(["heart-rate", "x.csv", "--rate", "-1"], "--rate -1: negative"),
                                  (["simulate", "finger", "--size", "-4x4", "a.y4m"], "--size -4x4: negative"),
                                  (["heart-rate", "x.csv", "--column", "-g"], "is written --column=-g"),
                                  (["heart-rate", "x.csv", "--column", "--json"], "Missing value for '--column")] {
            let negative = try vitals(arguments, in: dir)
            #expect(negative.status == 64 && negative.errorLines.count == 1 && negative.stderr.contains(said), "\(negative.stderr)")
        }
    }
}

@Suite(.enabled(if: vitalsBinary != nil && FileManager.default.fileExists(atPath: "/dev/full")))
struct SimulateTruthTests {
    /// The beat-times file is written before the video: a target that cannot take it fails the
    /// command before a video is left behind without its truth.
    @Test func aTruthFileThatCannotBeWrittenStopsBeforeTheVideo() throws {
        let dir = try scratchFolder("truth")
        let run = try vitals(["simulate", "finger", "--seconds", "2", "clip.y4m", "--truth", "/dev/full"], in: dir)
        #expect(run.status != 0 && run.errorLines.count == 1 && run.stderr.contains("/dev/full"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/clip.y4m"))
    }

    /// A named pipe that nothing wrote into made every command that reads a CSV wait silently for
    /// ever (`vitals motion fifo`). It still waits, as `cat` does, but says why after 2 s; and it
    /// reads what a writer that comes later writes.
    @Test func aNamedPipeWithNoWriterSaysWhyItWaits() throws {
        let dir = try scratchFolder("fifo")
        let fifo = dir + "/log.csv"
        #expect(mkfifo(fifo, 0o600) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(vitalsBinary))
        process.arguments = ["motion", fifo]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        Thread.sleep(forTimeInterval: 3.5)
        // Nonblocking, so the test cannot hang on a program that has gone; 4 s at 50 Hz fits the
        // pipe's buffer.
        let writer = open(fifo, O_WRONLY | O_NONBLOCK)
        #expect(writer >= 0, "vitals is not reading the pipe")
        if writer >= 0 {
            let rows = (0..<200).map { "\(Double($0) / 50),0.01,0.02,-1,0,0,0" }
            let text = Array((["time_s,acc_x,acc_y,acc_z,gyro_x,gyro_y,gyro_z"] + rows).joined(separator: "\n").utf8 + [0x0A])
            #expect(write(writer, text, text.count) == text.count)
            close(writer)
        }
        for _ in 0..<200 where process.isRunning { Thread.sleep(forTimeInterval: 0.1) }
        #expect(!process.isRunning)
        let stderr = String(decoding: err.fileHandleForReading.readToEndRetryingInterrupts(), as: UTF8.self)
        #expect(stderr.contains("\(fifo): a named pipe (FIFO) that nothing writes into yet"), "\(stderr)")
        if !process.isRunning { #expect(process.terminationStatus == 0, "\(stderr)") }
        #expect(String(decoding: out.fileHandleForReading.readToEndRetryingInterrupts(), as: UTF8.self).contains("200 samples"))
    }
}
