import FaceTracking
import Foundation
import PulseDetection

/// Heart rate from a face in a video, without touching anything: the cascade detector
/// (FaceTracking's `FaceDetector` on the luma plane) looks for faces a few times a second, and
/// `FacePulse` (FaceTracking; the live path: `FaceTracker` and `SkinRegions` from FaceTracking,
/// `SkinPulseTracker` from PulseDetection) reads the pulse of the largest
/// face's forehead and cheeks frame by frame. Frames without a followed face give the regions no
/// colour (the remote pulse holds the last one, and counts the frame as left out).
public struct FaceVideoPulse: Sendable {
    public struct Options: Sendable {
        /// Frames are decoded at most this many pixels on their longer side (ffmpeg's area
        /// averaging keeps the regions' mean colours; the detector needs faces of 24 pixels or more).
        public var maxDimension: Int? = 320
        /// The detector's parameters; faces under a tenth of the frame's shorter side are not looked for.
        public var parameters = FaceDetector.Parameters()
        /// Faces are looked for this many times a second at most (every frame when the video has
        /// fewer); the tracked box stands in between. Detection is most of the cost (about 15 ms
        /// for a 320x320 frame), and a face moves little in a sixth of a second.
        public var detectionsPerSecond = 6.0
        public var tracker = FaceTracker.Settings()
        public var pulse = RemotePulse.Settings()
        public var skinTracker = SkinPulseTracker.defaultTrackerSettings
        public init() {}
    }

    public var recording: SkinRecording
    public var analysis: SkinRecording.Analysis
    /// Frames in which a face was tracked, and faces (track IDs) seen in all.
    public var framesWithFace: Int
    public var faces: Int
    /// The decoded frame size, pixels.
    public var width: Int
    public var height: Int
    /// The video's display rotation (``VideoInfo/displayRotation``): faces are looked for in the
    /// frames as stored, where an upright face of a portrait phone video lies on its side.
    public var displayRotation: Int? = nil

    /// - Throws: `InputError` for a video that cannot be decoded, has under two frames, or settings
    ///   the detector, the pulse or the tracker cannot use.
    public static func run(path: String, cascade: CascadeClassifier, options: Options = .init(),
                           progress: ((Double) -> Void)? = nil) throws -> FaceVideoPulse {
        guard options.detectionsPerSecond > 0, options.detectionsPerSecond.isFinite else {
            throw InputError(.badOption, "faces must be looked for a positive number of times a second")
        }
        let reader = try VideoFile.open(path: path, options: .init(maxDimension: options.maxDimension))
        let info = reader.videoInfo
        var parameters = options.parameters
        let smallest = min(info.width, info.height) / 10
        if parameters.minSize.width < smallest { parameters.minSize = PixelSize(width: smallest, height: smallest) }
        var detector: FaceDetector
        do { detector = try FaceDetector(cascade: cascade, parameters: parameters) } catch { throw error.inputError }
        var settings = FacePulse.Settings()
        settings.tracker = options.tracker
        settings.pulse = options.pulse
        settings.rate = options.skinTracker
        let frameRate = info.nominalFrameRate ?? 30
        var pulse: FacePulse
        do { pulse = try FacePulse(frameRate: frameRate, settings: settings) } catch let error as InvalidSettings {
            throw InputError(.badOption, "\(path): \(error.description)")
        } catch {
            throw InputError(.badOption, "\(path): \(error)")
        }
        var image = GrayImage()  // refilled from each frame's luma
        var colors: [[ColorSample]] = [[], [], []]
        var estimates: [WristRateTracker.Estimate] = []
        var ids = Set<Int>()
        var nextDetection = -Double.infinity
        var withFace = 0
        let duration = info.duration ?? 0
        func collect(_ events: [FacePulse.Event]) {
            for case .window(let e) in events { estimates.append(e) }
        }
        try reader.forEachFrame { frame in
            var observations: [FaceObservation]?
            if frame.time >= nextDetection - 1e-6 {
                nextDetection = max(nextDetection, frame.time) + 1 / options.detectionsPerSecond
                try image.copyLuma(of: frame)
                observations = detector.detect(in: image).map { $0.observation(width: frame.width, height: frame.height) }
            }
            collect(pulse.process(frame, faces: observations))
            if let id = pulse.face?.id {
                ids.insert(id)
                withFace += 1
            }
            for k in 0..<3 {
                let c = pulse.lastColors[k]
                colors[k].append(ColorSample(time: frame.time, red: c.x, green: c.y, blue: c.z))
            }
            if duration > 0 { progress?(min(1, frame.time / duration)) }
        }
        collect(pulse.finish())
        let recording = try SkinRecording(source: path, regions: ["forehead", "left cheek", "right cheek"], colors: colors)
        let analysis = SkinRecording.Analysis(rejectedFrames: pulse.rejectedFrames, windowsCounted: pulse.windowsCounted,
                                              estimates: estimates)
        return FaceVideoPulse(recording: recording, analysis: analysis, framesWithFace: withFace, faces: ids.count,
                              width: info.width, height: info.height, displayRotation: info.displayRotation)
    }
}
