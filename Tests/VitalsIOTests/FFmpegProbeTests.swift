import Foundation
import PulseDetection
import Testing

@testable import VitalsIO

/// ffprobe's JSON answer for one video stream and its container (the fields the reader asks for).
func probeJSON(stream: [String: Any], format: [String: Any]) -> [String: Any] {
    var s: [String: Any] = ["codec_name": "h264", "width": 320, "height": 240, "pix_fmt": "yuv420p"]
    s.merge(stream) { $1 }
    return ["streams": [s], "format": format]
}

/// The `VideoInfo` the reader would build from a probe, at the source size.
func sourceInfo(_ probe: FFmpegVideoReader.Probe) -> VideoInfo {
    VideoInfo(
        width: probe.width, height: probe.height, sourceWidth: probe.width, sourceHeight: probe.height,
        nominalFrameRate: probe.frameRate, duration: probe.duration, frameCountHint: probe.frameCount,
        codec: probe.codec)
}

struct FFmpegProbeTests {
    @Test func aTrimWithoutReencodingIsJudgedByItsEditedDurationNotItsStoredFrames() throws {
        // `ffmpeg -ss 1.5 -i gop.mp4 -c copy cut.mp4` of a 10-s, 30-fps video with a keyframe every
        // 4 s: the file stores all 300 frames back to the keyframe at 0 s, its edit list plays 8.5 s,
        // and ffmpeg decodes 255 frames.
        let probe = try FFmpegVideoReader.probe(
            json: probeJSON(
                stream: ["avg_frame_rate": "30/1", "r_frame_rate": "30/1", "nb_frames": "300", "duration": "8.500000"],
                format: ["format_name": "mov,mp4,m4a,3gp,3g2,mj2", "duration": "8.500000", "nb_streams": 1]),
            path: "cut.mp4")
        #expect(probe.frameCount == 255)
        #expect(probe.duration == 8.5)
        #expect(FFmpegVideoReader.shortfall(decodedFrames: 255, span: 8.5, info: sourceInfo(probe)) == nil)
    }

    @Test func aFileCutShortIsStillReportedAsTruncated() throws {
        // The same 10-s video with its last half missing (the index at the start survives).
        let probe = try FFmpegVideoReader.probe(
            json: probeJSON(
                stream: ["avg_frame_rate": "30/1", "r_frame_rate": "30/1", "nb_frames": "300", "duration": "10.000000"],
                format: ["format_name": "mov,mp4,m4a,3gp,3g2,mj2", "duration": "10.000000", "nb_streams": 1]),
            path: "half.mp4")
        let why = FFmpegVideoReader.shortfall(decodedFrames: 140, span: 140 / 30, info: sourceInfo(probe))
        #expect(why == "only 140 of 300 frames could be decoded")
        // Without a frame count, the span of the frames against the duration says it.
        var noCount = sourceInfo(probe)
        noCount.frameCountHint = nil
        #expect(FFmpegVideoReader.shortfall(decodedFrames: 140, span: 140 / 30, info: noCount)
            == "frames cover only 4.67 of 10.00 s")
        #expect(FFmpegVideoReader.shortfall(decodedFrames: 300, span: 10, info: noCount) == nil)
    }

    @Test(.enabled(if: ffmpegAvailable))
    func aTrimmedMP4DecodesWithoutATruncationError() throws {
        let gop = temporaryPath("gop.mp4"), cut = temporaryPath("gop-cut.mp4")
        try #require(try runFFmpeg(["-f", "lavfi", "-i", "testsrc=s=64x48:r=30:d=4", "-c:v", "mpeg4", "-g", "60", gop]))
        try #require(try runFFmpeg(["-ss", "1.5", "-i", gop, "-c", "copy", cut]))
        let reader = try FFmpegVideoReader(path: cut)
        let samples = try reader.colorSamples()
        // 2.5 s at 30 fps are played; the file stores 120 frames.
        #expect(samples.count == 75)
        #expect(abs(samples.last!.time - samples.first!.time - 74.0 / 30) < 1e-3)

        // Cut bytes off the end of a file whose index comes first: still reported as truncated.
        let whole = temporaryPath("faststart.mp4"), half = temporaryPath("faststart-half.mp4")
        try #require(try runFFmpeg([
            "-f", "lavfi", "-i", "testsrc=s=64x48:r=30:d=4", "-c:v", "mpeg4", "-movflags", "+faststart", whole,
        ]))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        _ = FileManager.default.createFile(atPath: half, contents: bytes.prefix(bytes.count / 2))
        #expect(inputErrorCode { _ = try FFmpegVideoReader(path: half).colorSamples() } == .corrupt)
    }

    @Test func matroskaVideoIsMeasuredByItsOwnDurationTagNotTheLongerAudio() throws {
        // 3 s of VP8 video and 8 s of Opus in WebM (ffprobe's answer for the video stream): the
        // container's 8.008 s is the audio's; the video's tag ends at 3.007 s and it starts at 0.007 s.
        let stream: [String: Any] = [
            "avg_frame_rate": "30/1", "r_frame_rate": "30/1", "start_time": "0.007000",
            "tags": ["ENCODER": "Lavc59.37.100 libvpx", "DURATION": "00:00:03.007000000"],
        ]
        let format: [String: Any] = ["format_name": "matroska,webm", "duration": "8.008000", "nb_streams": 2]
        let probe = try FFmpegVideoReader.probe(json: probeJSON(stream: stream, format: format), path: "a.webm")
        #expect(abs(probe.duration! - 3.0) < 1e-9)
        #expect(FFmpegVideoReader.shortfall(decodedFrames: 90, span: 3.0, info: sourceInfo(probe)) == nil)
        // No tag: the container's duration stands for the video only when it is the file's one stream.
        var untagged = stream
        untagged["tags"] = nil
        #expect(try FFmpegVideoReader.probe(json: probeJSON(stream: untagged, format: format), path: "a.mkv").duration == nil)
        var single = format
        single["nb_streams"] = 1
        #expect(try FFmpegVideoReader.probe(json: probeJSON(stream: untagged, format: single), path: "a.mkv").duration == 8.008)
    }

    @Test func matroskaDurationTagsParseAsHoursMinutesSeconds() {
        #expect(FFmpegVideoReader.matroskaDuration("00:00:03.007000000") == 3.007)
        #expect(FFmpegVideoReader.matroskaDuration("01:02:03.5") == 3723.5)
        for bad in ["", "3.0", "00:61:00.0", "00:00:xx", "-1:00:00.0", "00:00:00:00"] {
            #expect(FFmpegVideoReader.matroskaDuration(bad) == nil, "\(bad)")
        }
    }

    @Test(.enabled(if: ffmpegAvailable))
    func matroskaWithAudioLongerThanItsVideoDecodesWithoutATruncationError() throws {
        let mkv = temporaryPath("long-audio.mkv")
        try #require(try runFFmpeg([
            "-f", "lavfi", "-i", "testsrc=s=64x48:r=30:d=3", "-f", "lavfi", "-i", "sine=duration=8",
            "-c:v", "ffv1", "-c:a", "pcm_s16le", mkv,
        ]))
        #expect(try FFmpegVideoReader(path: mkv).colorSamples().count == 90)

        // Both streams 6 s, the second half of the file missing: still truncated.
        let both = temporaryPath("both.mkv"), half = temporaryPath("both-half.mkv")
        try #require(try runFFmpeg([
            "-f", "lavfi", "-i", "testsrc=s=64x48:r=30:d=6", "-f", "lavfi", "-i", "sine=duration=6",
            "-c:v", "ffv1", "-c:a", "pcm_s16le", both,
        ]))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: both))
        _ = FileManager.default.createFile(atPath: half, contents: bytes.prefix(bytes.count / 2))
        #expect(inputErrorCode { _ = try FFmpegVideoReader(path: half).colorSamples() } == .corrupt)
    }
}
