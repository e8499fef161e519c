import Foundation
import PulseDetection

/// The stream header of a YUV4MPEG2 (Y4M) file: uncompressed planar 4:2:0 frames at a fixed rate.
public struct Y4MHeader: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Frames per second as a fraction, e.g. 30000/1001.
    public var frameRateNumerator: Int
    public var frameRateDenominator: Int
    /// The `C` tag (`420jpeg`, `420mpeg2`, `420paldv`, `420`); chroma siting does not change a mean.
    public var colorSpace: String
    /// Sample range: full when the file says `XCOLORRANGE=FULL`, else video range (as ffmpeg assumes).
    public var range: YCbCrEncoding.Range

    public init(width: Int, height: Int, frameRateNumerator: Int, frameRateDenominator: Int = 1,
                colorSpace: String = "420jpeg", range: YCbCrEncoding.Range = .full) {
        self.width = width
        self.height = height
        self.frameRateNumerator = frameRateNumerator
        self.frameRateDenominator = frameRateDenominator
        self.colorSpace = colorSpace
        self.range = range
    }

    /// Frames per second.
    public var frameRate: Double { Double(frameRateNumerator) / Double(frameRateDenominator) }
    /// Bytes of one frame's planes (Y, then Cb, then Cr).
    public var frameByteCount: Int { Frame.packedByteCount(format: .yuv420Planar(.fullRange601), width: width, height: height) }
    /// Bytes of a clip of `frames` frames with this header: the header line, then each frame's
    /// `FRAME` line and planes.
    public func fileByteCount(frames: Int) -> Int { line.utf8.count + frames * ("FRAME\n".utf8.count + frameByteCount) }

    /// The header line, newline included.
    var line: String {
        var s = "YUV4MPEG2 W\(width) H\(height) F\(frameRateNumerator):\(frameRateDenominator) Ip A1:1 C\(colorSpace)"
        if range == .full { s += " XCOLORRANGE=FULL" }
        return s + "\n"
    }

    /// Parses a header line (without its newline).
    /// - Throws: `InputError` naming the bad or missing tag.
    static func parse(_ line: String, source: String) throws -> Y4MHeader {
        // Tokens end at spaces and line ends (a header written with CRLF ends in "\r").
        var tokens = line.split(whereSeparator: { $0 == " " || $0 == "\r" || $0 == "\n" })
        guard tokens.first == "YUV4MPEG2" else {
            throw InputError(.unsupportedFormat, "\(source): not a Y4M file (no YUV4MPEG2 signature)")
        }
        tokens.removeFirst()
        var width: Int?, height: Int?, rate: (Int, Int)?
        var colorSpace = "420jpeg"
        var range = YCbCrEncoding.Range.video
        for token in tokens {
            let value = token.dropFirst()
            switch token.first {
            case "W": width = Int(value)
            case "H": height = Int(value)
            case "F":
                let parts = value.split(separator: ":")
                if parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]) { rate = (n, d) }
            case "C": colorSpace = String(value)
            case "X":
                // Matched as prefixes, as ffmpeg does.
                if value.uppercased().hasPrefix("COLORRANGE=FULL") { range = .full }
                if value.uppercased().hasPrefix("COLORRANGE=LIMITED") { range = .video }
            default: break  // interlacing, aspect ratio and other tags do not change the mean colour
            }
        }
        guard let w = width, let h = height, w > 0, h > 0, w <= 1 << 15, h <= 1 << 15 else {
            throw InputError(.corrupt, "\(source): Y4M header has no valid W/H size: \(line)")
        }
        guard let (n, d) = rate, n > 0, d > 0 else {
            throw InputError(.badRate, "\(source): Y4M header has no valid F frame rate: \(line)")
        }
        // The frame times are index / rate: a rate far outside cameras' (F999999999999:1) gave
        // every frame the time 0, and F1:999999999 a 30-year clip.
        let fps = Double(n) / Double(d)
        guard fps >= 0.1, fps <= 10_000 else {
            throw InputError(.badRate, "\(source): Y4M frame rate F\(n):\(d) is \(String(format: "%.3g", fps)) fps, outside 0.1...10000")
        }
        // Only 8-bit 4:2:0: C420p10, C420p12 ... hold 16-bit samples and would be read as garbage.
        guard ["420", "420jpeg", "420mpeg2", "420paldv"].contains(colorSpace) else {
            throw InputError(
                .unsupportedFormat,
                "\(source): Y4M colour space C\(colorSpace) is not supported (only 8-bit 4:2:0: 420jpeg, 420mpeg2, 420paldv)")
        }
        return Y4MHeader(
            width: w, height: h, frameRateNumerator: n, frameRateDenominator: d, colorSpace: colorSpace, range: range)
    }
}

/// Reads a Y4M file natively (no dependency): planar 4:2:0 frames, times `index / frameRate`.
///
/// Frames are read one at a time into one reused buffer. A file that ends inside a frame is an
/// error (`corrupt`), naming the frame; a file with a header and no frames yields no frames.
public final class Y4MReader: VideoFrameReader {
    public let header: Y4MHeader
    public let path: String
    /// BT.601 weights: Y4M carries no matrix tag, and ffmpeg's own default for it is BT.601.
    public let encoding: YCbCrEncoding
    private let headerEnd: Int

    /// Reads and checks the stream header of `path`.
    /// - Throws: `InputError` when the file is missing, not Y4M or its header is invalid.
    public init(path: String) throws {
        self.path = path
        let file = try Self.openFile(path)
        defer { fclose(file) }
        guard let line = Self.readLine(file, limit: 4096) else {
            if ftell(file) > 0 {
                throw InputError(.corrupt, "\(path): the first line is over 4096 bytes long, which no Y4M header is")
            }
            throw InputError(.empty, "\(path): file is empty")
        }
        header = try Y4MHeader.parse(line, source: path)
        headerEnd = line.utf8.count + 1
        encoding = YCbCrEncoding(range: header.range, matrix: .bt601)
    }

    /// True when the file at `path` starts with the Y4M signature.
    public static func hasSignature(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: 9)) ?? Data()
        return data == Data("YUV4MPEG2".utf8)
    }

    public var videoInfo: VideoInfo {
        VideoInfo(
            width: header.width, height: header.height, sourceWidth: header.width, sourceHeight: header.height,
            nominalFrameRate: header.frameRate, duration: nil, frameCountHint: frameCountFromFileSize,
            codec: "y4m \(header.colorSpace)")
    }

    /// Frames in the file, from its size (exact when frame headers carry no parameters).
    private var frameCountFromFileSize: Int? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = attributes[.size] as? Int else { return nil }
        return max(0, size - headerEnd) / (header.frameByteCount + 6)
    }

    public func forEachFrame(_ body: (Frame) throws -> Void) throws {
        let file = try Self.openFile(path)
        defer { fclose(file) }
        _ = Self.readLine(file, limit: 4096)  // the stream header, parsed in init
        let w = header.width, h = header.height
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        let frameBytes = header.frameByteCount
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: frameBytes, alignment: 64)
        defer { buffer.deallocate() }
        let base = UnsafeRawPointer(buffer.baseAddress!)
        var index = 0
        while true {
            guard try Self.readFrameMarker(file, index: index, source: path) else { return }  // clean end
            let got = fread(buffer.baseAddress!, 1, frameBytes, file)
            guard got == frameBytes else {
                throw InputError(.corrupt, "\(path): frame \(index) is truncated (\(got) of \(frameBytes) bytes): the file is cut short")
            }
            let frame = try Frame(
                yuv420Planar: FramePlane(baseAddress: base, bytesPerRow: w),
                cb: FramePlane(baseAddress: base + w * h, bytesPerRow: cw),
                cr: FramePlane(baseAddress: base + w * h + cw * ch, bytesPerRow: cw),
                encoding: encoding, width: w, height: h,
                time: Double(index) * Double(header.frameRateDenominator) / Double(header.frameRateNumerator))
            try body(frame)
            index += 1
        }
    }

    /// Longest `FRAME` line read, bytes (a frame's parameters are a few words).
    static let maximumFrameHeader = 1024

    /// Reads a `FRAME[ params]\n` line without allocating; false at a clean end of file.
    private static func readFrameMarker(_ file: UnsafeMutablePointer<FILE>, index: Int, source: String) throws -> Bool {
        let expected: [Int32] = [0x46, 0x52, 0x41, 0x4D, 0x45]  // "FRAME"
        var c = getc(file)
        if c == EOF { return false }
        var position = 0
        var matched = true
        while c != 0x0A {
            if c == EOF {
                throw InputError(.corrupt, "\(source): frame \(index) header is truncated: the file is cut short")
            }
            if position < 5 && c != expected[position] { matched = false }
            position += 1
            if position > maximumFrameHeader || !matched { break }
            c = getc(file)
        }
        guard matched, position >= 5 else {
            throw InputError(.corrupt, "\(source): frame \(index) does not start with FRAME: not a valid Y4M frame")
        }
        // The rest of an overlong line would be read as pixels: one garbage frame, then an error
        // about the next frame's header.
        guard position <= maximumFrameHeader else {
            throw InputError(.corrupt, "\(source): frame \(index) header is longer than \(maximumFrameHeader) bytes: not a valid Y4M frame")
        }
        return true
    }

    private static func openFile(_ path: String) throws -> UnsafeMutablePointer<FILE> {
        guard let file = fopen(path, "rb") else {
            if !FileManager.default.fileExists(atPath: path) {
                throw InputError(.fileNotFound, "\(path): no such file")
            }
            throw InputError(.unreadable, "\(path): cannot be read")
        }
        return file
    }

    /// Reads up to a newline (not included); nil at end of file before any byte or when the line
    /// is longer than `limit` (not a Y4M line).
    private static func readLine(_ file: UnsafeMutablePointer<FILE>, limit: Int) -> String? {
        var bytes: [UInt8] = []
        while bytes.count <= limit {
            let c = getc(file)
            if c == EOF { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if c == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(UInt8(truncatingIfNeeded: c))
        }
        return nil
    }
}

/// Writes planar 4:2:0 frames to a Y4M file.
public final class Y4MWriter {
    public let header: Y4MHeader
    private var file: UnsafeMutablePointer<FILE>?
    private let path: String
    /// Frames written so far.
    public private(set) var frameCount = 0

    /// Creates (or truncates) `path` and writes the stream header.
    /// - Throws: `InputError(.unreadable)` when the file cannot be created.
    public init(path: String, header: Y4MHeader) throws {
        guard header.width > 0, header.height > 0, header.frameRateNumerator > 0, header.frameRateDenominator > 0 else {
            throw InputError(.badRate, "Y4M writer: invalid size \(header.width)x\(header.height) or rate")
        }
        guard let f = fopen(path, "wb") else {
            throw InputError(.unreadable, "\(path): cannot be created for writing")
        }
        self.file = f
        self.path = path
        self.header = header
        try put(Array(header.line.utf8))
    }

    deinit { if let file { fclose(file) } }

    /// Appends one frame: `planes` holds Y (`width * height` bytes), then Cb, then Cr
    /// (`((width + 1) / 2) * ((height + 1) / 2)` bytes each), rows packed.
    /// - Throws: `InputError` when `planes` has the wrong size or the disk write fails.
    public func write(planes: UnsafeRawBufferPointer) throws {
        guard planes.count == header.frameByteCount else {
            throw InputError(.corrupt, "Y4M writer: frame has \(planes.count) bytes, expected \(header.frameByteCount)")
        }
        try put(Array("FRAME\n".utf8))
        guard let file, fwrite(planes.baseAddress!, 1, planes.count, file) == planes.count else {
            throw InputError(.unreadable, "\(path): write failed (disk full?)")
        }
        frameCount += 1
    }

    /// Writes a whole clip to `path`: `frames` frames, each rendered into one reused buffer by
    /// `render(index, planes)`; `progress` gets the fraction done (0...1) after each frame.
    /// - Throws: `InputError` when the file cannot be written.
    public static func writeClip(to path: String, header: Y4MHeader, frames: Int,
                                 render: (Int, UnsafeMutableRawBufferPointer) -> Void,
                                 progress: ((Double) -> Void)? = nil) throws {
        let writer = try Y4MWriter(path: path, header: header)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: header.frameByteCount, alignment: 64)
        defer { buffer.deallocate() }
        for i in 0..<frames {
            render(i, buffer)
            try writer.write(planes: UnsafeRawBufferPointer(buffer))
            progress?(Double(i + 1) / Double(frames))
        }
        try writer.close()
    }

    /// Flushes and closes the file.
    public func close() throws {
        guard let f = file else { return }
        file = nil
        guard fclose(f) == 0 else { throw InputError(.unreadable, "\(path): write failed on close") }
    }

    private func put(_ bytes: [UInt8]) throws {
        guard let file, fwrite(bytes, 1, bytes.count, file) == bytes.count else {
            throw InputError(.unreadable, "\(path): write failed (disk full?)")
        }
    }
}
