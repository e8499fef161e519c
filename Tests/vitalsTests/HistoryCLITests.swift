import Foundation
import Testing

@Suite(.enabled(if: vitalsBinary != nil))
struct HistoryCLITests {
    /// Two logs added one after the other come back as one CSV, with times from `--start`; a log
    /// that would overlap what is held is refused with one line and nothing is added.
    @Test func logsAddedToAHistoryComeBackAsOneCSV() throws {
        let dir = try scratchFolder("history")
        func log(_ name: String, phase: Double) throws {
            let rows = (0..<100).map { i in
                String(format: "%.2f,%.4f,%.4f,-1", Double(i) / 50, sin(Double(i) / 5 + phase), cos(Double(i) / 5 + phase))
            }
            try ("time,acc_x,acc_y,acc_z\n" + rows.joined(separator: "\n")).write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        }
        try log("a.csv", phase: 0)
        try log("b.csv", phase: 1)
        let first = try vitals(["history", "add", "h", "a.csv", "--start", "2026-11-24T10:00:00Z", "--accel-unit", "g"], in: dir)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try vitals(["history", "add", "h", "b.csv", "--start", "1795514410", "--accel-unit", "g"], in: dir)
        #expect(second.status == 0, "\(second.stderr)")
        let overlap = try vitals(["history", "add", "h", "b.csv", "--start", "1795514411", "--accel-unit", "g"], in: dir)
        #expect(overlap.status != 0 && overlap.errorLines.count == 1 && overlap.stderr.contains("already holds samples"), "\(overlap.stderr)")

        // A mistyped --start a week later: its retention would drop everything held.
        let later = try vitals(["history", "add", "h", "b.csv", "--start", "1796119200", "--accel-unit", "g"], in: dir)
        #expect(later.status != 0 && later.errorLines.count == 1 && later.stderr.contains("would drop them all"), "\(later.stderr)")

        let all = try vitals(["history", "export", "h"], in: dir)
        #expect(all.status == 0, "\(all.stderr)")
        let lines = all.stdout.split(separator: "\n")
        #expect(lines.first == "time_s,acc_x(g),acc_y(g),acc_z(g)")
        try #require(lines.count == 201)
        #expect(lines[1].hasPrefix("1795514400.0,0.0,1.0,-1.0"))
        #expect(lines[101].hasPrefix("1795514410.0,\(sin(1.0).formatted4),"))

        let stretch = try vitals(["history", "export", "h", "--from", "1795514401", "--to", "2026-11-24T10:00:10Z"], in: dir)
        #expect(stretch.stdout.split(separator: "\n").count == 1 + 50 + 1)  // 1.00-1.98 s and 10.00 s

        let info = try vitals(["history", "info", "h", "--json"], in: dir)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(doc["samples"] as? Int == 200 && doc["first_time_s"] as? Double == 1_795_514_400)
    }

    /// A date's fraction of a second is taken exactly as written: --start puts the first sample at
    /// .123456 s, and --from/--to written as dates with samples' exported times include both.
    @Test func fractionalSecondsOfADateAreExact() throws {
        let dir = try scratchFolder("history-fraction")
        let rows = (0..<100).map { String(format: "%.2f,0,0,1", Double($0) / 50) }
        try ("time,acc_x,acc_y,acc_z\n" + rows.joined(separator: "\n")).write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        let add = try vitals(["history", "add", "h", "a.csv", "--start", "1970-01-02T03:46:40.123456Z", "--accel-unit", "g"], in: dir)
        #expect(add.status == 0, "\(add.stderr)")
        let all = try vitals(["history", "export", "h"], in: dir).stdout.split(separator: "\n")
        #expect(all.count == 101 && all[1].hasPrefix("100000.123456,"), "\(all.prefix(2))")
        // Rows 3-5 (.163456 to .203456 s), their times as printed written as dates.
        func date(_ row: Int) -> String { "1970-01-02T03:46:40." + all[row].prefix { $0 != "," }.split(separator: ".")[1] }
        let stretch = try vitals(["history", "export", "h", "--from", date(3) + "Z", "--to", date(5) + "+00:00"], in: dir)
        #expect(stretch.stdout.split(separator: "\n").dropFirst() == all[3...5], "\(stretch.stdout)")
    }

    @Test func badTimesAndMissingFoldersAreOneLine() throws {
        let dir = try scratchFolder("history-bad")
        try "time,acc_x,acc_y,acc_z\n0,0,0,1\n0.02,0,0,1\n".write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        for (arguments, expected) in [
            (["history", "add", "h", "a.csv", "--start", "yesterday"], "neither seconds since 1970 nor an ISO 8601 date"),
            (["history", "export", "nowhere"], "no such history folder"),
            (["history", "info", "a.csv"], "a.csv: not a folder"),
            (["history", "info", "."], ".: holds no accelerometer history (no accelerometer-*.vah segment files"),
            (["history", "export", "."], ".: holds no accelerometer history"),
            (["history", "add", "a.csv", "a.csv", "--start", "0"], "not a folder"),
        ] {
            let run = try vitals(arguments, in: dir)
            #expect(run.status != 0 && run.errorLines.count == 1 && run.stderr.contains(expected), "\(arguments): \(run.stderr)")
        }
    }
}

private extension Double {
    /// As the test log writes it (four decimals), then as Swift prints a Double.
    var formatted4: String { "\(Double(String(format: "%.4f", self))!)" }
}
