import Foundation
import PulseDetection
import Testing

@Suite(.enabled(if: vitalsBinary != nil))
struct ReportCLITests {
    /// `--report` writes the page beside an unchanged JSON document (also with `--skin`); a report
    /// that would replace the recording (with any pipeline) or go into a missing folder is refused
    /// with one line, before anything is analysed or written.
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
            (["finger.csv", "--skin", "--report", "finger.csv"], "same file as the input"),
            (["finger.csv", "--column", "r,g", "--motion", "r,g,b", "--report", "finger.csv"], "same file as the input"),
            (["finger.csv", "--report", ""], "--report needs a file name"),
        ]
        for (arguments, phrase) in cases {
            let bad = try vitals(["heart-rate"] + arguments, in: dir)
            #expect(bad.status != 0, "\(arguments)")
            #expect(bad.errorLines.count == 1, "\(arguments): \(bad.stderr)")
            #expect(bad.stderr.contains(phrase), "\(arguments): \(bad.stderr)")
        }
        #expect(try String(contentsOfFile: dir + "/finger.csv", encoding: .utf8) == text)

        // The remote pulse's page, beside the same JSON.
        let skin = try vitals(["heart-rate", "finger.csv", "--skin", "--json"], in: dir)
        let skinRun = try vitals(["heart-rate", "finger.csv", "--skin", "--json", "--report", "skin.html"], in: dir)
        #expect(skinRun.status == 0 && skinRun.stdout == skin.stdout, "\(skinRun.stderr)")
        let skinPage = try String(contentsOfFile: dir + "/skin.html", encoding: .utf8)
        #expect(skinPage.contains("Remote pulse from skin") && skinPage.contains("whole frame green"))
    }

    /// `vitals motion --report` writes the page and prints the same summary; the input is never the report.
    @Test func motionWritesAnHTMLReport() throws {
        let dir = try scratchFolder("motion-report")
        var text = "timestamp,motionGravityX,motionGravityY,motionGravityZ,motionUserAccelerationX,motionUserAccelerationY,motionUserAccelerationZ,motionRotationRateX,motionRotationRateY,motionRotationRateZ\n"
        for i in 0..<3000 {
            let t = Double(i) / 50
            let a = t > 10 && t < 40 ? 0.8 * sin(2 * Double.pi * t / 2.5) : 0
            text += "\(t),\(sin(a)),0,\(-cos(a)),0,0,0,0,0,0\n"
        }
        try text.write(toFile: dir + "/log.csv", atomically: true, encoding: .utf8)
        let plain = try vitals(["motion", "log.csv"], in: dir)
        let run = try vitals(["motion", "log.csv", "--report", "motion.html"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == plain.stdout)
        let html = try String(contentsOfFile: dir + "/motion.html", encoding: .utf8)
        #expect(html.contains("Motion report") && html.contains("<svg"))
        for (arguments, phrase) in [(["log.csv", "--report", "log.csv"], "same file as the input"), (["log.csv", "--report", ""], "needs a file name")] {
            let bad = try vitals(["motion"] + arguments, in: dir)
            #expect(bad.status != 0 && bad.errorLines.count == 1 && bad.stderr.contains(phrase), "\(arguments): \(bad.stderr)")
        }
        #expect(try String(contentsOfFile: dir + "/log.csv", encoding: .utf8) == text)
    }

    /// `vitals steps --report` writes the page beside the same JSON; the input is never the report.
    @Test func stepsWritesAnHTMLReport() throws {
        let dir = try scratchFolder("steps-report")
        var text = "time,acc_x,acc_y,acc_z\n"
        for i in 0..<(40 * 50) {
            let t = Double(i) / 50
            text += String(format: "%.3f,0,0,%.4f\n", t, -1 - (t >= 5 && t < 30 ? 0.3 * sin(2 * Double.pi * 2 * t) : 0))
        }
        try text.write(toFile: dir + "/walk.csv", atomically: true, encoding: .utf8)
        let plain = try vitals(["steps", "walk.csv", "--accel-unit", "g", "--json"], in: dir)
        let run = try vitals(["steps", "walk.csv", "--accel-unit", "g", "--json", "--report", "steps.html"], in: dir)
        #expect(run.status == 0 && run.stdout == plain.stdout, "\(run.stderr)")
        #expect(try String(contentsOfFile: dir + "/steps.html", encoding: .utf8).contains("Steps report"))
        let bad = try vitals(["steps", "walk.csv", "--report", "walk.csv"], in: dir)
        #expect(bad.status != 0 && bad.errorLines.count == 1 && bad.stderr.contains("same file as the input"), "\(bad.stderr)")
        #expect(try String(contentsOfFile: dir + "/walk.csv", encoding: .utf8) == text)
    }
}
