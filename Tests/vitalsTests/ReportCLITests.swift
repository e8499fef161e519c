import Foundation
import PulseDetection
import Testing

@Suite(.enabled(if: vitalsBinary != nil))
struct ReportCLITests {
    /// `--report` writes the page beside an unchanged JSON document; a report that would replace
    /// the recording, one into a missing folder and one for another pipeline are refused with one
    /// line, before anything is analysed or written.
    @Test func heartRateWritesAnHTMLReportAndRefusesBadTargets() throws {
        let dir = try scratchFolder("report")
        var finger = SimulatedFinger(settings: SimulatedFinger.Settings())
        let text = "time_s,r,g,b\n" + finger.inputs(duration: 20).compactMap { input -> String? in
            guard case .color(let c) = input else { return nil }
            return "\(c.time),\(c.red),\(c.green),\(c.blue)"
        }.joined(separator: "\n")
        try text.write(toFile: dir + "/finger.csv", atomically: true, encoding: .utf8)

        let plain = try vitals(["heart-rate", "finger.csv", "--json"], in: dir)
        let run = try vitals(["heart-rate", "finger.csv", "--json", "--report", "page.html"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == plain.stdout)
        #expect(run.stderr.contains("report written to page.html"))
        let html = try String(contentsOfFile: dir + "/page.html", encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("<svg") && html.contains("finger.csv"))

        let cases: [([String], String)] = [
            (["finger.csv", "--report", "finger.csv"], "same file as the input"),
            (["finger.csv", "--report", "./finger.csv"], "same file as the input"),
            (["finger.csv", "--report", "missing/page.html"], "folder"),
            (["finger.csv", "--skin", "--report", "x.html"], "--report draws the fingertip pipeline"),
            (["finger.csv", "--report", ""], "--report needs a file name"),
        ]
        for (arguments, phrase) in cases {
            let bad = try vitals(["heart-rate"] + arguments, in: dir)
            #expect(bad.status != 0, "\(arguments)")
            #expect(bad.errorLines.count == 1, "\(arguments): \(bad.stderr)")
            #expect(bad.stderr.contains(phrase), "\(arguments): \(bad.stderr)")
        }
        #expect(try String(contentsOfFile: dir + "/finger.csv", encoding: .utf8) == text)
    }
}
