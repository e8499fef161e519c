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
    /// Damage the decoder reported (and worked around) during the last ``forEachFrame(_:)``; nil
    /// when it reported none, or the reader reports none (Y4M has no compression to damage: its
    /// errors are thrown).
    var decodingIssues: VideoDecodingIssues? { get }
}

extension VideoFrameReader {
    public var decodingIssues: VideoDecodingIssues? { nil }
}

/// What a decoder reported while reading a damaged video it did not stop on: ffmpeg conceals a
/// damaged picture (patching it from its neighbours) and skips a packet it cannot decode, so the
/// frames still arrive, but some of their colours are made up.
public struct VideoDecodingIssues: Sendable, Equatable, Codable {
    /// Error lines the decoder and demuxer logged (ffmpeg's error and fatal levels).
    public var errors: Int
    /// Frames delivered with concealed damage (ffmpeg's "corrupt decoded frame").
    public var damagedFrames: Int
    /// Packets that could not be decoded at all: no frame was delivered for them.
    public var undecodablePackets: Int

    public init(errors: Int, damagedFrames: Int, undecodablePackets: Int) {
        self.errors = errors
        self.damagedFrames = damagedFrames
        self.undecodablePackets = undecodablePackets
    }

    /// One line for a warning about `path`: "ffmpeg reported 108 decoding errors in clip.mp4; 35
    /// frames were decoded with concealed damage and 13 could not be decoded at all (skipped): results
    /// may be affected".
    public func warning(path: String) -> String {
        var parts: [String] = []
        if damagedFrames > 0 {
            parts.append("\(damagedFrames) frame\(damagedFrames == 1 ? " was" : "s were") decoded with concealed damage")
        }
        if undecodablePackets > 0 {
            let noun = parts.isEmpty ? (undecodablePackets == 1 ? " frame" : " frames") : ""
            parts.append("\(undecodablePackets)\(noun) could not be decoded at all (skipped)")
        }
        let frames = parts.isEmpty ? "" : "; " + parts.joined(separator: " and ")
        return "ffmpeg reported \(errors) decoding error\(errors == 1 ? "" : "s") in \(path)\(frames): results may be affected"
    }
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
    /// Degrees a player turns the frames by to show them (the container's display rotation: 90 or
    /// 270 for a portrait phone video), or nil when none. Frames are delivered as stored, unturned.
    public var displayRotation: Int?

    public init(
        width: Int, height: Int, sourceWidth: Int, sourceHeight: Int, nominalFrameRate: Double?,
        duration: Double?, frameCountHint: Int?, codec: String, timestampResolution: Double? = nil,
        displayRotation: Int? = nil
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
        self.displayRotation = displayRotation
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

