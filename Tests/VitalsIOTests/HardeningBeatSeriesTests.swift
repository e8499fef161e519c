import Foundation
import PulseDetection
import Testing

@testable import VitalsIO

/// Beat files built to reach a trap or a NaN in `vitals hrv`: each page is drawn in a process of
/// its own (an exit test), so a trap fails the test instead of ending the run.
@Suite struct HardeningBeatSeriesTests {
    /// The HRV page of `text` read as a beat file (CSV).
    static func page(_ text: String) throws -> String {
        let series = try BeatSeries.parse(bytes: Array(text.utf8), source: "beats.csv")
        return HRVHTMLReport.html(input: "beats.csv", series: series, hrv: series.hrv())
    }

    @Test func aPageOfIntervalsAllOffTheChartIsDrawnNotTrapped() async {
        // Intervals of a day (or of 1 us, or 1e308 ms) are read and all left out as out of range: the
        // tachogram's interval axis ran from 2500 down to 86 400 100 ms (or up to 200 from 100) and
        // the page's length, 1e308 ms x 100 in seconds, went through Int(_:) in clock(_:).
        await #expect(processExitsWith: .success) {
            for value in ["86400000", "0.001", "1e308"] {
                let html = try HardeningBeatSeriesTests.page("rr_ms\n" + String(repeating: value + "\n", count: 100))
                guard html.contains("Beat-to-beat intervals"), html.contains("<th>out of range</th><td>100</td>") else { exit(2) }
            }
        }
    }

    @Test func aPageOfIntervalsSummingPastTheLargestDoubleIsDrawnNotTrapped() async {
        // 3000 intervals of 1.7e308 ms end at infinity: the time axis of 0...NaN trapped.
        await #expect(processExitsWith: .success) {
            let text = "rr_ms\n" + String(repeating: "1.7e308\n", count: 3000) + String(repeating: "800\n", count: 50)
            let html = try HardeningBeatSeriesTests.page(text)
            guard html.contains("Beat-to-beat intervals"), html.contains("3051 beats over –") else { exit(2) }
        }
    }

    @Test func aPageWithoutTwoKeptIntervalsInARowShowsNoRMSSD() throws {
        // Every other interval out of range (a mixed-up unit): 60 kept, none next to another kept
        // one, so no successive difference. The RMSSD card read 'nan ms'.
        let html = try Self.page("rr\n" + String(repeating: "0.8\n800\n0.81\n810\n", count: 30))
        #expect(html.contains("60 of 120 intervals used for HRV"))
        #expect(html.contains("<div class=\"label\">RMSSD</div><div class=\"value\">–</div>"))
        #expect(!html.contains("nan <small>"))
    }

    @Test func aLongDurationIsWrittenInSecondsAndANonFiniteOneAsADash() async {
        await #expect(processExitsWith: .success) {
            guard clock(1e307) == "1e+307 s", clock(.infinity) == "–", clock(.nan) == "–" else { exit(2) }
            guard clock(3725) == "1:02:05", clock(65) == "1:05" else { exit(3) }
        }
    }

    @Test func beatTimesTooFarFromZeroForMillisecondsAreRefused() throws {
        // Beats 800 ms apart at 1e15 s: Doubles there are 0.125 s apart, so the intervals read 750
        // or 875 ms and RMSSD 112 ms (none of it in the file).
        let text = "time_s\n" + (0..<100).map { String(1e15 + 0.8 * Double($0)) }.joined(separator: "\n")
        #expect {
            _ = try BeatSeries.parse(bytes: Array(text.utf8), source: "beats.csv")
        } throws: { error in
            let message = (error as? InputError)?.message ?? ""
            return message.contains("line 2: beat time 1e+15 s is too far from zero to keep its milliseconds (times there are 0.125 s apart)")
        }
        // Times of a year of seconds, or 2^42 s, keep theirs.
        for start in [31_536_000.0, 4_398_046_511_104] {
            let series = try BeatSeries.parse(bytes: Array(("time_s\n" + (0..<10).map { String(start + 0.8 * Double($0)) }.joined(separator: "\n")).utf8), source: "beats.csv")
            #expect(series.intervalsMs.allSatisfy { abs($0 - 800) < 1 }, "\(series.intervalsMs)")
        }
    }
}
