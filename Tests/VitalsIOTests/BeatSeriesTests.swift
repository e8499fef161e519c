import Foundation
import PulseDetection
import Testing
@testable import VitalsIO

@Suite struct BeatSeriesTests {
    /// 300 intervals around 800 ms with a 4-s breathing swing of ±40 ms and one premature beat
    /// (a short-long pair at 150-151).
    private func intervals() -> [Double] {
        var rr = (0..<300).map { 800 + 40 * sin(2 * Double.pi * Double($0) * 0.8 / 4) }
        rr[150] = 560
        rr[151] = 1040
        return rr
    }

    private func parse(_ text: String, times: String? = nil, intervals: String? = nil,
                       unit: BeatSeries.IntervalUnit? = nil) throws -> BeatSeries {
        try BeatSeries.parse(bytes: Array(text.utf8), source: "beats.csv", times: times, intervals: intervals, unit: unit)
    }

    private func isInputError(_ code: InputError.Code, _ text: String, containing fragment: String,
                              times: String? = nil, intervals: String? = nil) {
        do {
            _ = try parse(text, times: times, intervals: intervals)
            Issue.record("\(text.prefix(40)) was read")
        } catch let e as InputError {
            #expect(e.code == code && e.message.contains(fragment), "\(e.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    /// Intervals and the beat times they add up to give the same HRV as `HRV.measures` on the
    /// intervals themselves, and the premature beat's pair is left out.
    @Test func intervalsAndBeatTimesGiveTheSameHRV() throws {
        let rr = intervals()
        let expected = HRV.measures(intervals: rr).measures
        let fromIntervals = try parse("rr_ms\n" + rr.map { String($0) }.joined(separator: "\n"))
        #expect(fromIntervals.kind == .intervals && fromIntervals.unit == .milliseconds && fromIntervals.notes.isEmpty)
        let a = fromIntervals.hrv()
        #expect(a.measures.rmssd == expected.rmssd && a.measures.sdnn == expected.sdnn)
        #expect(a.rejected.contains { $0.index == 150 && $0.reason == .ectopicOrMisplacedBeat })

        var t = 12.5
        let times = [t] + rr.map { t += $0 / 1000; return t }
        let fromTimes = try parse("time_s,other\n" + times.map { "\($0),1" }.joined(separator: "\n"))
        #expect(fromTimes.kind == .beatTimes && fromTimes.column == "time_s")
        let b = fromTimes.hrv().measures
        #expect(abs(b.rmssd - expected.rmssd) < 1e-6 && abs(b.sdnn - expected.sdnn) < 1e-6)
    }

    /// A plain list without a header is intervals: in ms, or in seconds when they are that small
    /// (said in a note); a name ending in `_s` says seconds; `--unit` overrides.
    @Test func unitsFromTheNameTheSizeOrTheOption() throws {
        let ms = intervals().map { String($0) }.joined(separator: "\n")
        let plain = try parse(ms)
        #expect(plain.kind == .intervals && plain.column == "1" && plain.unit == .milliseconds && plain.intervals.count == 300)
        let seconds = try parse(intervals().map { String($0 / 1000) }.joined(separator: "\n"))
        #expect(seconds.unit == .seconds && seconds.notes.count == 1 && abs(seconds.intervals[0] - 800) < 1e-9)
        let named = try parse("RR_s\n0.8\n0.81\n0.79\n")
        #expect(named.unit == .seconds && named.notes.isEmpty && named.intervals == [800, 810, 790])
        let forced = try parse("gap\n800\n810\n790\n", intervals: "gap", unit: .seconds)
        #expect(forced.intervals == [800_000, 810_000, 790_000])
    }

    @Test func badInputIsOneErrorNamingTheProblem() {
        // A signal's sample times, not beats.
        isInputError(.badTimestamps, "time_s,ppg\n" + (0..<100).map { "\(Double($0) / 100),0" }.joined(separator: "\n"),
                     containing: "a signal's sample times")
        isInputError(.badTimestamps, "time_s\n1\n2\n1.5\n3\n", containing: "line 4: beat time 1.5 s does not come after")
        isInputError(.nonFinite, "time_s\n1\n\n2\nnan\n", containing: "line 5")
        isInputError(.tooShort, "rr_ms\n800\n", containing: "1 interval: HRV needs at least 2")
        isInputError(.tooShort, "time_s\n1\n2\n", containing: "1 interval")
        isInputError(.badOption, "rr\n20\n21\n22\n", containing: "cannot tell the unit")
        isInputError(.missingColumn, "a,b\n1,2\n", containing: "header: a,b")
        // A list without a header: its one column is column '1', as the summary names it.
        isInputError(.notANumber, "800\n810\nabc\n790\n", containing: "line 3, column '1'")
        isInputError(.missingColumn, "rr_ms\n800\n", containing: "'beat' not found", times: "beat")
        isInputError(.badOption, "rr_ms\n800\n", containing: "not both", times: "a", intervals: "b")
        // A unit for beat times, which are seconds, was ignored without a word.
        do {
            _ = try parse("time_s\n1\n2\n3\n", unit: .milliseconds)
            Issue.record("--unit ms was taken for beat times")
        } catch let e as InputError {
            #expect(e.code == .badOption && e.message.contains("--unit ms applies to intervals"), "\(e.message)")
        } catch {
            Issue.record("\(error)")
        }
        #expect((try? parse("time_s\n1\n2\n3\n", unit: .seconds))?.times == [1, 2, 3])
    }

    /// The report lists every interval with its end, whether HRV kept it and why not.
    @Test func reportListsEveryInterval() throws {
        let series = try parse("rr_ms\n" + intervals().map { String($0) }.joined(separator: "\n"))
        let result = series.hrv()
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(series.report(source: "beats.csv", hrv: result).serialized().utf8)) as? [String: Any])
        #expect(doc["beats"] as? Double == 301)
        let rows = try #require(doc["intervals"] as? [[String: Any]])
        #expect(rows.count == 300)
        #expect(rows[150]["accepted"] as? Bool == false && rows[150]["reason"] as? String == "ectopic_or_misplaced_beat")
        #expect(rows[0]["accepted"] as? Bool == true && rows[0]["reason"] is NSNull)
        #expect(abs((rows[299]["end_s"] as? Double ?? 0) - intervals().reduce(0, +) / 1000) < 1e-3)
        #expect(doc["ectopic_beat_indices"] as? [Double] == result.ectopicBeats.map(Double.init))
        #expect((doc["hrv"] as? [String: Any])?["rmssd"] as? Double != nil)
    }
}
