import Foundation
import Testing

/// `vitals eval` on folders built to be slow or wrong: each gives its scores in bounded time, or
/// one error line.
@Suite(.enabled(if: vitalsBinary != nil))
struct HardeningEvalCLITests {
    @Test func evalWristReadsALongTruthFileInLinearTime() throws {
        // 30 000 truth windows (2 s apart, nearly all past a 10-s recording's end): each row's line
        // number, wanted only for an error, was found by walking the file, so the time grew with the
        // square of the rows (30 000: 22 s; 80 000: over a minute).
        let dir = try scratchFolder("wrist-long-truth")
        try CLITests.wristCSV(seconds: 10).write(toFile: dir + "/run.csv", atomically: true, encoding: .utf8)
        try ("window_start_s,window_end_s,bpm\n" + (0..<30_000).map { "\(2 * $0),\(2 * $0 + 8),120\n" }.joined())
            .write(toFile: dir + "/run_bpm.csv", atomically: true, encoding: .utf8)
        let started = Date()
        let run = try vitals(["eval", "wrist", ".", "--json"], in: dir)
        let seconds = Date().timeIntervalSince(started)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(seconds < 8, "\(seconds) s")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let recording = try #require((doc["recordings"] as? [[String: Any]])?.first)
        #expect((recording["with_motion"] as? [String: Any])?["windows"] as? Double == 2)
    }

    @Test func evalRepsAndAttitudeNameAFolderNamedLikeALog() throws {
        // A folder named *.csv among the logs: Foundation's FileHandle opened it, and reading its
        // header trapped ('try!' ... NSCocoaErrorDomain error 256, SIGILL).
        let dir = try scratchFolder("reps-folder-csv")
        try "exerciseType,timeStampSaved\nsetBreak,2017-03-30 18:45:36:794\n"
            .write(toFile: dir + "/2017-03-30_18-50-49_Individual_1.csv", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir + "/2017-03-30_19-00-03_Individual_1.csv", withIntermediateDirectories: true)
        for command in ["reps", "attitude"] {
            let run = try vitals(["eval", command, "."], in: dir)
            #expect(run.status == 1, "\(command): \(run.status) \(run.stderr)")
            #expect(run.errorLines.count == 1, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("2017-03-30_19-00-03_Individual_1.csv: is a directory, not a file"), "\(command): \(run.stderr)")
        }
    }

    @Test func evalGaitRefusesTruthItWouldHavePartlySkipped() throws {
        // A still 40-s IPOL trial (100 Hz) and its truth. A foot's events holding a NaN (read as
        // null), or not a list, were skipped whole and the trial scored against the other foot's
        // strikes (F1 0.95 -> 0.81 on 1-1); a trial starting at a negative sample, and a heel strike
        // long after the recording's end, were scored as they were.
        let dir = try scratchFolder("gait-truth")
        var lb = "Acquisition frequency: 100 Hz\nPacketCounter\tAcc_X\tAcc_Y\tAcc_Z\n"
        for i in 0..<4000 { lb += "\(i).0\t9.81\t0.0\t0.0\n" }
        try lb.write(toFile: dir + "/1-1_lb.txt", atomically: true, encoding: .utf8)
        func truth(left: String = "[[150, 200], [250, 300]]", bounds: String = "[100, 2000]") throws {
            try "{\"Subject\": 1, \"TrialBoundaries\": \(bounds), \"LeftFootEvents\": \(left), \"RightFootEvents\": [[200, 250]]}"
                .write(toFile: dir + "/1-1.json", atomically: true, encoding: .utf8)
        }
        try truth()
        let valid = try vitals(["eval", "gait", "."], in: dir)
        #expect(valid.status == 0, "\(valid.stderr)")
        for (left, bounds, said) in [("[[150, NaN], [250, 300]]", "[100, 2000]", "no 'LeftFootEvents' [[start, end], ...]"),
                                     ("\"x\"", "[100, 2000]", "no 'LeftFootEvents' [[start, end], ...]"),
                                     ("[[150, 200], [250, 300]]", "[-500, 2000]", "no 'TrialBoundaries' [start, end]"),
                                     ("[[150, 200], [250, 1000000]]", "[100, 2000]", "before a heel strike in 1-1.json (10000.00 s)")] {
            try truth(left: left, bounds: bounds)
            let run = try vitals(["eval", "gait", "."], in: dir)
            #expect(run.status == 1, "\(left) \(bounds): \(run.status)")
            #expect(run.errorLines.count == 1 && run.stderr.contains(said), "\(left) \(bounds): \(run.stderr)")
        }
    }

    @Test func evalStepsAndGaitNameARecordingTheyPassOver() throws {
        // A recording folder without its steps_truth.json (or accelerometer.csv), and a trial's
        // _lb.txt without its .json, were left out of the scores without a word.
        let dir = try scratchFolder("steps-unscored")
        for name in ["walk", "half"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: true)
        }
        let (acc, switches) = oxfordWalkInG()
        try acc.write(toFile: dir + "/walk/accelerometer.csv", atomically: true, encoding: .utf8)
        try acc.write(toFile: dir + "/half/accelerometer.csv", atomically: true, encoding: .utf8)
        try switches.write(toFile: dir + "/walk/stepcounter.csv", atomically: true, encoding: .utf8)
        try #"{"clean_steps": 70}"#.write(toFile: dir + "/walk/steps_truth.json", atomically: true, encoding: .utf8)
        let steps = try vitals(["eval", "steps", ".", "--accel-unit", "g"], in: dir)
        #expect(steps.status == 0, "\(steps.stderr)")
        #expect(steps.errorLines == ["warning: not scored: half (no steps_truth.json)"], "\(steps.stderr)")

        let gait = try scratchFolder("gait-unscored")
        var lb = "Acquisition frequency: 100 Hz\nPacketCounter\tAcc_X\tAcc_Y\tAcc_Z\n"
        for i in 0..<4000 { lb += "\(i).0\t9.81\t0.0\t0.0\n" }
        try lb.write(toFile: gait + "/1-1_lb.txt", atomically: true, encoding: .utf8)
        try lb.write(toFile: gait + "/2-1_lb.txt", atomically: true, encoding: .utf8)
        try #"{"TrialBoundaries": [100, 2000], "LeftFootEvents": [[150, 200]], "RightFootEvents": [[200, 250]]}"#
            .write(toFile: gait + "/1-1.json", atomically: true, encoding: .utf8)
        let trials = try vitals(["eval", "gait", "."], in: gait)
        #expect(trials.status == 0, "\(trials.stderr)")
        #expect(trials.errorLines == ["warning: not scored: 2-1_lb.txt (no 2-1.json)"], "\(trials.stderr)")
    }
}
