import Foundation
import PulseDetection
import Testing

@testable import VitalsIO

/// True when ffmpeg and ffprobe are on PATH; the tests that decode real video need them.
let ffmpegAvailable = (try? FFmpegVideoReader.locate("ffmpeg")) != nil && (try? FFmpegVideoReader.locate("ffprobe")) != nil

/// Runs ffmpeg with `arguments`; true when it succeeds.
@discardableResult
func runFFmpeg(_ arguments: [String]) throws -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try FFmpegVideoReader.locate("ffmpeg"))
    process.arguments = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"] + arguments
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus == 0
}

/// A simulated fingertip clip as Y4M, and its path.
func simulatedClip(seconds: Double = 2, width: Int = 48, height: Int = 36) throws -> String {
    let path = temporaryPath("clip.y4m")
    try FingerVideoSimulator(.init(bpm: 75, seconds: seconds, width: width, height: height)).writeY4M(to: path)
    return path
}

struct VideoReaderTests {
    @Test func missingFFmpegIsOneLineSayingHowToInstallIt() throws {
        let clip = try simulatedClip(seconds: 0.2)
        let mp4 = clip.replacingOccurrences(of: ".y4m", with: ".mp4")
        _ = FileManager.default.createFile(atPath: mp4, contents: Data([0, 0, 0, 24]))
        for attempt in [
            { _ = try FFmpegVideoReader(path: mp4, options: .init(ffmpegPath: "/nonexistent/bin/ffmpeg")) },
            { _ = try FFmpegVideoReader.locate("ffmpeg", searchPath: "") },
        ] {
            do {
                try attempt()
                Issue.record("expected a toolMissing error")
            } catch let error as InputError {
                #expect(error.code == .toolMissing)
                #expect(error.message.contains("apt-get install ffmpeg"))
                #expect(!error.message.contains("\n"))
            }
        }
    }

    @Test func videoFileOpensY4MNativelyWithoutFFmpeg() throws {
        let clip = try simulatedClip(seconds: 0.5)
        let reader = try VideoFile.open(path: clip, options: .init(ffmpegPath: "/nonexistent/ffmpeg"))
        #expect(reader is Y4MReader)
        #expect(try reader.colorSamples().count == 15)
        let empty = temporaryPath("empty.y4m")
        _ = FileManager.default.createFile(atPath: empty, contents: Data("YUV4MPEG2 W4 H2 F30:1\n".utf8))
        #expect(inputErrorCode { _ = try VideoColorMeans(path: empty) } == .empty)
        // A file of no bytes, whatever its name, is empty: it went to ffprobe, which called it
        // "not a video, or truncated or corrupt".
        for name in ["nothing.y4m", "nothing.mp4"] {
            let nothing = temporaryPath(name)
            _ = FileManager.default.createFile(atPath: nothing, contents: Data())
            let error = #expect(throws: InputError.self) { _ = try VideoFile.open(path: nothing) }
            #expect(error?.code == .empty && error?.message == "\(nothing): file is empty")
        }
    }

    /// `simulate finger` checks the free space against ``FingerVideoSimulator/y4mByteCount``: it is
    /// the size written, odd sizes included.
    @Test func theSimulatorsByteCountIsTheFileItWrites() throws {
        let simulator = try FingerVideoSimulator(.init(bpm: 72, seconds: 1.16, frameRate: 25, width: 33, height: 17))
        let path = temporaryPath("count.y4m")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try simulator.writeY4M(to: path)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == simulator.y4mByteCount)
    }

    /// Found by fuzzing: a pipe (read more than once) gave its first bytes to the signature check
    /// and then read as "not a Y4M file"; a 10-MB first line read as "no header line".
    @Test func aPipeAndAnOverlongHeaderAreNamedForWhatTheyAre() throws {
        let fifo = temporaryPath("pipe.y4m")
        try? FileManager.default.removeItem(atPath: fifo)
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: fifo) }
        // A clip waits in the pipe, held open for writing, so that a reader (were the check to
        // go) reads it instead of blocking.
        let writer = open(fifo, O_RDWR | O_NONBLOCK)
        #expect(writer >= 0)
        defer { close(writer) }
        let clip = Array("YUV4MPEG2 W4 H2 F30:1\nFRAME\n".utf8) + [UInt8](repeating: 100, count: 12)
        #expect(write(writer, clip, clip.count) == clip.count)
        do {
            _ = try VideoFile.open(path: fifo)
            Issue.record("a pipe was opened")
        } catch let error as InputError {
            #expect(error.message.contains("not a regular file"), "\(error.message)")
        }
        let long = temporaryPath("long.y4m")
        _ = FileManager.default.createFile(atPath: long, contents: Data(("YUV4MPEG2 W4 H2 F30:1 X" + String(repeating: "a", count: 5000) + "\n").utf8))
        do {
            _ = try Y4MReader(path: long)
            Issue.record("an overlong header was read")
        } catch let error as InputError {
            #expect(error.code == .corrupt && error.message.contains("over 4096 bytes"), "\(error.message)")
        }
    }

    @Test(.enabled(if: ffmpegAvailable))
    func aBareFFmpegNameFindsFFprobeOnThePathToo() throws {
        // ffprobe was looked for in the current directory ("./ffprobe") and reported missing.
        let clip = try simulatedClip()
        let reader = try FFmpegVideoReader(path: clip, options: .init(ffmpegPath: "ffmpeg"))
        #expect(reader.videoInfo.width == 48)
    }

    @Test(.enabled(if: ffmpegAvailable))
    func losslessVideoThroughFFmpegGivesTheSameMeansAndTimesAsY4M() throws {
        let clip = try simulatedClip()
        let mkv = clip.replacingOccurrences(of: ".y4m", with: ".mkv")
        try #require(try runFFmpeg(["-i", clip, "-c:v", "ffv1", mkv]))
        let reference = try Y4MReader(path: clip).colorSamples()
        let reader = try FFmpegVideoReader(path: mkv)
        #expect(reader.encoding == .fullRange601)
        #expect(reader.videoInfo.width == 48 && reader.videoInfo.height == 36)
        let decoded = try reader.colorSamples()
        #expect(decoded.count == reference.count)
        for (a, b) in zip(decoded, reference) {
            #expect(abs(a.time - b.time) < 1e-3)  // Matroska stores milliseconds
            #expect(abs(a.red - b.red) < 1e-9 && abs(a.green - b.green) < 1e-9 && abs(a.blue - b.blue) < 1e-9)
        }
        // BGRA output: ffmpeg converts (and clips) itself; means agree to within rounding and clipping.
        let bgra = try FFmpegVideoReader(path: mkv, options: .init(bgra: true)).colorSamples()
        #expect(bgra.count == reference.count)
        #expect(zip(bgra, reference).allSatisfy { abs($0.green - $1.green) < 2 })
    }

    @Test(.enabled(if: ffmpegAvailable))
    func variableFrameRateKeepsEachFramesRealTimestamp() throws {
        let clip = try simulatedClip(seconds: 1)
        let mkv = clip.replacingOccurrences(of: ".y4m", with: "-vfr.mkv")
        // Frames 10 and later arrive 0.25 s late: a gap, as when a phone drops frames.
        try #require(try runFFmpeg([
            "-i", clip, "-vf", "setpts='(N/30+gte(N,10)*0.25)/TB'", "-fps_mode", "passthrough",
            "-c:v", "ffv1", mkv,
        ]))
        let samples = try FFmpegVideoReader(path: mkv).colorSamples()
        #expect(samples.count == 30)
        // The gap is there, and every time agrees with ffprobe's own listing of the frames.
        #expect(samples[10].time - samples[9].time > 0.2)
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: try FFmpegVideoReader.locate("ffprobe"))
        probe.arguments = ["-v", "error", "-show_entries", "frame=pts_time", "-of", "csv=p=0", mkv]
        let pipe = Pipe()
        probe.standardOutput = pipe
        try probe.run()
        let listed = String(decoding: pipe.fileHandleForReading.readToEndRetryingInterrupts(), as: UTF8.self)
            .split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
        probe.waitUntilExit()
        #expect(listed.count == samples.count)
        for (s, t) in zip(samples, listed) {
            #expect(abs(s.time - t) < 1e-6)
        }
    }

    @Test(.enabled(if: ffmpegAvailable))
    func downscalingInFFmpegKeepsTheMeanColour() throws {
        let clip = try simulatedClip(seconds: 0.5, width: 160, height: 120)
        let mkv = clip.replacingOccurrences(of: ".y4m", with: ".mkv")
        try #require(try runFFmpeg(["-i", clip, "-c:v", "ffv1", mkv]))
        let full = try FFmpegVideoReader(path: mkv).colorSamples()
        let small = try FFmpegVideoReader(path: mkv, options: .init(maxDimension: 40))
        #expect(small.videoInfo.width == 40 && small.videoInfo.height == 30)
        let smallSamples = try small.colorSamples()
        #expect(zip(full, smallSamples).allSatisfy { abs($0.red - $1.red) < 0.5 && abs($0.green - $1.green) < 0.5 })
    }

    @Test(.enabled(if: ffmpegAvailable))
    func badVideoInputGivesOneCodedErrorAndNoCrash() throws {
        let text = temporaryPath("notes.mp4")
        _ = FileManager.default.createFile(atPath: text, contents: Data("this is not a video\n".utf8))
        #expect(inputErrorCode { _ = try FFmpegVideoReader(path: text) } == .unsupportedFormat)

        let wav = temporaryPath("tone.wav")
        try #require(try runFFmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=0.2", wav]))
        #expect(inputErrorCode { _ = try FFmpegVideoReader(path: wav) } == .unsupportedFormat)

        #expect(inputErrorCode { _ = try FFmpegVideoReader(path: text + ".missing") } == .fileNotFound)

        // A video cut in half: either the frames before the cut, or one clear error; never a crash.
        let clip = try simulatedClip(seconds: 1)
        let mkv = clip.replacingOccurrences(of: ".y4m", with: ".mkv")
        try #require(try runFFmpeg(["-i", clip, "-c:v", "ffv1", mkv]))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: mkv))
        let cut = temporaryPath("cut.mkv")
        _ = FileManager.default.createFile(atPath: cut, contents: bytes.prefix(bytes.count / 2))
        do {
            let samples = try FFmpegVideoReader(path: cut).colorSamples()
            #expect(samples.count > 0 && samples.count < 30)
        } catch let error as InputError {
            #expect([.corrupt, .unsupportedFormat].contains(error.code))
        }
        // Only the header survives: no frames is an error for the colour dump.
        let stub = temporaryPath("stub.mkv")
        _ = FileManager.default.createFile(atPath: stub, contents: bytes.prefix(300))
        #expect([.corrupt, .unsupportedFormat, .empty].contains(inputErrorCode { _ = try VideoColorMeans(path: stub) }))
    }

    @Test(.enabled(if: ffmpegAvailable))
    func stoppingEarlyEndsFFmpegCleanly() throws {
        let clip = try simulatedClip(seconds: 2)
        let mkv = clip.replacingOccurrences(of: ".y4m", with: ".mkv")
        try #require(try runFFmpeg(["-i", clip, "-c:v", "ffv1", mkv]))
        struct Stop: Error {}
        var seen = 0
        #expect(throws: Stop.self) {
            try FFmpegVideoReader(path: mkv).forEachFrame { _ in
                seen += 1
                if seen == 3 { throw Stop() }
            }
        }
        #expect(seen == 3)
    }
}

struct VideoFileSourceTests {
    @Test func aY4MFileStreamsOneColourSamplePerFrameFromTimeZero() async throws {
        let clip = try simulatedClip(seconds: 1)
        let source = VideoFileSource(path: clip)
        var inputs: [PulseInput] = []
        for try await input in try await source.start() { inputs.append(input) }
        #expect(inputs.count == 30)
        #expect(abs(source.nominalRate - 30) < 1e-9)
        #expect(inputs.first?.time == 0)
        if case let .color(c) = inputs[5] { #expect(c.red > c.green) } else { Issue.record("expected colour samples") }
    }

    @Test func aMissingVideoFailsToStartWithItsInputError() async {
        let source = VideoFileSource(path: "/nonexistent/finger.mp4")
        await #expect(throws: InputError.self) { _ = try await source.start() }
    }
}

extension PulseInput {
    var time: Double {
        switch self {
        case let .color(c): c.time
        case let .ppg(time, _): time
        }
    }
}
