import Foundation
import Testing

@testable import VitalsIO

/// Feeds `text` to an ``FFmpegLog`` through a pipe in pieces of the given sizes (cycled), as ffmpeg's
/// stderr arrives: lines split across reads.
func consumeLog(_ text: String, pieces: [Int] = [7, 50, 1, 300, 13]) throws -> FFmpegLog {
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    let log = FFmpegLog()
    let readFD = fds[0]
    let reader = Thread { log.consume(fd: readFD) }
    reader.start()
    let bytes = Array(text.utf8)
    var offset = 0, i = 0
    while offset < bytes.count {
        let n = min(pieces[i % pieces.count], bytes.count - offset)
        let written = bytes[offset..<offset + n].withUnsafeBytes { write(fds[1], $0.baseAddress!, n) }
        try #require(written == n)
        offset += n
        i += 1
        if i % 3 == 0 { usleep(200) }  // let the reader take what has arrived so far
    }
    close(fds[1])
    log.waitUntilDone()
    close(fds[0])
    return log
}

struct FFmpegLogTests {
    /// ffmpeg 5.1's log of a damaged H.264 clip decoded with frame threads (addresses shortened):
    /// the decoder logs "Out of range weight" and " is not implemented ..." in two calls, and the
    /// showinfo line of frame 209 landed between them, continuing the decoder's line.
    static let interleaved = """
        [Parsed_showinfo_1 @ 0x5a] [info] config in time_base: 1/15360, frame_rate: 30/1
        [Parsed_showinfo_1 @ 0x5a] [info] config out time_base: 0/0, frame_rate: 0/0
        [Parsed_showinfo_1 @ 0x5a] [info] n: 207 pts: 105984 pts_time:6.9     pos:    18897 fmt:nv12 sar:1/1 s:160x120 i:P iskey:0 type:P 
        [Parsed_showinfo_1 @ 0x5a] [info] color_range:pc color_space:unknown color_primaries:unknown color_trc:unknown
        [Parsed_showinfo_1 @ 0x5a] [info] n: 208 pts: 106496 pts_time:6.93333 pos:    18940 fmt:nv12 sar:1/1 s:160x120 i:P iskey:0 type:P 
        [NULL @ 0x5b] [warning] Out of range weight is not implemented. Update your FFmpeg version to the newest one from Git.
        [h264 @ 0x5c] [warning] Out of range weightn: 209 pts: 107008 pts_time:6.96667 pos:    18981 fmt:nv12 sar:1/1 s:160x120 i:P iskey:0 type:P 
        [Parsed_showinfo_1 @ 0x5a] [info] color_range:pc color_space:unknown color_primaries:unknown color_trc:unknown
        [h264 @ 0x5c]  is not implemented. Update your FFmpeg version to the newest one from Git.
        [h264 @ 0x5c] [error] decode_slice_header error
        [h264 @ 0x5c] [error] no frame!
        [Parsed_showinfo_1 @ 0x5a] [info] n: 210 pts: 107520 pts_time:7       pos:    19029 fmt:nv12 sar:1/1 s:160x120 i:P iskey:0 type:P 
        [Parsed_showinfo_1 @ 0x5a] [info] color_range:pc color_space:unknown color_primaries:unknown color_trc:unknown

        """

    @Test func aFrameLineThatContinuesAnotherThreadsMessageIsStillCounted() throws {
        // Frames 0-206 first, so the indices match what the reader asks for.
        var text = "[Parsed_showinfo_1 @ 0x5a] [info] config in time_base: 1/15360, frame_rate: 30/1\n"
        for n in 0..<207 {
            text += "[Parsed_showinfo_1 @ 0x5a] [info] n:\(String(repeating: " ", count: n < 10 ? 3 : n < 100 ? 2 : 1))\(n) pts: \(512 * n) pts_time:x pos: 1 fmt:nv12 \n"
        }
        for pieces in [[7, 50, 1, 300, 13], [1], [65536]] {
            let log = try consumeLog(text + Self.interleaved, pieces: pieces)
            #expect(log.frameCount == 211)
            #expect(log.time(ofFrame: 209) == 107008.0 / 15360)
            #expect(log.time(ofFrame: 210) == 7)
            #expect(log.time(ofFrame: 100) == 51200.0 / 15360)
            #expect(log.time(ofFrame: 211) == nil)
        }
    }

    @Test func aLostFrameLineLeavesOnlyThatFrameWithoutATime() throws {
        // Times are filed under showinfo's frame index, so a line that never comes does not shift
        // the times of the frames after it.
        let log = try consumeLog("""
            [Parsed_showinfo_1 @ 0x5a] n:   0 pts:      0 pts_time:0       pos: 1
            [Parsed_showinfo_1 @ 0x5a] n:   2 pts:   1024 pts_time:0.0666667 pos: 1

            """)
        #expect(log.frameCount == 2)
        #expect(log.time(ofFrame: 0) == 0)
        #expect(log.time(ofFrame: 1) == nil)
        #expect(log.time(ofFrame: 2) == 0.0666667)
    }

    @Test func decodingErrorsAndDamagedFramesAreCounted() throws {
        let log = try consumeLog(Self.interleaved + """
            [h264 @ 0x5c] [error] error while decoding MB 5 7, bytestream -6
            [h264 @ 0x5c] [info] concealing 54 DC, 54 AC, 54 MV errors in P frame
            [warning] file:clip.mp4: corrupt decoded frame in stream 0
            [h264 @ 0x5c] [error] Invalid NAL unit size (3145776 > 48).
            [error] Error while decoding stream #0:0: Invalid data found when processing input
            [rawvideo @ 0x5d] [error] Application provided invalid, non monotonically increasing dts to muxer in stream 0: 270 >= 270

            """)
        // Five error lines from the decoder and ffmpeg; the muxer's line is about the copy.
        #expect(log.decodingIssues == VideoDecodingIssues(errors: 5, damagedFrames: 1, undecodablePackets: 1))
        #expect(try consumeLog(Self.interleaved.replacingOccurrences(of: "[error]", with: "[info]")).decodingIssues == nil)
        // ffmpeg 7's fftools word an undecodable packet differently (not seen here: Debian 12 has 5.1).
        let seven = try consumeLog(Self.interleaved + """
            [vist#0:0/h264 @ 0x5c] [error] Decoding error: Invalid data found when processing input
            [vist#0:0/h264 @ 0x5c] [error] Error submitting packet to decoder: Invalid data found when processing input

            """)
        #expect(seven.decodingIssues?.undecodablePackets == 2)
        let warning = VideoDecodingIssues(errors: 108, damagedFrames: 35, undecodablePackets: 13).warning(path: "c.mp4")
        #expect(warning == "ffmpeg reported 108 decoding errors in c.mp4; 35 frames were decoded with concealed damage and 13 could not be decoded at all (skipped): results may be affected")
        #expect(VideoDecodingIssues(errors: 1, damagedFrames: 0, undecodablePackets: 1).warning(path: "c.mp4")
            == "ffmpeg reported 1 decoding error in c.mp4; 1 frame could not be decoded at all (skipped): results may be affected")
    }

    @Test func theReasonIsTheMostTellingLineNotFFmpegsClosingWords() throws {
        // ffmpeg 5.1 on a small faststart MP4 cut in half.
        let log = try consumeLog("""
            [mov,mp4,m4a,3gp,3g2,mj2 @ 0x5e] [warning] Packet corrupt (stream = 0, dts = -1024).
            [h264 @ 0x5f] [error] Invalid NAL unit size (686 > 604).
            [h264 @ 0x5f] [error] Error splitting the input into NAL units.
            [mov,mp4,m4a,3gp,3g2,mj2 @ 0x5e] [error] stream 0, offset 0x14a5: partial file
            [mov,mp4,m4a,3gp,3g2,mj2 @ 0x5e] [warning] Could not find codec parameters for stream 0 (Video: h264 (avc1 / 0x31637661), none, 64x48, 4 kb/s): unspecified pixel format
            Consider increasing the value for the 'analyzeduration' (0) and 'probesize' (5000000) options
            [error] Error while decoding stream #0:0: Invalid data found when processing input
            [mov,mp4,m4a,3gp,3g2,mj2 @ 0x5e] [error] stream 0, offset 0x14b9: partial file
            [error] Cannot determine format of input stream 0:0 after EOF
            [fatal] Error marking filters as finished
            """)
        #expect(log.reason(prefix: ": ") == ": stream 0, offset 0x14b9: partial file")
        // Without level tags (ffmpeg before 4.1) the words alone decide.
        let old = try consumeLog("""
            [h264 @ 0x5f] Error splitting the input into NAL units.
            Error while decoding stream #0:0: Invalid data found when processing input
            Error marking filters as finished
            """)
        #expect(old.reason(prefix: "") == "Error while decoding stream #0:0: Invalid data found when processing input")
        #expect(try consumeLog("[info] concealing 3 DC, 3 AC, 3 MV errors in P frame\n").reason(prefix: "", errorsOnly: true) == "")
    }

    @Test(.enabled(if: ffmpegAvailable))
    func aDamagedVideoDecodesTheSameEveryTimeAndSaysItIsDamaged() throws {
        // MPEG-4 Part 2 with bytes overwritten in the middle third: frame-threaded decoding
        // conceals the damage differently from run to run.
        let whole = temporaryPath("damaged-src.mp4"), damaged = temporaryPath("damaged.mp4")
        try #require(try runFFmpeg(["-f", "lavfi", "-i", "testsrc=s=160x120:r=30:d=10", "-c:v", "mpeg4", "-pix_fmt", "yuv420p", whole]))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: whole)))
        var state: UInt64 = 7
        for i in (bytes.count * 4 / 10)..<(bytes.count * 6 / 10) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            if state >> 58 == 0 { bytes[i] = UInt8(truncatingIfNeeded: state >> 33) }
        }
        _ = FileManager.default.createFile(atPath: damaged, contents: Data(bytes))
        let first = try VideoColorMeans(path: damaged)
        let issues = try #require(first.decodingIssues)
        #expect(issues.errors > 0)
        #expect(issues.damagedFrames > 0)
        for _ in 0..<3 {
            let again = try VideoColorMeans(path: damaged)
            let differing = zip(again.samples, first.samples).filter { $0 != $1 }.count
            #expect(again.samples.count == first.samples.count)
            #expect(differing == 0)
            #expect(again.decodingIssues == issues)
        }
        #expect(try VideoColorMeans(path: whole).decodingIssues == nil)
    }
}
