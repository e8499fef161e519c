import Foundation
import PulseDetection
import Testing

@testable import VitalsIO

/// A fresh path in the temporary directory, removed by the caller.
func temporaryPath(_ name: String) -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent(name).path
}

func inputErrorCode(_ body: () throws -> Void) -> InputError.Code? {
    do { try body() } catch let e as InputError { return e.code } catch { return nil }
    return nil
}

/// Power of `x` (uniformly sampled at `rate` Hz) at frequency `f` Hz, by direct DFT.
func power(_ x: [Double], rate: Double, at f: Double) -> Double {
    let mean = x.reduce(0, +) / Double(x.count)
    var re = 0.0, im = 0.0
    for (i, v) in x.enumerated() {
        let a = 2 * Double.pi * f * Double(i) / rate
        re += (v - mean) * cos(a)
        im += (v - mean) * sin(a)
    }
    return re * re + im * im
}

struct Y4MTests {
    @Test(arguments: [(4, 2), (5, 3), (64, 48)])
    func writtenFramesReadBackByteForByteWithTimesFromTheFrameRate(size: (Int, Int)) throws {
        let (w, h) = size
        let path = temporaryPath("round.y4m")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let header = Y4MHeader(width: w, height: h, frameRateNumerator: 30000, frameRateDenominator: 1001, range: .full)
        let writer = try Y4MWriter(path: path, header: header)
        var frames: [[UInt8]] = []
        for f in 0..<3 {
            let bytes = (0..<header.frameByteCount).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ f &* 31) }
            try bytes.withUnsafeBytes { try writer.write(planes: $0) }
            frames.append(bytes)
        }
        try writer.close()

        let reader = try Y4MReader(path: path)
        #expect(reader.header == header)
        #expect(reader.videoInfo.frameCountHint == 3)
        var index = 0
        try reader.forEachFrame { frame in
            #expect(frame.width == w && frame.height == h)
            #expect(abs(frame.time - Double(index) * 1001 / 30000) < 1e-12)
            let cw = (w + 1) / 2, ch = (h + 1) / 2
            let y = UnsafeRawBufferPointer(start: frame.plane0.baseAddress, count: w * h)
            let cb = UnsafeRawBufferPointer(start: frame.plane1.baseAddress, count: cw * ch)
            let cr = UnsafeRawBufferPointer(start: frame.plane2.baseAddress, count: cw * ch)
            #expect(Array(y) + Array(cb) + Array(cr) == frames[index])
            index += 1
        }
        #expect(index == 3)
    }

    @Test func meanColourOfAY4MFrameFollowsItsRangeTag() throws {
        // A flat video-range frame Y=235, Cb=Cr=128 is white; tagged full range it is 235 grey.
        for (range, expected) in [(YCbCrEncoding.Range.video, 255.0), (.full, 235.0)] {
            let path = temporaryPath("flat.y4m")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let header = Y4MHeader(width: 6, height: 4, frameRateNumerator: 30, range: range)
            let writer = try Y4MWriter(path: path, header: header)
            let bytes = [UInt8](repeating: 235, count: 24) + [UInt8](repeating: 128, count: 12)
            try bytes.withUnsafeBytes { try writer.write(planes: $0) }
            try writer.close()
            let samples = try Y4MReader(path: path).colorSamples()
            #expect(samples.count == 1)
            #expect(abs(samples[0].red - expected) < 1e-9 && abs(samples[0].blue - expected) < 1e-9)
        }
    }

    @Test func aHeaderEndingInCRLFKeepsItsRangeTag() throws {
        // "XCOLORRANGE=FULL\r" did not equal the tag and silently read full range as video range.
        let h = try Y4MHeader.parse("YUV4MPEG2 W6 H4 F30:1 C420jpeg XCOLORRANGE=FULL\r", source: "t.y4m")
        #expect(h.range == .full && h.width == 6)
        #expect(try Y4MHeader.parse("YUV4MPEG2 W6 H4 F30:1 XCOLORRANGE=LIMITED\r", source: "t.y4m").range == .video)
    }

    @Test func videoPathsGoToFFmpegAsFileURLs() {
        // A relative name with a colon ("2024-01-01T10:00:00.mp4") was read by ffmpeg as a protocol URL.
        let url = FFmpegVideoReader.fileURL("2024-01-01T10:00:00.mp4")
        #expect(url == "file:" + FileManager.default.currentDirectoryPath + "/2024-01-01T10:00:00.mp4")
        #expect(FFmpegVideoReader.fileURL("/a/b.mp4") == "file:/a/b.mp4")
    }

    @Test func badY4MInputGivesOneCodedError() throws {
        let path = temporaryPath("bad.y4m")
        defer { try? FileManager.default.removeItem(atPath: path) }
        func write(_ s: [UInt8]) { _ = FileManager.default.createFile(atPath: path, contents: Data(s)) }

        write(Array("hello, world\n".utf8))
        #expect(inputErrorCode { _ = try Y4MReader(path: path) } == .unsupportedFormat)
        write([])
        #expect(inputErrorCode { _ = try Y4MReader(path: path) } == .empty)
        write(Array("YUV4MPEG2 W4 H2 C420jpeg\n".utf8))
        #expect(inputErrorCode { _ = try Y4MReader(path: path) } == .badRate)
        write(Array("YUV4MPEG2 W0 H2 F30:1\n".utf8))
        #expect(inputErrorCode { _ = try Y4MReader(path: path) } == .corrupt)
        write(Array("YUV4MPEG2 W4 H2 F30:1 C444\n".utf8))
        #expect(inputErrorCode { _ = try Y4MReader(path: path) } == .unsupportedFormat)
        // 10-bit 4:2:0 (ffmpeg's yuv420p10le): was taken for 8-bit and failed at frame 1 as "not a valid Y4M frame".
        write(Array("YUV4MPEG2 W4 H2 F30:1 C420p10 XYSCSS=420P10\n".utf8))
        #expect(inputErrorCode { _ = try Y4MReader(path: path) } == .unsupportedFormat)
        // Frame rates no camera has: F999999999999:1 timed every frame at 0 s, F1:999999999 made a
        // 30-year clip of two frames.
        for rate in ["F999999999999:1", "F1:999999999"] {
            write(Array("YUV4MPEG2 W4 H2 \(rate)\n".utf8))
            #expect(inputErrorCode { _ = try Y4MReader(path: path) } == .badRate, "\(rate)")
        }
        write(Array("YUV4MPEG2 W4 H2 F30:1 C420mpeg2\n".utf8))
        #expect(inputErrorCode { _ = try Y4MReader(path: path) } == nil)
        #expect(inputErrorCode { _ = try Y4MReader(path: path + ".missing") } == .fileNotFound)

        // Header only: zero frames, no error.
        write(Array("YUV4MPEG2 W4 H2 F30:1\n".utf8))
        #expect(try Y4MReader(path: path).colorSamples().isEmpty)

        // One whole frame (12 bytes) then a truncated one.
        write(Array("YUV4MPEG2 W4 H2 F30:1\nFRAME\n".utf8) + [UInt8](repeating: 100, count: 12)
              + Array("FRAME\n".utf8) + [UInt8](repeating: 100, count: 5))
        var seen = 0
        #expect(inputErrorCode { try Y4MReader(path: path).forEachFrame { _ in seen += 1 } } == .corrupt)
        #expect(seen == 1)

        // Garbage where a frame marker should be.
        write(Array("YUV4MPEG2 W4 H2 F30:1\nFRAMX\n".utf8) + [UInt8](repeating: 0, count: 12))
        #expect(inputErrorCode { try Y4MReader(path: path).forEachFrame { _ in } } == .corrupt)

        // A frame header longer than any Y4M line: refused at that frame (its tail was read as a
        // frame of pixels, and the error came at the next one).
        write(Array("YUV4MPEG2 W4 H2 F30:1\nFRAME \(String(repeating: "X", count: 1100))\n".utf8) + [UInt8](repeating: 100, count: 12))
        seen = 0
        #expect(inputErrorCode { try Y4MReader(path: path).forEachFrame { _ in seen += 1 } } == .corrupt)
        #expect(seen == 0)
    }

    @Test func simulatedFingerVideoPulsesAtItsHeartRateAndLooksTorchLit() throws {
        let bpm = 84.0
        let simulator = try FingerVideoSimulator(.init(bpm: bpm, seconds: 8, width: 48, height: 36, liftAt: 6))
        let path = temporaryPath("finger.y4m")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try simulator.writeY4M(to: path)
        let samples = try Y4MReader(path: path).colorSamples()
        #expect(samples.count == 240)
        let onFinger = samples.filter { $0.time < 6 }
        let lifted = samples.filter { $0.time > 6.5 }
        // Torch-lit skin: red dominates; the room once lifted is close to grey.
        #expect(onFinger.allSatisfy { $0.red > 150 && $0.red > 3 * $0.green && $0.green > $0.blue })
        #expect(lifted.allSatisfy { abs($0.red - $0.green) < 30 })
        // The green mean's strongest frequency in 40...200 bpm is the simulated rate.
        let green = onFinger.map(\.green)
        let candidates = stride(from: 40.0, through: 200.0, by: 0.5)
        let best = candidates.max { power(green, rate: 30, at: $0 / 60) < power(green, rate: 30, at: $1 / 60) }!
        #expect(abs(best - bpm) <= 3, "spectral peak at \(best) bpm")
        // Beat times: one per beat, about 60 / bpm apart.
        let beats = simulator.beatTimes
        #expect(abs(Double(beats.count) - bpm / 60 * 8) <= 1)
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        #expect(intervals.allSatisfy { abs($0 - 60 / bpm) < 0.1 * 60 / bpm })
    }

    @Test func simulatorIsDeterministicPerSeed() throws {
        func frameBytes(seed: UInt64) throws -> [UInt8] {
            let s = try FingerVideoSimulator(.init(bpm: 60, seconds: 1, width: 8, height: 6, seed: seed))
            var out = [UInt8](repeating: 0, count: 8 * 6 + 2 * 4 * 3)
            out.withUnsafeMutableBytes { s.renderFrame(5, into: $0) }
            return out
        }
        #expect(try frameBytes(seed: 3) == frameBytes(seed: 3))
        #expect(try frameBytes(seed: 3) != frameBytes(seed: 4))
        #expect(inputErrorCode { _ = try FingerVideoSimulator(.init(bpm: 0, seconds: 1)) } == .badRate)
    }

    @Test func simulatorRejectsClipsWithoutFramesAndNoiseOrLiftOutOfRange() {
        // Before: 1e-9 s wrote a clip of 0 frames, --noise inf a clip of clipped garbage, and
        // --lift-at nan a clip said to be "lifted at nan s".
        #expect(inputErrorCode { _ = try FingerVideoSimulator(.init(bpm: 60, seconds: 1e-9)) } == .badRate)
        #expect(inputErrorCode { _ = try FingerVideoSimulator(.init(bpm: 60, seconds: 1, noiseLevel: .infinity)) } == .badRate)
        #expect(inputErrorCode { _ = try FingerVideoSimulator(.init(bpm: 60, seconds: 1, noiseLevel: 1e9)) } == .badRate)
        #expect(inputErrorCode { _ = try FingerVideoSimulator(.init(bpm: 60, seconds: 1, liftAt: .nan)) } == .badRate)
        #expect(inputErrorCode { _ = try FingerVideoSimulator(.init(bpm: 60, seconds: 1, liftAt: .infinity)) } == .badRate)
        #expect(inputErrorCode { _ = try FingerVideoSimulator(.init(bpm: 60, seconds: 1, liftAt: -1)) } == .badRate)
        #expect(inputErrorCode { _ = try FingerVideoSimulator(.init(bpm: 60, seconds: 1, liftAt: 0.5, noiseLevel: 255)) } == nil)
    }
}
