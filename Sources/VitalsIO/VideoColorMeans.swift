import Foundation
import PulseDetection

/// Per-frame mean colours of a video plus what its timestamps say: the data behind `vitals frames`.
public struct VideoColorMeans: Sendable {
    public var info: VideoInfo
    /// One sample per frame, in presentation order; times in seconds as the video stamps them.
    public var samples: [ColorSample]
    /// Per-tile statistics, when a tile grid was given.
    public var tileStatistics: TileStatistics?

    /// Decodes `path` (Y4M natively, anything else through ffmpeg) and takes each frame's mean colour.
    /// - Parameters:
    ///   - sampler: region and stride of the mean.
    ///   - options: ffmpeg options (downscale, program path).
    ///   - progress: called with the fraction done (0...1, from timestamps and the stated duration).
    ///   - tiles: also take every frame's tile means on this grid into `tileStatistics`.
    /// - Throws: `InputError` (`toolMissing`, `unsupportedFormat`, `corrupt`, `empty` when the video
    ///   has no frames), `FrameError` when the region misses the frame.
    public init(
        path: String, sampler: FrameSampler = try! FrameSampler(),
        options: FFmpegVideoReader.Options = .init(), progress: ((Double) -> Void)? = nil,
        tiles: TileGrid? = nil
    ) throws {
        let reader = try VideoFile.open(path: path, options: options)
        let info = reader.videoInfo
        let duration = info.duration ?? info.frameCountHint.flatMap { n in info.nominalFrameRate.map { Double(n) / $0 } }
        self.info = info
        let report: (Double) -> Void = { t in
            if let duration, duration > 0 { progress?(min(1, t / duration)) }
        }
        if let tiles {
            var statistics = TileStatistics(grid: tiles)
            var means: [ColorSample] = []
            samples = try reader.colorSamples(sampler: sampler, progress: report) { frame in
                try tiles.sample(frame, into: &means)
                statistics.add(means)
            }
            tileStatistics = statistics
        } else {
            samples = try reader.colorSamples(sampler: sampler, progress: report)
        }
        guard !samples.isEmpty else {
            throw InputError(.empty, "\(path): the video has no frames")
        }
    }

    /// Seconds from the first frame to one frame past the last (frames times the median interval).
    public var duration: Double {
        guard samples.count > 1 else { return 0 }
        return samples.last!.time - samples.first!.time + medianInterval
    }

    /// Frame intervals, seconds.
    public var intervals: [Double] { zip(samples.dropFirst(), samples).map { $0.time - $1.time } }

    /// The median frame interval, seconds (0 for a single frame).
    public var medianInterval: Double {
        let d = intervals.sorted()
        return d.isEmpty ? 0 : d[d.count / 2]
    }

    /// Frames per second from the timestamps (1 / median interval), nil for a single frame.
    public var measuredFrameRate: Double? { medianInterval > 0 ? 1 / medianInterval : nil }

    /// True when some interval differs from the median by more than 10 % (variable frame rate, or drops).
    public var isVariableFrameRate: Bool {
        let m = medianInterval
        return m > 0 && intervals.contains { abs($0 - m) > 0.1 * m }
    }

    /// Mean of the per-frame means.
    public var meanColor: (red: Double, green: Double, blue: Double) {
        let n = Double(samples.count)
        return (samples.reduce(0) { $0 + $1.red } / n, samples.reduce(0) { $0 + $1.green } / n,
                samples.reduce(0) { $0 + $1.blue } / n)
    }

    /// CSV text `time_s,r,g,b`, one line per frame (the format of the MTHS recordings).
    public var csv: String {
        var out = "time_s,r,g,b\n"
        out.reserveCapacity(40 * samples.count)
        for s in samples {
            out += String(format: "%.6f,%.4f,%.4f,%.4f\n", s.time, s.red, s.green, s.blue)
        }
        return out
    }
}
