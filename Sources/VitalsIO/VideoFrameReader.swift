import Foundation
import PulseDetection

/// A source of decoded video frames in presentation order (a Y4M file, a video decoded by ffmpeg).
///
/// Each frame is a view of the reader's own buffer, valid only during the call to `body`; the
/// buffer is reused for the next frame, so reading allocates nothing per frame.
public protocol VideoFrameReader {
    /// Size and rate as the reader will deliver frames.
    var videoInfo: VideoInfo { get }
    /// Calls `body` with every frame in presentation order; `body` may throw to stop early.
    /// - Throws: `InputError` when the input is unreadable or corrupt, or what `body` throws.
    func forEachFrame(_ body: (Frame) throws -> Void) throws
}

/// What a reader knows about a video before reading its frames.
public struct VideoInfo: Sendable, Equatable, Codable {
    /// Frame size as delivered (after any downscale), in pixels.
    public var width: Int
    public var height: Int
    /// Frame size stored in the file, in pixels.
    public var sourceWidth: Int
    public var sourceHeight: Int
    /// Nominal frames per second from the container (timestamps are what count), or nil if unknown.
    public var nominalFrameRate: Double?
    /// Duration in seconds from the container, or nil if unknown.
    public var duration: Double?
    /// The container's frame count, when it states one (an estimate: the decoder decides; ffmpeg
    /// sources cap it at what the duration holds at the average rate, as edit lists cut frames away).
    public var frameCountHint: Int?
    /// Short description of the stream, e.g. "h264 yuv420p" or "y4m 420jpeg".
    public var codec: String
    /// Seconds per timestamp tick (the stream's time base: 0.001 for Matroska), or nil when frame
    /// times are computed exactly (Y4M) or the tick is unknown. Each frame time is rounded to it,
    /// so an interval between two frames is off by up to one tick.
    public var timestampResolution: Double?

    public init(
        width: Int, height: Int, sourceWidth: Int, sourceHeight: Int, nominalFrameRate: Double?,
        duration: Double?, frameCountHint: Int?, codec: String, timestampResolution: Double? = nil
    ) {
        self.width = width
        self.height = height
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.nominalFrameRate = nominalFrameRate
        self.duration = duration
        self.frameCountHint = frameCountHint
        self.codec = codec
        self.timestampResolution = timestampResolution
    }
}

extension VideoFrameReader {
    /// The mean colour of every frame, in presentation order.
    /// - Parameter sampler: region and stride of the mean.
    /// - Parameter progress: called after each frame with the frame's time (seconds).
    /// - Parameter body: called with each frame after its mean is taken (more work on the same pixels).
    /// - Throws: `InputError` from the reader; `FrameError` when the region misses the frames; what
    ///   `body` throws.
    public func colorSamples(
        sampler: FrameSampler = try! FrameSampler(), progress: ((Double) -> Void)? = nil,
        eachFrame body: ((Frame) throws -> Void)? = nil
    ) throws -> [ColorSample] {
        var samples: [ColorSample] = []
        if let hint = videoInfo.frameCountHint, hint > 0 { samples.reserveCapacity(min(hint, 1 << 20)) }
        try forEachFrame { frame in
            samples.append(try sampler.sample(frame))
            try body?(frame)
            progress?(frame.time)
        }
        return samples
    }
}

