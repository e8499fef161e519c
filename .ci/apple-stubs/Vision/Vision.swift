// Stand-in declarations for type-checking Sources/VitalsApple on Linux (see ../README.md): the
// symbols the adapters use, approximating the signatures in Apple's documentation. Not the framework.
@_exported import Foundation
import CoreVideo
import ImageIO
public typealias VNConfidence = Float
public struct VNImageOption: Hashable, RawRepresentable, Sendable { public let rawValue: String; public init(rawValue: String) { self.rawValue = rawValue } }
open class VNObservation: NSObject { public var confidence: VNConfidence { 0 } }
open class VNDetectedObjectObservation: VNObservation { public var boundingBox: CGRect { .zero } }
open class VNFaceObservation: VNDetectedObjectObservation {
    public var roll: NSNumber? { nil }
    public var yaw: NSNumber? { nil }
}
open class VNRequest: NSObject {}
open class VNImageBasedRequest: VNRequest {}
open class VNDetectFaceRectanglesRequest: VNImageBasedRequest {
    public override init() {}
    public var results: [VNFaceObservation]? { nil }
}
open class VNImageRequestHandler: NSObject {
    public init(cvPixelBuffer pixelBuffer: CVPixelBuffer, orientation: CGImagePropertyOrientation, options: [VNImageOption: Any] = [:]) {}
    public func perform(_ requests: [VNRequest]) throws {}
}
