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
}
