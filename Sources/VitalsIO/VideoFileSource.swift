import Foundation
import PulseDetection

/// A fingertip video file as a `FrameSource`: each frame's mean colour, in presentation order.
///
/// `start()` decodes the whole video (Y4M natively, other formats through ffmpeg, shrunk to
/// `maxDimension` while decoding) into colour means, 32 bytes a frame, then streams them as fast as
/// the consumer pulls, like a `RecordingSource`. Times start at 0 at the first frame.
public final class VideoFileSource: FrameSource, @unchecked Sendable {
    public let path: String
    public let sampler: FrameSampler
    public let options: FFmpegVideoReader.Options
    private let lock = NSLock()
    private var recording: RecordingSource?

    /// - Parameters:
    ///   - path: the video file, decoded when `start()` is called.
    ///   - sampler: region and stride of each frame's mean colour (the whole frame, every pixel, by default).
    ///   - maxDimension: let ffmpeg shrink frames to at most this many pixels a side (nil: full size).
    public init(path: String, sampler: FrameSampler = try! FrameSampler(), maxDimension: Int? = 160) {
        self.path = path
        self.sampler = sampler
        self.options = FFmpegVideoReader.Options(maxDimension: maxDimension)
    }

    /// The frame rate from the video's timestamps (1 / ``VideoColorMeans/typicalInterval``), Hz; 0 before `start()`.
    public var nominalRate: Double {
        lock.withLock { recording?.nominalRate ?? 0 }
    }

    /// - Throws: `InputError` from the video reader (`toolMissing`, `unsupportedFormat`, `corrupt`, `empty`).
    public func start() async throws -> AsyncThrowingStream<PulseInput, any Error> {
        let means = try VideoColorMeans(path: path, sampler: sampler, options: options)
        let t0 = means.samples[0].time
        let colors = means.samples.map { ColorSample(time: $0.time - t0, red: $0.red, green: $0.green, blue: $0.blue) }
        let source = RecordingSource(colors: colors, nominalRate: means.measuredFrameRate)
        lock.withLock { recording = source }
        return try await source.start()
    }

    public func stop() async {
        let source = lock.withLock { recording }
        await source?.stop()
    }
}
