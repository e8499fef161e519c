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
}
