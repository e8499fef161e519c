import Foundation
import PulseDetection
import Testing

@Suite(.enabled(if: vitalsBinary != nil))
struct HRVCLITests {
    /// R-peak times of a 75-bpm rhythm with a breathing swing: `vitals hrv` reads them, prints HRV
    /// with HeartPy's names (the same numbers as `HRV.measures`), and a signal file or a file with no
    /// beats is one error line.
    @Test func hrvFromBeatTimes() throws {
        let dir = try scratchFolder("hrv")
        var t = 3.0
        let times = [t] + (0..<200).map { i -> Double in
            t += 0.8 + 0.03 * sin(2 * Double.pi * Double(i) * 0.8 / 4.5)
            return t
        }
        try ("time_s\n" + times.map { String($0) }.joined(separator: "\n") + "\n")
            .write(toFile: dir + "/rpeaks.csv", atomically: true, encoding: .utf8)
        let expected = HRV.measures(beatTimes: times).measures

        let run = try vitals(["hrv", "rpeaks.csv", "--json"], in: dir)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let hrv = try #require(doc["hrv"] as? [String: Any])
        // 160 s of beats: every measure but VLF and those made from it (which need 300 s) is a number.
        #expect(HRVMeasures.names.filter { expected[$0]!.isNaN } == ["vlf", "p_total", "vlf_perc", "lf_perc", "hf_perc"])
        for name in HRVMeasures.names {
            if expected[name]!.isNaN {
                #expect(hrv[name] is NSNull, "\(name)")
                continue
            }
            let value = try #require(hrv[name] as? Double, "\(name)")
            #expect(abs(value - expected[name]!) <= 1e-4 * max(1, abs(value)), "\(name)")
        }
        #expect((doc["read"] as? [String: Any])?["kind"] as? String == "beat_times")
        #expect((doc["intervals"] as? [Any])?.count == 200)

        let text = try vitals(["hrv", "rpeaks.csv"], in: dir)
        #expect(text.status == 0 && text.stdout.contains("201 beats") && text.stdout.contains("200 of 200 kept"), "\(text.stdout)")
        #expect(text.stdout.contains("rmssd " + String(format: "%.4g", expected.rmssd)), "\(text.stdout)")

        let page = try vitals(["hrv", "rpeaks.csv", "--report", "hrv.html"], in: dir)
        #expect(page.status == 0 && page.stderr.contains("report written to hrv.html"), "\(page.stderr)")
        let html = try String(contentsOfFile: dir + "/hrv.html", encoding: .utf8)
        #expect(html.contains("<h1>HRV report</h1>") && html.contains("id=\"clip-tachogram\"") && html.contains("<ellipse"))
        #expect(html.contains(String(format: "%.1f <small>ms</small>", expected.rmssd)))

        let signal = "time_s,ppg\n" + (0..<500).map { "\(Double($0) / 100),\(sin(Double($0)))" }.joined(separator: "\n")
        try signal.write(toFile: dir + "/signal.csv", atomically: true, encoding: .utf8)
        for (arguments, fragment) in [(["hrv", "signal.csv"], "a signal's sample times"), (["hrv", "missing.csv"], "no such file"),
                                      (["hrv", "rpeaks.csv", "--unit", "min"], "min"),
                                      (["hrv", "rpeaks.csv", "--report", "rpeaks.csv"], "rpeaks.csv")] {
            let bad = try vitals(arguments, in: dir)
            #expect(bad.status != 0 && bad.errorLines.count == 1 && bad.stderr.contains(fragment), "\(arguments): \(bad.stderr)")
        }
    }
}
