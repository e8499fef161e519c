import FaceTracking
import SignalProcessing

/// Synthetic detector output: faces moving along known paths, seen with jitter, sometimes missed.
enum Scenes {
    /// A face `size` wide and tall (normalised) centred on `centre(t)`.
    static func box(_ centre: (x: Double, y: Double), size: Double = 0.2) -> NormalizedRect {
        NormalizedRect(midX: centre.x, midY: centre.y, width: size, height: size)
    }

    /// Frames at `rate` fps for `seconds`; `faces(t)` gives the true boxes detected at t (already
    /// leaving out missed ones); each box edge gets Gaussian jitter of `jitter` (normalised units).
    static func frames(rate: Double = 30, seconds: Double, jitter: Double = 0, seed: UInt64 = 1,
                       faces: (Double) -> [NormalizedRect]) -> [FaceDetections] {
        var g = SplitMix64(seed: seed)
        return (0..<Int(seconds * rate)).map { k in
            let t = Double(k) / rate
            let observations = faces(t).map { b in
                FaceObservation(boundingBox: NormalizedRect(x: b.x + jitter * g.gaussian(), y: b.y + jitter * g.gaussian(),
                                                            width: b.width + jitter * g.gaussian(),
                                                            height: b.height + jitter * g.gaussian()),
                                confidence: 0.9)
            }
            return FaceDetections(time: t, observations: observations)
        }
    }

    /// Runs a default tracker over `frames`.
    static func track(_ frames: [FaceDetections], settings: FaceTracker.Settings = .init()) -> [TrackedFrame] {
        var tracker = try! FaceTracker(settings: settings)
        return tracker.process(frames)
    }

    /// Every event of a run, in order.
    static func events(_ run: [TrackedFrame]) -> [FaceTrackEvent] { run.flatMap(\.events) }
}
