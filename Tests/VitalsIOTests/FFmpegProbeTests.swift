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

/// The probe of a single-stream 30-fps MP4 storing 300 frames, whose stream (and container) lasts
/// `duration` seconds (ffprobe's text).
func mp4Probe(duration: String, path: String) throws -> FFmpegVideoReader.Probe {
    try FFmpegVideoReader.probe(
        json: probeJSON(
            stream: ["avg_frame_rate": "30/1", "r_frame_rate": "30/1", "nb_frames": "300", "duration": duration],
            format: ["format_name": "mov,mp4,m4a,3gp,3g2,mj2", "duration": duration, "nb_streams": 1]),
        path: path)
}

struct FFmpegProbeTests {
    @Test("the display rotation is read from the display matrix or the older rotate tag, as 0, 90, 180 or 270 degrees")
    func displayRotation() throws {
        func rotation(_ stream: [String: Any]) throws -> Int {
            try FFmpegVideoReader.probe(json: probeJSON(stream: stream, format: ["format_name": "mov,mp4,m4a,3gp,3g2,mj2"]), path: "v.mp4").rotation
        }
        #expect(try rotation([:]) == 0)
        #expect(try rotation(["side_data_list": [["rotation": -90]]]) == 270)  // a portrait phone video
        #expect(try rotation(["side_data_list": [["rotation": 90.0]]]) == 90)
        #expect(try rotation(["side_data_list": [["rotation": 180]]]) == 180)
        #expect(try rotation(["side_data_list": [["displaymatrix": "..."]], "tags": ["rotate": "270"]]) == 270)
        #expect(try rotation(["side_data_list": [["rotation": -360]]]) == 0)
    }

    @Test func aTrimWithoutReencodingIsJudgedByItsEditedDurationNotItsStoredFrames() throws {
        // `ffmpeg -ss 1.5 -i gop.mp4 -c copy cut.mp4` of a 10-s, 30-fps video with a keyframe every
        // 4 s: the file stores all 300 frames back to the keyframe at 0 s, its edit list plays 8.5 s,
        // and ffmpeg decodes 255 frames.
        let probe = try mp4Probe(duration: "8.500000", path: "cut.mp4")
        #expect(probe.frameCount == 255)
        #expect(probe.duration == 8.5)
        #expect(FFmpegVideoReader.shortfall(decodedFrames: 255, span: 8.5, info: sourceInfo(probe)) == nil)
    }

    @Test func aFileCutShortIsStillReportedAsTruncated() throws {
        // The same 10-s video with its last half missing (the index at the start survives).
        let probe = try mp4Probe(duration: "10.000000", path: "half.mp4")
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

    @Test func theDeliveredMatrixIsTheDeclaredOneOrItsNearestAndUntaggedFollowsThePlayersConvention() {
        let cases: [(String, Int, Int, String, YCbCrEncoding.Matrix)] = [
            ("bt709", 640, 480, "bt709", .bt709), ("smpte170m", 1920, 1080, "bt601", .bt601),
            ("bt470bg", 640, 480, "bt601", .bt601), ("bt2020nc", 3840, 2160, "bt2020", .bt2020),
            ("bt2020c", 1920, 1080, "bt2020", .bt2020), ("fcc", 640, 480, "fcc", .bt601),
            ("smpte240m", 1920, 1080, "smpte240m", .bt709),
            // Untagged, or RGB ("gbr"): by size, a side of 720 pixels making HD.
            ("unknown", 1280, 720, "bt709", .bt709), ("unknown", 1080, 1920, "bt709", .bt709),
            ("unknown", 640, 480, "bt601", .bt601), ("gbr", 1280, 720, "bt709", .bt709),
            ("reserved", 320, 240, "bt601", .bt601),
        ]
        for (space, w, h, source, delivered) in cases {
            let m = FFmpegVideoReader.colorMatrices(space: space, width: w, height: h)
            #expect(m.source == source && m.delivered == delivered, "\(space) \(w)x\(h)")
        }
    }

    /// A solid (200, 50, 30) video made from RGB by ffmpeg: converted to Y'CbCr with `matrix`
    /// (swscale's name), tagged `colorspace` (none when nil), in `pixelFormat` and `range`; or left
    /// RGB when `matrix` is nil.
    func solidVideo(_ name: String, size: String, matrix: String?, colorspace: String?, pixelFormat: String = "yuv420p",
                    range: String = "tv", codec: String = "ffv1") throws -> String {
        let path = temporaryPath(name)
        var filter = "format=rgb24"
        var tags: [String] = []
        if let matrix {
            filter += ",scale=out_color_matrix=\(matrix):out_range=\(range),format=\(pixelFormat)"
            tags = ["-color_range", range] + (colorspace.map { ["-colorspace", $0] } ?? [])
        }
        try #require(try runFFmpeg(
            ["-f", "lavfi", "-i", "color=c=0xC8321E:s=\(size):r=10:d=0.3", "-vf", filter] + tags + ["-c:v", codec, path]))
        return path
    }

    @Test(.enabled(if: ffmpegAvailable))
    func solidColourReadsBackForEveryMatrixAndForRGBSources() throws {
        // The tolerance is the 8-bit video-range quantisation of the Y'CbCr samples: a luma step
        // is 255/219 = 1.16 levels of R, G and B, a chroma step up to 1.86 (B, BT.709), and
        // swscale's RGB -> Y'CbCr truncates (Cr 194 where 194.69 is exact) rather than rounds.
        // Decoding with the wrong matrix misses by 5 to 14 levels.
        let tolerance = 2.5
        // SMPTE 240M samples are converted to BT.709 by swscale (a second rounding), and BGRA
        // output is swscale's Y'CbCr -> RGB, which reads about 3 levels low on every channel here.
        let convertedTolerance = 4.0
        let videos = [
            try solidVideo("solid-601.mkv", size: "640x480", matrix: "bt601", colorspace: "smpte170m"),
            try solidVideo("solid-709.mkv", size: "1280x720", matrix: "bt709", colorspace: "bt709"),
            try solidVideo("solid-709-sd.mkv", size: "640x480", matrix: "bt709", colorspace: "bt709"),
            try solidVideo("solid-601-hd.mkv", size: "1280x720", matrix: "bt601", colorspace: "bt470bg"),
            try solidVideo(
                "solid-2020.mkv", size: "1280x720", matrix: "bt2020", colorspace: "bt2020nc", pixelFormat: "yuv420p10le"),
            try solidVideo("solid-2020-full.mkv", size: "640x480", matrix: "bt2020", colorspace: "bt2020nc", range: "pc"),
            try solidVideo("solid-240m.mkv", size: "1280x720", matrix: "smpte240m", colorspace: "smpte240m"),
            try solidVideo("solid-untagged-hd.mkv", size: "1280x720", matrix: "bt709", colorspace: nil),
            try solidVideo("solid-untagged-sd.mkv", size: "640x480", matrix: "bt601", colorspace: nil),
            try solidVideo("solid-rgb-hd.mov", size: "1280x720", matrix: nil, colorspace: nil, codec: "png"),
            try solidVideo("solid-rgb-sd.mov", size: "640x480", matrix: nil, colorspace: nil, codec: "png"),
        ]
        for path in videos {
            for bgra in [false, true] {
                let samples = try FFmpegVideoReader(path: path, options: .init(maxDimension: 64, bgra: bgra)).colorSamples()
                try #require(samples.count == 3)
                let c = samples[1]
                let name = URL(fileURLWithPath: path).lastPathComponent + (bgra ? " bgra" : "")
                let tolerance = bgra || name.contains("240m") ? convertedTolerance : tolerance
                #expect(abs(c.red - 200) <= tolerance, "\(name): R \(c.red)")
                #expect(abs(c.green - 50) <= tolerance, "\(name): G \(c.green)")
                #expect(abs(c.blue - 30) <= tolerance, "\(name): B \(c.blue)")
            }
        }
    }

    @Test func aStillImageIsReadOnlyWhenAskedFor() throws {
        let png = probeJSON(stream: ["codec_name": "png", "pix_fmt": "rgb24"], format: ["format_name": "png_pipe"])
        #expect(throws: InputError.self) { try FFmpegVideoReader.probe(json: png, path: "a.png") }
        #expect(try FFmpegVideoReader.probe(json: png, path: "a.png", stillImages: true).width == 320)
    }
}
