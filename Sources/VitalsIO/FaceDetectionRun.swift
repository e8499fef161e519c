import FaceTracking
import Foundation
import PulseDetection

/// Faces found in an image or in each frame of a video (what `vitals faces` prints).
public struct FaceDetectionRun: Sendable {
    /// One frame's detections.
    public struct FrameFaces: Sendable, Equatable {
        /// Presentation time, seconds (0 for an image).
        public var time: Double
        /// The faces found, in pixels.
        public var faces: [Detection]
        /// The faces followed through a video (`FaceTracker` in FaceTracking: stable IDs, smoothed boxes in
        /// normalised image coordinates; a face is reported from its third frame); nil for a still
        /// image.
        public var tracked: [TrackedFace]? = nil
    }

    /// The input's path.
    public var input: String
    /// Frame width, pixels (as decoded: ffmpeg rounds 4:2:0 frames up to even sides).
    public var width: Int
    /// Frame height, pixels.
    public var height: Int
    /// A name for the cascade (its file name).
    public var cascadeName: String
    /// Each frame's detections, in order (one for an image).
    public var frames: [FrameFaces]
    /// The video's display rotation (``VideoInfo/displayRotation``): faces are looked for in the
    /// frames as stored, where an upright face of a portrait phone video lies on its side.
    public var displayRotation: Int? = nil

    /// Detects faces in the image or video at `input`: a binary PGM (`.pgm`) and Y4M video are read
    /// directly, anything else through ffmpeg (PNG, JPEG, videos), whose 4:2:0 luma plane is the grayscale
    /// image (BT.601 or BT.709 luma in the stream's range: for full-range RGB sources such as PNG,
    /// 0.299 R + 0.587 G + 0.114 B, as OpenCV's conversion).
    /// - Parameters:
    ///   - input: the path of the image or video, kept in the result.
    ///   - cascade: the classifier the detector runs (a Haar or LBP cascade read from OpenCV's XML).
    ///   - cascadeName: a name for the cascade (its file name), kept in the result as its `cascade`.
    ///   - parameters: the detector's search parameters (scale factor, neighbours, smallest and
    ///     largest face).
    ///   - maxFrames: stop after this many frames (nil: all).
    /// - Throws: `InputError` for a missing, unreadable or undecodable input.
    public static func run(
        input: String, cascade: CascadeClassifier, cascadeName: String,
        parameters: FaceDetector.Parameters, maxFrames: Int? = nil
    ) throws -> FaceDetectionRun {
        var detector: FaceDetector
        do { detector = try FaceDetector(cascade: cascade, parameters: parameters) } catch { throw error.inputError }
        if input.lowercased().hasSuffix(".pgm") {
            let image = try PGMImage.read(path: input)
            return FaceDetectionRun(
                input: input, width: image.width, height: image.height, cascadeName: cascadeName,
                frames: [FrameFaces(time: 0, faces: detector.detect(in: image))])
        }
        let reader = try VideoFile.open(path: input, options: .init(stillImages: true))
        var frames: [FrameFaces] = []
        var image = GrayImage()  // one buffer for every frame
        var tracker = FaceTracker()
        struct Enough: Error {}
        do {
            try reader.forEachFrame { frame in
                try image.copyLuma(of: frame)
                let faces = detector.detect(in: image)
                let tracked = tracker.process(faces.map { $0.observation(width: frame.width, height: frame.height) }, at: frame.time)
                frames.append(FrameFaces(time: frame.time, faces: faces, tracked: tracked))
                if let maxFrames, frames.count >= maxFrames { throw Enough() }
            }
        } catch is Enough {}
        // As `frames` and `heart-rate` say it (a Y4M header with no frame after it).
        if frames.isEmpty { throw InputError.noFrames(input) }
        if frames.count == 1 { frames[0].tracked = nil }  // a still image: nothing to follow
        return FaceDetectionRun(
            input: input, width: reader.videoInfo.width, height: reader.videoInfo.height, cascadeName: cascadeName, frames: frames,
            displayRotation: reader.videoInfo.displayRotation)
    }

    /// `{"input", "width", "height", "cascade", "frames": [{"time_s", "faces": [{"x", "y", "width",
    /// "height", "neighbors"}]}]}`.
    public var json: JSON {
        .object([
            ("input", .string(input)), ("width", .number(Double(width))), ("height", .number(Double(height))),
            ("cascade", .string(cascadeName)),
            ("frames", .array(frames.map { f in
                .object([
                    ("time_s", .num(f.time, digits: 6)),
                    ("faces", .array(f.faces.map { d in
                        .object([
                            ("x", .number(Double(d.rect.x))), ("y", .number(Double(d.rect.y))),
                            ("width", .number(Double(d.rect.width))), ("height", .number(Double(d.rect.height))),
                            ("neighbors", .number(Double(d.neighbors))),
                        ])
                    })),
                ] + (f.tracked.map { tracked in
                    [("tracked", .array(tracked.map { t in
                        let b = t.boundingBox
                        return .object([
                            ("id", .number(Double(t.id))),
                            ("x", .num(b.x * Double(width), digits: 1)), ("y", .num(b.y * Double(height), digits: 1)),
                            ("width", .num(b.width * Double(width), digits: 1)), ("height", .num(b.height * Double(height), digits: 1)),
                            ("coasting", .bool(t.isCoasting)),
                        ])
                    }))]
                } ?? []))
            })),
        ])
    }
}
