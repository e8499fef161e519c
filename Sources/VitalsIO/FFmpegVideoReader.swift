import Foundation
import PulseDetection

/// Reads any video ffmpeg can decode (mp4, mov, avi, mkv, webm, ...) by running the `ffmpeg`
/// program: raw frames arrive on a pipe, presentation timestamps on its log (the `showinfo`
/// filter's exact integer pts and time base), so variable frame rates keep their real times.
///
/// ffmpeg can also shrink the frames while decoding (`Options.maxDimension`, area averaging, which
/// keeps the mean colour), so a 1080p video crosses the pipe as a few kilobytes per frame. Frames
/// are delivered as bi-planar 4:2:0 in the source's own sample range (no range conversion, so no
/// clipping), or as BGRA on request. Memory stays flat with the video's length.
public final class FFmpegVideoReader: VideoFrameReader {
    /// How to decode.
    public struct Options: Sendable, Equatable {
        /// Shrink frames so neither side exceeds this many pixels (nil: full size).
        public var maxDimension: Int?
        /// Deliver BGRA (converted and clipped by ffmpeg) instead of 4:2:0.
        public var bgra: Bool
        /// The ffmpeg program (nil: `ffmpeg` on `PATH`); ffprobe is looked up beside it.
        public var ffmpegPath: String?
        /// Decoder threads (nil: ffmpeg decides). One by default: ffmpeg's frame-threaded decoding
        /// conceals a damaged stream's errors differently from run to run (which frames a damaged
        /// one is patched from depends on timing), so the colours would change between runs; one
        /// thread decodes the same every time, and costs little here (a 1080p H.264 fingertip
        /// video decodes at 7-9x real time on two busy cores either way; the area downscale and
        /// the pipe take much of the time).
        public var threads: Int?
        /// Read a still image (PNG, JPEG, ...) as a one-frame video instead of refusing it.
        public var stillImages: Bool

        public init(maxDimension: Int? = nil, bgra: Bool = false, ffmpegPath: String? = nil, threads: Int? = 1, stillImages: Bool = false) {
            self.maxDimension = maxDimension
            self.bgra = bgra
            self.ffmpegPath = ffmpegPath
            self.threads = threads
            self.stillImages = stillImages
        }
    }

    public let path: String
    public let options: Options
    public let videoInfo: VideoInfo
    /// The Y'CbCr encoding of delivered 4:2:0 frames: range as the stream declares (video range
    /// when it does not, as ffmpeg assumes); the matrix the stream declares when it is BT.601,
    /// BT.709 or BT.2020, else the nearest of them (ffmpeg converts); for untagged or RGB sources,
    /// BT.709 for HD (a side of 720 pixels or more) and BT.601 below, the convention players follow.
    /// ffmpeg is told both matrices, so the samples delivered are always in this encoding.
    public let encoding: YCbCrEncoding
    /// The matrix ffmpeg takes the source's Y'CbCr samples to be in (its `in_color_matrix` name).
    private let sourceMatrix: String
    private let ffmpeg: String
    /// `-fps_mode` (ffmpeg 5.1+) or its older spelling `-vsync`.
    private let fpsModeFlag: String
    /// `-loglevel`: with each line's level (ffmpeg 4.1+), so decoding errors can be counted.
    private let logLevel: String
    /// The damage ffmpeg reported while decoding, after ``forEachFrame(_:)`` (nil before, or when
    /// it reported none).
    public private(set) var decodingIssues: VideoDecodingIssues?

    /// Probes `path` with ffprobe.
    /// - Throws: `InputError`: `toolMissing` (with how to install ffmpeg), `fileNotFound`,
    ///   `unsupportedFormat` (no video stream, not a media file), `corrupt`.
    public init(path: String, options: Options = Options()) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw InputError(.fileNotFound, "\(path): no such file")
        }
        self.path = path
        self.options = options
        let ffmpeg = try Self.locate(options.ffmpegPath ?? "ffmpeg")
        self.ffmpeg = ffmpeg
        let version = Self.version(ffmpeg: ffmpeg)
        self.fpsModeFlag = Self.atLeast(version, 5, 1) ? "-fps_mode" : "-vsync"
        self.logLevel = Self.atLeast(version, 4, 1) ? "repeat+level+info" : "info"
        // ffprobe beside the ffmpeg found (a bare name was found on PATH, not in the current directory).
        let ffprobe = try Self.locate(
            options.ffmpegPath == nil ? "ffprobe"
                : URL(fileURLWithPath: ffmpeg).deletingLastPathComponent().appendingPathComponent("ffprobe").path)
        let probe = try Self.probe(path: path, ffprobe: ffprobe, stillImages: options.stillImages)
        var (w, h) = (probe.width, probe.height)
        if let m = options.maxDimension, m > 0, max(w, h) > m {
            let scale = Double(m) / Double(max(w, h))
            // Even sizes keep 4:2:0 chroma whole.
            w = max(2, Int((Double(w) * scale / 2).rounded()) * 2)
            h = max(2, Int((Double(h) * scale / 2).rounded()) * 2)
        } else if !options.bgra {
            w = (w + 1) & ~1
            h = (h + 1) & ~1
        }
        videoInfo = VideoInfo(
            width: w, height: h, sourceWidth: probe.width, sourceHeight: probe.height,
            nominalFrameRate: probe.frameRate, duration: probe.duration, frameCountHint: probe.frameCount,
            codec: "\(probe.codec) \(probe.pixelFormat)", timestampResolution: probe.timeBase,
            displayRotation: probe.rotation == 0 ? nil : probe.rotation)
        encoding = YCbCrEncoding(range: probe.fullRange ? .full : .video, matrix: probe.matrix)
        sourceMatrix = probe.sourceMatrix
    }

    // MARK: Reading

    public func forEachFrame(_ body: (Frame) throws -> Void) throws {
        let (process, stdout, stderr, log) = try startFFmpeg(arguments: ffmpegArguments())
        var finishedCleanly = false
        defer {
            if !finishedCleanly && process.isRunning { process.terminate() }
            try? stdout.fileHandleForReading.close()
            process.waitUntilExit()
            log.waitUntilDone()
            try? stderr.fileHandleForReading.close()
        }
        let (index, firstTime, lastTime) = try readFrames(from: stdout, process: process, log: log, body)
        process.waitUntilExit()
        finishedCleanly = true
        log.waitUntilDone()
        decodingIssues = log.decodingIssues
        try checkDecoded(frames: index, firstTime: firstTime, lastTime: lastTime, process: process, log: log)
    }

    /// ffmpeg's arguments: decode the first video stream, scale and convert it, log each frame's time, write raw frames to stdout.
    private func ffmpegArguments() -> [String] {
        let w = videoInfo.width, h = videoInfo.height
        let range = encoding.range == .full ? "pc" : "tv"
        // Both matrices named: left to itself, swscale takes untagged Y'CbCr for BT.601 and
        // converts RGB sources with BT.601, whatever `encoding` says.
        var filter = "scale=\(w):\(h):flags=area:in_color_matrix=\(sourceMatrix)"
        if !options.bgra { filter += ":out_color_matrix=\(Self.swscaleName(encoding.matrix)):out_range=\(range)" }
        filter += ",showinfo=checksum=0"
        var arguments = ["-hide_banner", "-nostats", "-nostdin", "-loglevel", logLevel, "-noautorotate"]
        if let t = options.threads { arguments += ["-threads", String(t)] }
        arguments += [
            "-i", Self.fileURL(path), "-map", "0:v:0", "-an", "-sn", "-dn", "-vf", filter, fpsModeFlag, "passthrough",
            "-pix_fmt", options.bgra ? "bgra" : "nv12", "-f", "rawvideo", "pipe:1",
        ]
        return arguments
    }

    /// Runs ffmpeg with `arguments`, its log read on a thread of its own.
    private func startFFmpeg(arguments: [String]) throws -> (process: Process, stdout: Pipe, stderr: Pipe, log: FFmpegLog) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw InputError(.toolMissing, "cannot run \(ffmpeg): \(error.localizedDescription)")
        }
        let log = FFmpegLog()
        let errFD = stderr.fileHandleForReading.fileDescriptor
        let logThread = Thread { log.consume(fd: errFD) }
        logThread.start()
        return (process, stdout, stderr, log)
    }

    /// Passes every frame on `stdout` to `body`, timed from the log; returns the count and the first and last times.
    private func readFrames(from stdout: Pipe, process: Process, log: FFmpegLog,
                            _ body: (Frame) throws -> Void) throws -> (count: Int, firstTime: Double, lastTime: Double) {
        let format: PixelFormat = options.bgra ? .bgra : .yuv420BiPlanar(encoding)
        let frameBytes = Frame.packedByteCount(format: format, width: videoInfo.width, height: videoInfo.height)
        let outFD = stdout.fileHandleForReading.fileDescriptor
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: frameBytes, alignment: 64)
        defer { buffer.deallocate() }
        let base = UnsafeRawPointer(buffer.baseAddress!)
        var index = 0
        var lastTime = -Double.infinity
        var firstTime = 0.0
        while true {
            let got = readFully(fd: outFD, into: buffer)
            if got == 0 { break }
            guard got == frameBytes else {
                // ffmpeg only ever writes whole frames; a short read means it died mid-frame.
                process.waitUntilExit()
                throw InputError(.corrupt, "\(path): decoding stopped inside frame \(index)\(log.reason(prefix: ": "))")
            }
            var time = log.time(ofFrame: index)
            if time == nil || !(time! > lastTime) {
                // No usable timestamp (missing, or not increasing): one nominal frame after the last.
                let step = 1 / (videoInfo.nominalFrameRate ?? 30)
                time = index == 0 ? 0 : lastTime + step
            }
            lastTime = time!
            if index == 0 { firstTime = lastTime }
            try body(frame(at: base, time: lastTime))
            index += 1
        }
        return (index, firstTime, lastTime)
    }

    /// The frame whose packed samples start at `base`, in the delivered format.
    private func frame(at base: UnsafeRawPointer, time: Double) throws -> Frame {
        let w = videoInfo.width, h = videoInfo.height
        if options.bgra {
            return try Frame(bgra: base, width: w, height: h, bytesPerRow: 4 * w, time: time)
        } else {
            return try Frame(
                yuv420BiPlanar: FramePlane(baseAddress: base, bytesPerRow: w),
                chroma: FramePlane(baseAddress: base + w * h, bytesPerRow: 2 * ((w + 1) / 2)),
                encoding: encoding, width: w, height: h, time: time)
        }
    }

    /// Throws when ffmpeg failed, its log timed other than `frames` frames, or the frames fall short of the container's.
    private func checkDecoded(frames index: Int, firstTime: Double, lastTime: Double, process: Process, log: FFmpegLog) throws {
        if process.terminationStatus != 0 {
            throw InputError(
                .corrupt, "\(path): ffmpeg failed after \(index) frames\(log.reason(prefix: ": "))")
        }
        if log.frameCount != index {
            throw InputError(
                .corrupt, "\(path): ffmpeg logged \(log.frameCount) frame times for \(index) frames; timestamps are unreliable")
        }
        // ffmpeg skips what it cannot decode and stops quietly at a cut; the container says how
        // long the stream is (and how many frames it holds).
        let step = 1 / (videoInfo.nominalFrameRate ?? 30)
        let span = index == 0 ? 0 : lastTime - firstTime + step
        let shortfall = Self.shortfall(decodedFrames: index, span: span, info: videoInfo)
        if let shortfall {
            let reason = log.reason(prefix: "", errorsOnly: true)
            throw InputError(
                .corrupt,
                "\(path): \(shortfall): the video is truncated or corrupt" + (reason.isEmpty ? "" : " (\(reason))"))
        }
    }

    // MARK: Tools

    /// A video whose decodable frames (or their time span) fall short of this fraction of what its
    /// container states is reported as truncated or corrupt (5 % slack for estimated counts).
    static let minimumDecodedFraction = 0.95

    /// Why `decodedFrames` frames spanning `span` seconds (first frame to one frame past the last)
    /// fall short of what the container states, or nil when they do not: fewer frames than
    /// ``VideoInfo/frameCountHint``, or a shorter span than ``VideoInfo/duration``, by more than
    /// ``minimumDecodedFraction`` allows and two frames of slack.
    static func shortfall(decodedFrames: Int, span: Double, info: VideoInfo) -> String? {
        if let expected = info.frameCountHint,
            Double(decodedFrames) < Double(expected) * minimumDecodedFraction - 2 {
            return "only \(decodedFrames) of \(expected) frames could be decoded"
        }
        if let duration = info.duration {
            let step = 1 / (info.nominalFrameRate ?? 30)
            if span < duration * minimumDecodedFraction - 2 * step {
                return String(format: "frames cover only %.2f of %.2f s", span, duration)
            }
        }
        return nil
    }

    /// How to get ffmpeg, for the one-line error.
    static let installHint =
        "install ffmpeg (Debian/Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg; Windows: winget install ffmpeg) or convert the video to .y4m"

    /// The absolute path of `program`: as given when it contains a slash, else the first match on `PATH`.
    /// - Throws: `InputError(.toolMissing)` saying how to install ffmpeg.
    static func locate(_ program: String, searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) throws -> String {
        let name = URL(fileURLWithPath: program).lastPathComponent
        if program.contains("/") {
            if FileManager.default.isExecutableFile(atPath: program) { return program }
            throw InputError(.toolMissing, "\(name) not found at \(program): \(installHint)")
        }
        for dir in (searchPath ?? "").split(separator: ":") {
            let candidate = "\(dir)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw InputError(.toolMissing, "\(name) not found on PATH: \(installHint)")
    }

    /// The release `ffmpeg -version` names (major, minor), or nil when it names none (a git build,
    /// taken as new).
    static func version(ffmpeg: String) -> (Int, Int)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-hide_banner", "-version"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: out.fileHandleForReading.readToEndRetryingInterrupts(), as: UTF8.self)
        process.waitUntilExit()
        guard let r = text.range(of: "version ") else { return nil }
        let digits = text[r.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber || $0 == "." }
        let parts = digits.split(separator: ".").compactMap { Int($0) }
        guard parts.count >= 2, text[r.upperBound...].first != "N" else { return nil }
        return (parts[0], parts[1])
    }

    /// Whether `version` is `major.minor` or later (nil, an unnamed build, counts as new).
    static func atLeast(_ version: (Int, Int)?, _ major: Int, _ minor: Int) -> Bool {
        guard let (a, b) = version else { return true }
        return a > major || (a == major && b >= minor)
    }

    struct Probe {
        var width: Int, height: Int
        var frameRate: Double?, duration: Double?, frameCount: Int?
        /// Seconds per timestamp tick.
        var timeBase: Double?
        var codec: String, pixelFormat: String
        var fullRange: Bool
        /// The matrix of the source's samples (swscale's name) and the one delivered.
        var sourceMatrix: String, matrix: YCbCrEncoding.Matrix
        /// Degrees a player turns the stored frames by, 0, 90, 180 or 270 (the display matrix, or
        /// the older `rotate` tag); the reader delivers the frames as stored.
        var rotation = 0
    }

    /// `path` as ffmpeg's `file:` URL: a bare path with a colon in it (`2024-01-01T10:00:00.mp4`,
    /// `data:x.mp4`) would be read as a URL of another protocol.
    static func fileURL(_ path: String) -> String {
        "file:" + URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The first video stream's size, rate, length and colour tags, from ffprobe's JSON.
    static func probe(path: String, ffprobe: String, stillImages: Bool = false) throws -> Probe {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffprobe)
        process.arguments = [
            "-v", "error", "-select_streams", "v:0", "-show_entries",
            "stream=codec_name,width,height,pix_fmt,avg_frame_rate,r_frame_rate,nb_frames,duration,start_time,time_base,color_range,color_space:stream_tags:stream_side_data=rotation:format=duration,format_name,nb_streams",
            "-of", "json", fileURL(path),
        ]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw InputError(.toolMissing, "cannot run \(ffprobe): \(error.localizedDescription)")
        }
        // ffprobe's output is small; read both pipes to the end (stderr on a thread so neither blocks).
        let errData = DataBox()
        let errThread = Thread { errData.set(err.fileHandleForReading.readToEndRetryingInterrupts()) }
        errThread.start()
        let data = out.fileHandleForReading.readToEndRetryingInterrupts()
        process.waitUntilExit()
        let message = errData.waitAndGet()
            .split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard process.terminationStatus == 0 else {
            var reason = message.isEmpty ? "unreadable" : message
            if reason.hasPrefix(path + ": ") { reason.removeFirst(path.count + 2) }
            throw InputError(
                .unsupportedFormat, "\(path): not a video, or truncated or corrupt (ffprobe: \(reason))")
        }
        guard let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw InputError(.corrupt, "\(path): ffprobe gave no readable answer")
        }
        return try probe(json: json, path: path, stillImages: stillImages)
    }

    /// The ``Probe`` of ffprobe's JSON answer (`streams` holding the first video stream, `format`).
    /// - Throws: `InputError(.unsupportedFormat)` for no video stream, a text file, or a still image
    ///   unless `stillImages`.
    static func probe(json: [String: Any], path: String, stillImages: Bool = false) throws -> Probe {
        let streams = json["streams"] as? [[String: Any]] ?? []
        let format = json["format"] as? [String: Any] ?? [:]
        guard let s = streams.first, let w = s["width"] as? Int, let h = s["height"] as? Int, w > 0, h > 0 else {
            throw InputError(.unsupportedFormat, "\(path): no video stream (format: \(format["format_name"] as? String ?? "unknown"))")
        }
        // ffmpeg also "decodes" text files as ANSI art and still images as one-frame videos.
        let formatName = format["format_name"] as? String ?? ""
        let codec = s["codec_name"] as? String ?? "unknown"
        if formatName == "tty" || ["ansi", "bintext", "xbin", "idf"].contains(codec) {
            throw InputError(.unsupportedFormat, "\(path): a text file, not a video")
        }
        if !stillImages && (formatName.hasSuffix("_pipe") || formatName == "image2") {
            throw InputError(.unsupportedFormat, "\(path): a still image (\(codec)), not a video")
        }
        func rate(_ key: String) -> Double? {
            guard let text = s[key] as? String else { return nil }
            let parts = text.split(separator: "/").compactMap { Double($0) }
            guard parts.count == 2, parts[1] > 0, parts[0] > 0 else { return nil }
            return parts[0] / parts[1]
        }
        let pixelFormat = s["pix_fmt"] as? String ?? "unknown"
        let range = s["color_range"] as? String ?? "unknown"
        let matrices = colorMatrices(space: s["color_space"] as? String ?? "unknown", width: w, height: h)
        let duration = streamDuration(stream: s, format: format)
        // nb_frames counts every frame stored, also those an edit list cuts away (a trim without
        // re-encoding keeps the frames before the cut back to a keyframe, and ffmpeg drops them):
        // no more than the duration holds at the average rate.
        var frameCount = Int(s["nb_frames"] as? String ?? "")
        // (Compared as Doubles: a stated duration of 1e19 s would overflow Int.)
        if let n = frameCount, let duration, let average = rate("avg_frame_rate"), duration * average < Double(n) {
            frameCount = Int((duration * average).rounded())
        }
        return Probe(
            width: w, height: h,
            frameRate: rate("avg_frame_rate") ?? rate("r_frame_rate"),
            duration: duration,
            frameCount: frameCount, timeBase: rate("time_base"),
            codec: codec, pixelFormat: pixelFormat,
            fullRange: range == "pc" || pixelFormat.hasPrefix("yuvj"),
            sourceMatrix: matrices.source, matrix: matrices.delivered, rotation: displayRotation(stream: s))
    }

    /// The stream's display rotation in degrees, 0 ..< 360 in steps of 90 (ffmpeg gives the display
    /// matrix's angle, counter-clockwise and negative for a portrait phone video; older files tag
    /// `rotate`); 0 when there is none.
    static func displayRotation(stream s: [String: Any]) -> Int {
        let sideData = (s["side_data_list"] as? [[String: Any]] ?? []).compactMap { ($0["rotation"] as? NSNumber)?.doubleValue }
        let tag = ((s["tags"] as? [String: Any])?["rotate"] as? String).flatMap(Double.init)
        guard let degrees = sideData.first ?? tag, degrees.isFinite else { return 0 }
        // Within one turn first: a tag of 1e300 degrees was past Int's range and trapped.
        let quarter = Int((degrees.truncatingRemainder(dividingBy: 360) / 90).rounded()) % 4
        return (quarter + 4) % 4 * 90
    }

    /// The matrix a stream's samples are in, by swscale's name (`in_color_matrix`), and the one to
    /// deliver, for ffprobe's `color_space`: BT.601, BT.709 and BT.2020 (constant luminance taken
    /// as non-constant, as swscale does) pass through; FCC and SMPTE 240M are converted to the
    /// nearest; anything else (untagged, RGB, YCgCo, ...) is BT.709 for HD (a side of 720 pixels
    /// or more) and BT.601 below, what players assume for untagged video.
    static func colorMatrices(space: String, width: Int, height: Int) -> (source: String, delivered: YCbCrEncoding.Matrix) {
        switch space {
        case "bt709": ("bt709", .bt709)
        case "bt470bg", "smpte170m": ("bt601", .bt601)
        case "bt2020nc", "bt2020c": ("bt2020", .bt2020)
        case "fcc": ("fcc", .bt601)
        case "smpte240m": ("smpte240m", .bt709)
        default: min(width, height) >= 720 ? ("bt709", .bt709) : ("bt601", .bt601)
        }
    }

    /// swscale's name of `matrix` (the scale filter's `in_color_matrix` / `out_color_matrix`).
    static func swscaleName(_ matrix: YCbCrEncoding.Matrix) -> String {
        switch matrix {
        case .bt601: "bt601"
        case .bt709: "bt709"
        case .bt2020: "bt2020"
        }
    }

    /// The video stream's length, seconds: its own duration (edit lists applied); for Matroska and
    /// WebM, which state none, the `DURATION` tag muxers write per track (the end time of its last
    /// frame, so the stream's start time is taken off); the container's duration only when the
    /// file holds this one stream (it is the longest stream's, and audio may outlast the video);
    /// otherwise nil.
    static func streamDuration(stream s: [String: Any], format: [String: Any]) -> Double? {
        if let d = Double(s["duration"] as? String ?? ""), d > 0 { return d }
        let tags = s["tags"] as? [String: Any] ?? [:]
        if let text = tags.first(where: { $0.key.uppercased() == "DURATION" })?.value as? String,
            let end = matroskaDuration(text) {
            let start = Double(s["start_time"] as? String ?? "") ?? 0
            let d = end - max(0, start)
            return d > 0 ? d : nil
        }
        if format["nb_streams"] as? Int == 1, let d = Double(format["duration"] as? String ?? ""), d > 0 { return d }
        return nil
    }

    /// Seconds of a Matroska duration tag, "HH:MM:SS.nnnnnnnnn" (nil when it is not one).
    static func matroskaDuration(_ text: String) -> Double? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]), let sec = Double(parts[2]),
            h >= 0, (0..<60).contains(m), sec >= 0, sec < 60 else { return nil }
        // In Double: a tag of 5000000000000000 hours overflowed `h * 3600` in Int and trapped.
        return Double(h) * 3600 + Double(m * 60) + sec
    }
}

/// Collects ffmpeg's log from a pipe on its own thread: the showinfo timestamps of frames (exact:
/// integer pts times the filter's time base), the decoding errors, and the most telling line for
/// an error message.
///
/// ffmpeg's log is shared by its threads, and a message written in pieces (a decoder's "Out of
/// range weight" and "is not implemented ..." are two calls) can have another message land between
/// them: showinfo's frame line then continues a decoder's line, without its own prefix. So a frame
/// line is recognised by its `n: <index> pts:` text anywhere in a line, and its time is stored
/// under that index.
final class FFmpegLog: @unchecked Sendable {
    private let condition = NSCondition()
    /// Frame times by showinfo's frame index (NaN for an index not logged, or not a number).
    private var times: [Double] = []
    private var loggedFrames = 0
    private var done = false
    private var timeBase: (Double, Double)?
    private var lastLine: String?
    private var bestLine: (score: Int, text: String)?
    private var errorLines = 0
    private var damagedFrames = 0
    private var undecodablePackets = 0

    /// Reads `fd` to its end, parsing each line.
    func consume(fd: Int32) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            pending.append(contentsOf: chunk[0..<n])
            var start = 0
            while let nl = pending[start...].firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
                if nl > start { handle(String(decoding: pending[start..<nl], as: UTF8.self)) }
                start = nl + 1
            }
            pending.removeFirst(start)
        }
        if !pending.isEmpty { handle(String(decoding: pending, as: UTF8.self)) }
        condition.lock()
        done = true
        condition.broadcast()
        condition.unlock()
    }

    /// Parses one line of the log.
    func handle(_ line: String) {
        if let r = line.range(of: "config in time_base: ") {
            let parts = line[r.upperBound...].prefix { $0 != "," }.split(separator: "/").compactMap { Double($0) }
            if parts.count == 2, parts[1] > 0 {
                condition.lock()
                timeBase = (parts[0], parts[1])
                condition.unlock()
            }
            return
        }
        if let frame = Self.frameLine(line) {
            condition.lock()
            var time = Double.nan
            if let text = frame.pts, let pts = Double(text), let tb = timeBase { time = pts * tb.0 / tb.1 }
            if time.isNaN, let text = frame.ptsTime { time = Double(text) ?? .nan }
            if frame.index >= times.count {
                times.append(contentsOf: repeatElement(.nan, count: frame.index + 1 - times.count))
            }
            times[frame.index] = time
            loggedFrames += 1
            condition.broadcast()
            condition.unlock()
            return
        }
        if line.contains("Parsed_showinfo") || line.hasPrefix(" ") { return }
        let (level, text) = Self.message(line)
        let isError = Self.isError(level)
        condition.lock()
        defer { condition.unlock() }
        // The output muxer's complaint about a repeated timestamp is about the copy, not the source
        // (a valid AVI with two frames stamped alike draws it).
        if isError && !text.contains("to muxer") { errorLines += 1 }
        if text.contains("corrupt decoded frame") { damagedFrames += 1 }
        // ffmpeg up to 6 logs "Error while decoding stream ..."; ffmpeg 7's fftools say "Decoding
        // error: ..." or "Error submitting packet to decoder: ..." for the same packet.
        if text.hasPrefix("Error while decoding stream") || text.hasPrefix("Decoding error")
            || text.hasPrefix("Error submitting packet to decoder") { undecodablePackets += 1 }
        lastLine = text
        let score = Self.score(text, level: level)
        if score > 0, score >= (bestLine?.score ?? 0) { bestLine = (score, text) }
    }

    /// The frame index and the pts and pts_time texts of a showinfo frame line ("n: 12 pts: 6144
    /// pts_time:0.4 ..."), wherever in `line` it starts; nil for any other line.
    static func frameLine(_ line: String) -> (index: Int, pts: Substring?, ptsTime: Substring?)? {
        var searchFrom = line.startIndex
        while let r = line.range(of: "n:", range: searchFrom..<line.endIndex) {
            searchFrom = r.upperBound
            let rest = line[r.upperBound...].drop { $0 == " " }
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let index = Int(digits), rest[digits.endIndex...].hasPrefix(" pts:") else { continue }
            let tail = rest[digits.endIndex...]
            var pts: Substring?
            if let p = tail.range(of: " pts:") {
                pts = tail[p.upperBound...].drop { $0 == " " }.prefix { $0 != " " }
            }
            var ptsTime: Substring?
            if let p = tail.range(of: "pts_time:") { ptsTime = tail[p.upperBound...].prefix { $0 != " " } }
            return (index, pts, ptsTime)
        }
        return nil
    }

    /// A log line's level (with `-loglevel level+...`: "error", "warning", ...; nil without) and its
    /// text without ffmpeg's "[component @ 0x...] " prefixes.
    static func message(_ line: String) -> (level: String?, text: String) {
        var text = Substring(line)
        var level: String?
        while text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let tag = text[text.index(after: text.startIndex)..<close]
            if !tag.contains(" @ ") {
                guard ["quiet", "panic", "fatal", "error", "warning", "info", "verbose", "debug", "trace"].contains(tag)
                else { break }
                level = String(tag)
            }
            text = text[text.index(after: close)...].drop { $0 == " " }
        }
        return (level, text.trimmingCharacters(in: .whitespaces))
    }

    /// Whether ffmpeg logged a line at `level` as an error (error, fatal or panic).
    static func isError(_ level: String?) -> Bool {
        level == "error" || level == "fatal" || level == "panic"
    }

    /// What says most about why a file cannot be read, most telling first (each line found is
    /// preferred to any line with a later phrase).
    static let tellingPhrases = [
        "partial file", "moov atom not found", "No such file", "Permission denied", "runcated",
        "Invalid data found", "orrupt", "nvalid", "not found",
    ]
    /// ffmpeg's own closing words after an error, which repeat that something failed, not what.
    static let genericPhrases = [
        "Error marking filters as finished", "Conversion failed", "Cannot determine format of input stream",
        "Error while filtering", "Error while processing the decoded data", "Nothing was written",
        "Error reinitializing filters", "Error closing", "Terminating thread",
    ]

    /// How telling `text` (logged at `level`, when known) is as the reason for a failure: a telling
    /// phrase (the earlier in ``tellingPhrases``, the higher), then any other error, then ffmpeg's
    /// generic closing lines; 0 for a line that is not an error or warning.
    static func score(_ text: String, level: String?) -> Int {
        if let level, !["panic", "fatal", "error", "warning"].contains(level) { return 0 }
        if genericPhrases.contains(where: { text.contains($0) }) { return 1 }
        if let i = tellingPhrases.firstIndex(where: { text.contains($0) }) { return 100 - i }
        return isError(level) || (level == nil && text.contains("rror")) ? 10 : 0
    }

    /// The time of frame `index` (seconds), waiting until ffmpeg has logged it or its log ended;
    /// nil when it never logs one or it is not a number.
    func time(ofFrame index: Int) -> Double? {
        condition.lock()
        defer { condition.unlock() }
        while times.count <= index && !done { condition.wait() }
        guard index < times.count, times[index].isFinite else { return nil }
        return times[index]
    }

    /// Frames whose times have been logged so far.
    var frameCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return loggedFrames
    }

    /// The damage the decoder reported so far (nil when it reported none).
    var decodingIssues: VideoDecodingIssues? {
        condition.lock()
        defer { condition.unlock() }
        guard errorLines + damagedFrames + undecodablePackets > 0 else { return nil }
        return VideoDecodingIssues(
            errors: errorLines, damagedFrames: damagedFrames, undecodablePackets: undecodablePackets)
    }

    func waitUntilDone() {
        condition.lock()
        while !done { condition.wait() }
        condition.unlock()
    }

    /// The most telling line of ffmpeg's log (see ``score(_:level:)``; the latest of equals), after
    /// `prefix`; without an error line, the last line unless `errorsOnly`.
    func reason(prefix: String, errorsOnly: Bool = false) -> String {
        condition.lock()
        defer { condition.unlock() }
        guard let text = bestLine?.text ?? (errorsOnly ? nil : lastLine), !text.isEmpty else { return "" }
        return prefix + text
    }
}

/// A value handed from one thread to another.
final class DataBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Data?
    func set(_ data: Data) {
        condition.lock()
        value = data
        condition.broadcast()
        condition.unlock()
    }
    func waitAndGet() -> String {
        condition.lock()
        defer { condition.unlock() }
        while value == nil { condition.wait() }
        return String(decoding: value!, as: UTF8.self)
    }
}

/// Opens a video for reading: Y4M natively (by its `YUV4MPEG2` signature), anything else through
/// the `ffmpeg` program.
public enum VideoFile {
    /// File name extensions taken for videos (lowercase): Y4M and the containers ffmpeg reads.
    public static let extensions: Set<String> = ["y4m", "mp4", "mov", "m4v", "avi", "mkv", "webm"]

    /// Whether `path`'s extension (in any case) is one of ``extensions``.
    public static func hasVideoExtension(_ path: String) -> Bool {
        extensions.contains(URL(fileURLWithPath: path).pathExtension.lowercased())
    }

    /// - Parameters:
    ///   - path: the video file; it must be a regular file (a pipe or a folder is refused), since a
    ///     video is read more than once.
    ///   - options: ffmpeg decoding options (downscale, program path); ignored for Y4M.
    /// - Throws: `InputError` (`fileNotFound`, `unsupportedFormat`, `toolMissing`, `corrupt`, ...).
    public static func open(path: String, options: FFmpegVideoReader.Options = .init()) throws -> any VideoFrameReader {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw InputError(.fileNotFound, "\(path): no such file")
        }
        // A video is read more than once (its signature, its header, ffprobe then ffmpeg): a pipe
        // gave its first bytes to the signature check and then read as "not a Y4M file".
        switch info.st_mode & S_IFMT {
        case S_IFREG: if info.st_size == 0 { throw InputError(.empty, "\(path): file is empty") }
        case S_IFDIR: throw InputError(.unreadable, "\(path): a folder, not a video file")
        default: throw InputError(.unreadable, "\(path): not a regular file (a video is read more than once: save a pipe's output to a file first)")
        }
        if Y4MReader.hasSignature(path: path) {
            return try Y4MReader(path: path)
        }
        return try FFmpegVideoReader(path: path, options: options)
    }
}

/// Reads `fd` until `buffer` is full or the input ends, retrying a read a signal interrupts (EINTR);
/// returns the bytes read. A read that fails otherwise ends the data there.
private func readFully(fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    var total = 0
    while total < buffer.count {
        let n = read(fd, buffer.baseAddress! + total, buffer.count - total)
        if n > 0 {
            total += n
        } else if n == 0 || errno != EINTR {
            break
        }
    }
    return total
}

extension FileHandle {
    /// Everything left to read, retrying a read that a signal interrupts. Foundation's
    /// `readDataToEndOfFile()` traps on EINTR ("'try!' expression unexpectedly raised an error ...
    /// Interrupted system call"), and reading a child process's pipe invites one: its exit sends
    /// SIGCHLD. A read that fails otherwise ends the data there.
    public func readToEndRetryingInterrupts() -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = chunk.withUnsafeMutableBytes { readFully(fd: fileDescriptor, into: $0) }
            data.append(contentsOf: chunk[0..<got])
            if got < chunk.count { return data }
        }
    }
}
