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
}
