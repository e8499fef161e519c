import Foundation
import Testing

@testable import VitalsIO

/// Inputs built to reach a trap: each is read, or refused with an `InputError`, in a process of its
/// own (an exit test), so a trap fails the test instead of ending the run.
@Suite struct HardeningInputTests {
    /// A one-second Matroska clip whose video stream carries the tags `tags` (names and values of
    /// equal length to the ones they replace are patched into the file, as ffmpeg writes tag names
    /// in capitals and rewrites its own DURATION).
    func matroska(tags: [(written: String, patched: String, value: String)], replacing: [(String, String)] = []) throws -> String {
        let written = temporaryPath("tags.mkv")
        try #require(try runFFmpeg(["-f", "lavfi", "-i", "testsrc=s=32x24:r=10:d=1", "-c:v", "ffv1"]
            + tags.flatMap { ["-metadata:s:v:0", "\($0.written)=\($0.value)"] } + [written]))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: written))
        for (from, to) in replacing + tags.map({ ($0.written, $0.patched) }) {
            let f = Data(from.utf8), t = Data(to.utf8)
            precondition(f.count == t.count)
            var searchFrom = bytes.startIndex
            while let r = bytes.range(of: f, in: searchFrom..<bytes.endIndex) {
                bytes.replaceSubrange(r, with: t)
                searchFrom = r.upperBound
            }
        }
        let path = temporaryPath("patched.mkv")
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(.enabled(if: ffmpegAvailable))
    func aMatroskaDurationTagOfUntoldHoursIsReadNotTrapped() async throws {
        // 5000000000000000 hours: `h * 3600` in Int overflowed and trapped while probing.
        let path: String = try matroska(tags: [("DURATIOM", "DURATION", "5000000000000000:00:00.0")],
                                replacing: [("DURATION", "XURATION")])
        await #expect(processExitsWith: .success) { [path = path as String] in
            let reader = try FFmpegVideoReader(path: path)
            guard let duration = reader.videoInfo.duration, duration > 1.7e19 else { exit(2) }
            // The frames fall far short of the stated length: one error naming it.
            do {
                _ = try reader.colorSamples()
                exit(3)
            } catch let error as InputError {
                guard error.code == .corrupt, error.message.contains("truncated or corrupt") else { exit(4) }
            }
            guard FFmpegVideoReader.matroskaDuration("5000000000000000:00:00.0") == 5e15 * 3600 else { exit(5) }
        }
    }

    @Test(.enabled(if: ffmpegAvailable))
    func aRotateTagFarPastOneTurnIsReadNotTrapped() async throws {
        // 1e300 degrees / 90 is past Int's range: the conversion trapped while probing.
        let path: String = try matroska(tags: [("ROTATX", "rotate", "1e300")])
        await #expect(processExitsWith: .success) { [path = path as String] in
            let reader = try FFmpegVideoReader(path: path)
            guard [nil, 90, 180, 270].contains(reader.videoInfo.displayRotation) else { exit(2) }
            guard try reader.colorSamples().count == 10 else { exit(3) }
            let negative = try FFmpegVideoReader.probe(
                json: probeJSON(stream: ["tags": ["rotate": "-1e300"]], format: ["format_name": "matroska,webm"]), path: "v.mkv")
            guard negative.rotation % 90 == 0 else { exit(4) }
        }
        // An angle past one turn is the angle within it, as before.
        let probe = try FFmpegVideoReader.probe(
            json: probeJSON(stream: ["tags": ["rotate": "450"]], format: ["format_name": "matroska,webm"]), path: "v.mkv")
        #expect(probe.rotation == 90)
    }

    /// A folder holding `recording` as s_01.csv and `truth` as s_01_truth.csv.
    func fingertipFolder(recording: String, truth: String) throws -> String {
        let folder = (temporaryPath("s_01.csv") as NSString).deletingLastPathComponent
        try recording.write(toFile: folder + "/s_01.csv", atomically: true, encoding: .utf8)
        try truth.write(toFile: folder + "/s_01_truth.csv", atomically: true, encoding: .utf8)
        return folder
    }

    /// 30 s of a torch-lit fingertip's colour at 30 Hz, pulsing at 72 bpm, from `start` seconds.
    func fingertipRows(from start: Double) -> String {
        (0..<900).map { i in
            let t = start + Double(i) / 30
            return String(format: "%.4f,%.3f,50,30\n", t, 200 + 5 * sin(2 * Double.pi * 1.2 * t))
        }.joined()
    }

    @Test func evalFingertipRefusesARecordingWhoseTimesSpanMoreWindowsThanItScores() throws {
        // Two half minutes 10^6 s apart: 200,000 windows were listed and scored (a jump of 10^9 s
        // took 2 GB and 7 s, and grows with the jump).
        let folder = try fingertipFolder(recording: "time_s,r,g,b\n" + fingertipRows(from: 0) + fingertipRows(from: 1e6),
                                         truth: "time_s,hr_bpm\n0,72\n10,72\n20,72\n")
        #expect {
            _ = try FingertipEvaluation.run(directory: folder)
        } throws: { error in
            let e = error as? InputError
            return e?.code == .badTimestamps && e?.message.contains("s_01.csv: the times span 1e+06 s") == true
                && e?.message.contains("at most 100000 are scored") == true
        }
    }

    @Test func evalFingertipRefusesATruthWhoseTimesSpanMoreWindowsThanItScores() throws {
        // A recording that cannot be read has its windows laid over the truth's times: a truth
        // time of 10^15 s listed 2e14 window starts (16 GB, then an abort).
        let folder = try fingertipFolder(recording: "time_s,r,g,b\n", truth: "time_s,hr_bpm\n0,70\n2e6,70\n")
        #expect {
            _ = try FingertipEvaluation.run(directory: folder)
        } throws: { error in
            let e = error as? InputError
            return e?.code == .badTimestamps && e?.message.contains("s_01_truth.csv: the times span 2e+06 s") == true
        }
        // Within the limit, the unreadable recording is still scored as not answered.
        let fits = try fingertipFolder(recording: "time_s,r,g,b\n", truth: "time_s,hr_bpm\n0,70\n60,70\n")
        let run = try FingertipEvaluation.run(directory: fits)
        #expect(run.subjects.count == 1 && run.subjects[0].failure != nil && !run.subjects[0].windows.isEmpty)
    }

    @Test(arguments: ["1e308", "1000", "0.001"])
    func evalVideoRefusesATruthThatIsNoHeartRate(hr: String) throws {
        // Scored as it was: a truth of 1e308 bpm printed as a 309-digit number, 0.001 as 0.0.
        let folder = (temporaryPath("a.y4m") as NSString).deletingLastPathComponent
        try FingerVideoSimulator(.init(bpm: 75, seconds: 1, width: 16, height: 12)).writeY4M(to: folder + "/a.y4m")
        try "{\"hr_bpm\": \(hr)}".write(toFile: folder + "/a.json", atomically: true, encoding: .utf8)
        #expect {
            _ = try VideoEvaluation.run(directory: folder)
        } throws: { error in
            let e = error as? InputError
            return e?.code == .notANumber && e?.message.hasSuffix("bpm is no truth (20-300 bpm)") == true
        }
    }
}
