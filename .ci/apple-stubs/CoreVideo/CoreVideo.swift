// Stand-in declarations for type-checking Sources/VitalsApple on Linux (see ../README.md): the
// symbols the adapters use, approximating the signatures in Apple's documentation. Not the framework.
import CoreMedia
public final class CVBuffer {}
public typealias CVImageBuffer = CVBuffer
public typealias CVPixelBuffer = CVBuffer
public typealias OSType = UInt32
public struct CVPixelBufferLockFlags: OptionSet, Sendable { public let rawValue: UInt64; public init(rawValue: UInt64) { self.rawValue = rawValue }; public static let readOnly = CVPixelBufferLockFlags(rawValue: 1) }
public let kCVPixelFormatType_32BGRA: OSType = 0
public let kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: OSType = 1
public let kCVPixelBufferPixelFormatTypeKey: String = "k"
public let kCVImageBufferYCbCrMatrixKey: String = "m"
public let kCVImageBufferYCbCrMatrix_ITU_R_709_2: String = "709"
@discardableResult public func CVPixelBufferLockBaseAddress(_ b: CVPixelBuffer, _ f: CVPixelBufferLockFlags) -> Int32 { 0 }
@discardableResult public func CVPixelBufferUnlockBaseAddress(_ b: CVPixelBuffer, _ f: CVPixelBufferLockFlags) -> Int32 { 0 }
public func CVPixelBufferGetWidth(_ b: CVPixelBuffer) -> Int { 0 }
public func CVPixelBufferGetHeight(_ b: CVPixelBuffer) -> Int { 0 }
public func CVPixelBufferIsPlanar(_ b: CVPixelBuffer) -> Bool { false }
public func CVPixelBufferGetPlaneCount(_ b: CVPixelBuffer) -> Int { 0 }
public func CVPixelBufferGetBaseAddressOfPlane(_ b: CVPixelBuffer, _ i: Int) -> UnsafeMutableRawPointer? { nil }
public func CVPixelBufferGetBytesPerRowOfPlane(_ b: CVPixelBuffer, _ i: Int) -> Int { 0 }
public func CVPixelBufferGetBaseAddress(_ b: CVPixelBuffer) -> UnsafeMutableRawPointer? { nil }
public func CVPixelBufferGetBytesPerRow(_ b: CVPixelBuffer) -> Int { 0 }
public func CVBufferCopyAttachment(_ b: CVBuffer, _ key: String, _ mode: UnsafeMutablePointer<Int>?) -> Any? { nil }
public func CMSampleBufferGetImageBuffer(_ b: CMSampleBuffer) -> CVImageBuffer? { nil }
