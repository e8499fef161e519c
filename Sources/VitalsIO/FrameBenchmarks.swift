import Foundation
import PulseDetection

/// One benchmark figure: a name and the time one operation takes, in nanoseconds.
public struct BenchmarkResult: Sendable, Codable, Equatable {
    public var name: String
    /// Nanoseconds per operation (here: per frame).
    public var nsPerOp: Double
    /// Samples per second, for benchmarks over signals (nil otherwise).
    public var samplesPerSecond: Double?
    /// Growth of the process's resident memory over the run, KiB, for benchmarks that check that
    /// memory stays flat (nil otherwise).
    public var residentGrowthKiB: Double?

    public init(name: String, nsPerOp: Double) {
        self.name = name
        self.nsPerOp = nsPerOp
    }

    enum CodingKeys: String, CodingKey {
        case name
        case nsPerOp = "ns_per_op"
        case samplesPerSecond = "samples_per_s"
        case residentGrowthKiB = "resident_growth_kib"
    }

    /// The figure as one line of `vitals bench`'s table: the name, the time per operation in
    /// ns, us or ms (whichever keeps it between 1 and 1000), then the samples a second and the
    /// memory growth for the benchmarks that measure them.
    public var tableLine: String {
        let (value, unit) = nsPerOp < 1e3 ? (nsPerOp, "ns") : nsPerOp < 1e6 ? (nsPerOp / 1e3, "us") : (nsPerOp / 1e6, "ms")
        var line = name.padding(toLength: 36, withPad: " ", startingAt: 0) + String(format: "%8.1f", value) + " \(unit)/op"
        if let samplesPerSecond { line += String(format: "  %7.1f M samples/s", samplesPerSecond / 1e6) }
        if let residentGrowthKiB { line += String(format: "  resident memory %+.0f KiB", residentGrowthKiB) }
        return line
    }
}

/// Frame-sampling speed: the mean colour of a whole frame, of every 4th row and column, and a
/// `memcpy` of the same frames as the memory-bandwidth reference.
///
/// Frames are "cold": each round visits ``frameCount(bytesPerFrame:)`` distinct frames, at least 64
/// (the figure) and at least ``poolBytes`` (512 MiB) of them, so that even a stride-4 read,
/// which touches a quarter of the rows, reads 128 MiB a round: four times this machine's 32 MiB
/// last-level cache. Every read then comes from memory, as it does for a camera buffer the CPU has not
/// touched. (With 64 frames alone, 64 NV12 640x480 frames are 28 MiB and stayed in the cache from one
/// round to the next.) The figure is the fastest round's time per frame (the least disturbed by other
/// processes); `bench/opencv_mean.py` measures OpenCV's `cv2.mean` on byte-identical frames the same
/// way.
///
/// Frame content: byte `i` of frame `f` (planes packed back to back, no row padding) is
/// `(7 * i + 31 * f) mod 256`.
public enum FrameBenchmarks {
    /// The sizes measured, as (width, height).
    public static let sizes: [(Int, Int)] = [(640, 480), (1920, 1080)]
    /// Least memory the frames of one benchmark span (see the type's notes).
    public static let poolBytes = 512 << 20

    /// Distinct frames visited per round: at least 64 (the figure) and enough to span
    /// ``poolBytes``.
    public static func frameCount(bytesPerFrame: Int) -> Int {
        max(64, (poolBytes + bytesPerFrame - 1) / bytesPerFrame)
    }

    /// The benchmarks' names, in the order they run.
    public static var names: [String] {
        sizes.flatMap { w, h in formats.flatMap { names(format: $0, width: w, height: h) } }
    }

    static let formats = [PixelFormat.bgra, .yuv420BiPlanar(.videoRange601)]

    /// The names of the benchmarks of one frame size and format.
    static func names(format: PixelFormat, width: Int, height: Int) -> [String] {
        let size = "\(format.name)-\(width)x\(height)"
        return ["frame-mean-\(size)", "frame-mean-\(size)-stride4", "memcpy-\(size)"]
    }

    /// Runs every frame benchmark whose name contains `filter` (all when nil).
    /// - Parameters:
    ///   - filter: a part of a benchmark's name that selects it (nil: every frame benchmark).
    ///   - rounds: rounds per benchmark; the fastest is reported.
    public static func run(filter: String? = nil, rounds: Int = 7) -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        for (w, h) in sizes {
            for format in formats {
                let names = names(format: format, width: w, height: h)
                guard names.contains(where: { filter == nil || $0.contains(filter!) }) else { continue }
                let frames = makeFrames(format: format, width: w, height: h)
                defer { frames.forEach { $0.deallocate() } }
                for name in names where filter == nil || name.contains(filter!) {
                    let ns: Double
                    if name.hasPrefix("memcpy") {
                        ns = timeMemcpy(frames, bytes: Frame.packedByteCount(format: format, width: w, height: h), rounds: rounds)
                    } else {
                        let sampler = try! FrameSampler(stride: name.hasSuffix("stride4") ? 4 : 1)
                        ns = timeSampler(sampler, frames, format: format, width: w, height: h, rounds: rounds)
                    }
                    results.append(BenchmarkResult(name: name, nsPerOp: ns))
                }
            }
        }
        return results
    }

    /// ``frameCount(bytesPerFrame:)`` packed frames with the documented byte pattern.
    static func makeFrames(format: PixelFormat, width: Int, height: Int) -> [UnsafeMutableRawBufferPointer] {
        let bytes = Frame.packedByteCount(format: format, width: width, height: height)
        return (0..<frameCount(bytesPerFrame: bytes)).map { f in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 64)
            let p = buffer.bindMemory(to: UInt8.self)
            let offset = UInt32(31 * f)
            for i in 0..<bytes { p[i] = UInt8(truncatingIfNeeded: 7 &* UInt32(truncatingIfNeeded: i) &+ offset) }
            return buffer
        }
    }

    static func frame(_ buffer: UnsafeMutableRawBufferPointer, format: PixelFormat, width: Int, height: Int) -> Frame {
        let base = UnsafeRawPointer(buffer.baseAddress!)
        switch format {
        case .bgra:
            return try! Frame(bgra: base, width: width, height: height, bytesPerRow: 4 * width, time: 0)
        case let .yuv420BiPlanar(encoding):
            let chroma = FramePlane(baseAddress: base + width * height, bytesPerRow: 2 * ((width + 1) / 2))
            return try! Frame(
                yuv420BiPlanar: FramePlane(baseAddress: base, bytesPerRow: width), chroma: chroma,
                encoding: encoding, width: width, height: height, time: 0)
        case let .yuv420Planar(encoding):
            let cw = (width + 1) / 2, ch = (height + 1) / 2
            return try! Frame(
                yuv420Planar: FramePlane(baseAddress: base, bytesPerRow: width),
                cb: FramePlane(baseAddress: base + width * height, bytesPerRow: cw),
                cr: FramePlane(baseAddress: base + width * height + cw * ch, bytesPerRow: cw),
                encoding: encoding, width: width, height: height, time: 0)
        }
    }

    static func timeSampler(
        _ sampler: FrameSampler, _ buffers: [UnsafeMutableRawBufferPointer],
        format: PixelFormat, width: Int, height: Int, rounds: Int
    ) -> Double {
        let frames = buffers.map { frame($0, format: format, width: width, height: height) }
        var best = Double.infinity
        var sink = 0.0
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            for frame in frames {
                // A failed read would time no work at all: it must not pass for a fast one.
                sink += try! sampler.sample(frame).green
            }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
            best = min(best, elapsed / Double(frames.count))
        }
        blackHole(sink)
        return best
    }

    static func timeMemcpy(_ buffers: [UnsafeMutableRawBufferPointer], bytes: Int, rounds: Int) -> Double {
        let destination = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        defer { destination.deallocate() }
        var best = Double.infinity
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            for buffer in buffers {
                memcpy(destination, buffer.baseAddress!, bytes)
            }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
            best = min(best, elapsed / Double(buffers.count))
        }
        blackHole(destination.load(as: UInt8.self))
        return best
    }

    @inline(never)
    static func blackHole<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }
}
