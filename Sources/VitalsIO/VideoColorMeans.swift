import Foundation
import PulseDetection

/// Per-frame mean colours of a video plus what its timestamps say: the data behind `vitals frames`.
public struct VideoColorMeans: Sendable {
    public var info: VideoInfo
    /// One sample per frame, in presentation order; times in seconds as the video stamps them.
    public var samples: [ColorSample]
    /// Per-tile statistics, when a tile grid was given.
    public var tileStatistics: TileStatistics?
    /// Damage the decoder reported and worked around (nil: none reported). The frames are all
    /// there, but the colours of some are made up: say so next to any result.
    public var decodingIssues: VideoDecodingIssues?

    /// Decodes `path` (Y4M natively, anything else through ffmpeg) and takes each frame's mean colour.
    /// - Parameters:
    ///   - path: the video file to decode.
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
        guard !samples.isEmpty else { throw InputError.noFrames(path) }
        decodingIssues = reader.decodingIssues
    }

    /// A video's frame colours as given (for tests and callers that decoded it themselves).
    public init(
        info: VideoInfo, samples: [ColorSample], tileStatistics: TileStatistics? = nil,
        decodingIssues: VideoDecodingIssues? = nil
    ) {
        self.info = info
        self.samples = samples
        self.tileStatistics = tileStatistics
        self.decodingIssues = decodingIssues
    }

    /// Seconds from the first frame to one frame past the last (the span plus one typical interval).
    public var duration: Double {
        guard samples.count > 1 else { return 0 }
        return samples.last!.time - samples.first!.time + typicalInterval
    }

    /// Frame intervals, seconds.
    public var intervals: [Double] { zip(samples.dropFirst(), samples).map { $0.time - $1.time } }

    /// The median frame interval, seconds (0 for a single frame).
    public var medianInterval: Double { Self.median(of: intervals) }

    private static func median(of intervals: [Double]) -> Double {
        let d = intervals.sorted()
        return d.isEmpty ? 0 : d[d.count / 2]
    }

    /// The typical frame interval, seconds (0 for a single frame, or times that do not increase):
    /// the mean of the intervals within a factor of 1.5 (`gapRatio`) of the median (give or take one
    /// timestamp tick), so a gap or a dropped frame (which doubles an interval) does not lengthen it. Without those,
    /// it is (last - first) / (frames - 1). The median alone is biased by timestamps rounded to a
    /// coarse tick: Matroska's whole milliseconds make a 240-fps video's intervals 4 and 5 ms,
    /// median 4 ms (250 fps), mean 4.17 ms.
    public var typicalInterval: Double { intervalSummary.typical }

    /// The intervals, the rounding allowed each (one timestamp tick, ``VideoInfo/timestampResolution``,
    /// at most a quarter of the median interval: a stream whose tick is the frame period itself, an
    /// AVI's 1/fps time base, has exact frame times, and a whole tick of slack would take a dropped
    /// frame's doubled interval for a normal one) and the typical interval, from one pass.
    private var intervalSummary: (intervals: [Double], slack: Double, typical: Double) {
        let d = intervals
        let median = Self.median(of: d)
        let slack = min(info.timestampResolution ?? 0, 0.25 * median)
        guard median > 0 else { return (d, slack, 0) }
        let band = (median / Self.gapRatio - slack)...(median * Self.gapRatio + slack)
        var sum = 0.0, count = 0
        for x in d where band.contains(x) {
            sum += x
            count += 1
        }
        return (d, slack, sum / Double(count))  // count >= 1: the median interval itself is counted
    }

    /// An interval this many times the median or more holds a missing frame (one dropped frame
    /// doubles it; 1.5 is halfway); one shorter than the median divided by it, a frame stamped early.
    static let gapRatio = 1.5

    /// Frames per second from the timestamps (1 / ``typicalInterval``), nil for a single frame.
    public var measuredFrameRate: Double? { typicalInterval > 0 ? 1 / typicalInterval : nil }

    /// The fraction of the typical interval an interval may differ by before the rate counts as variable.
    static let variableIntervalTolerance = 0.1

    /// True when some interval differs from the typical one by more than 10 % of it plus one
    /// timestamp tick (``VideoInfo/timestampResolution``: rounding each time to the tick moves an
    /// interval by up to one): a variable frame rate, or dropped frames.
    public var isVariableFrameRate: Bool {
        let (d, slack, m) = intervalSummary
        let tolerance = Self.variableIntervalTolerance * m + slack
        return m > 0 && d.contains { abs($0 - m) > tolerance }
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
