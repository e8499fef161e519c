#if canImport(Vision) && !os(watchOS)  // the VN* requests: iOS, macOS, tvOS, visionOS; not watchOS
import CoreVideo
import FaceTracking
import Foundation
import ImageIO
import Vision

// A thin wrapper over Vision's face-rectangle detector producing the toolkit's `FaceObservation`,
// so an app can feed `FaceTracker` from Vision or from the portable cascade detector alike. No
// algorithm here. Written from Apple's documentation: VNDetectFaceRectanglesRequest (results),
// VNImageRequestHandler (init(cvPixelBuffer:orientation:options:), perform(_:)), VNFaceObservation
// (boundingBox: normalised, origin bottom-left; roll, yaw: NSNumber?, radians; confidence).

extension FaceObservation {
    /// Vision's face observation: the box moved to the toolkit's top-left origin (normalised
    /// coordinates of the image as Vision saw it, after the orientation it was given), roll and yaw
    /// in radians as Vision reports them (nil where it gives none), confidence 0...1.
    public init(_ o: VNFaceObservation) {
        let b = o.boundingBox
        self.init(boundingBox: NormalizedRect(bottomLeftOriginX: Double(b.origin.x), y: Double(b.origin.y),
                                              width: Double(b.size.width), height: Double(b.size.height)),
                  roll: o.roll?.doubleValue, yaw: o.yaw?.doubleValue, confidence: Double(o.confidence))
    }
}

/// Vision's face detector on camera frames, returning ``FaceObservation``s.
///
/// One request object is kept and reused from frame to frame. Not thread-safe: call ``detect(in:orientation:)``
/// from one queue at a time (the camera's frame queue). Vision's work is synchronous and takes
/// milliseconds; at a high frame rate, detect on every second or third frame and let
/// `FaceTracker` carry the faces in between.
public final class VisionFaceDetector {
    private let request = VNDetectFaceRectanglesRequest()

    public init() {}

    /// Finds the faces in `pixelBuffer`.
    ///
    /// - Parameters:
    ///   - pixelBuffer: the camera frame; it must not change until this returns.
    ///   - orientation: how the buffer is turned relative to upright (`.right` for the back
    ///     camera's buffer of a phone held upright); Vision finds faces in the upright image, and
    ///     the boxes are in that upright image's normalised coordinates. Give a
    ///     `PreviewTransform` the upright size and `.none` rotation to draw them.
    /// - Returns: one observation per face, in Vision's order.
    /// - Throws: the error Vision's `perform(_:)` throws.
    public func detect(in pixelBuffer: CVPixelBuffer, orientation: CGImagePropertyOrientation = .up) throws -> [FaceObservation] {
        let handler = VNImageRequestHandler(cvPixelBuffer: pixelBuffer, orientation: orientation, options: [:])
        try handler.perform([request])
        return (request.results ?? []).map(FaceObservation.init)
    }
}
#endif
