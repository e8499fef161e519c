import Foundation
import Testing

@Suite(.enabled(if: vitalsBinary != nil))
struct TremorCLITests {
    /// `vitals tremor` on an accelerometer-only log: a 5-Hz, 2-cm tremor from 20 to 50 s is one
    /// mild episode at 5 Hz; a 10-Hz log is refused with one line.
    @Test func tremorFindsAnEpisodeInAnAccelerometerLog() throws {
        let dir = try scratchFolder("tremor")
        let a = 0.02 / 2 * pow(2 * Double.pi * 5, 2) / 9.80665
        var text = "time,acc_x,acc_y,acc_z\n"
        for i in 0..<(70 * 50) {
            let t = Double(i) / 50
            let x = (20..<50).contains(t) ? a * sin(2 * Double.pi * 5 * t) : 0.002 * sin(Double(i))
            text += String(format: "%.3f,%.6f,%.6f,-1\n", t, x, 0.002 * cos(Double(i)))
        }
        try text.write(toFile: dir + "/wrist.csv", atomically: true, encoding: .utf8)
        let run = try vitals(["tremor", "wrist.csv", "--accel-unit", "g", "--json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let episodes = try #require(doc["episodes"] as? [[String: Any]])
        #expect(episodes.count == 1)
        #expect(episodes.first?["severity"] as? String == "mild")
        #expect(abs((episodes.first?["frequency_hz"] as? Double ?? 0) - 5) < 0.1)
        #expect((doc["minutes"] as? [Any])?.count == 2 && doc["seconds_judged"] as? Int == 70)
        // An arm moving all along: nothing judged at rest, and the fraction is null, not left out.
        let waving = (0..<1000).map { (i: Int) -> String in
            let t = Double(i) / 50
            return String(format: "%.3f,%.5f,0,-1", t, 0.3 * sin(2 * Double.pi * 0.8 * t))
        }
        try ("time,acc_x,acc_y,acc_z\n" + waving.joined(separator: "\n")).write(toFile: dir + "/waving.csv", atomically: true, encoding: .utf8)
        let moving = try vitals(["tremor", "waving.csv", "--accel-unit", "g", "--json"], in: dir)
        let movingDoc = try #require(try JSONSerialization.jsonObject(with: Data(moving.stdout.utf8)) as? [String: Any])
        #expect(movingDoc.keys.contains("tremor_fraction") && movingDoc["tremor_fraction"] is NSNull)
        let slow = (0..<300).map { String(format: "%.1f,0,0,-1", Double($0) / 10) }.joined(separator: "\n")
        try ("time,acc_x,acc_y,acc_z\n" + slow).write(toFile: dir + "/slow.csv", atomically: true, encoding: .utf8)
        let bad = try vitals(["tremor", "slow.csv", "--accel-unit", "g"], in: dir)
        #expect(bad.status != 0 && bad.errorLines.count == 1 && bad.stderr.contains("too slow"), "\(bad.stderr)")
    }
}
