// Stand-in declarations for type-checking Sources/VitalsApple on Linux (see ../README.md): the
// symbols the adapters use, approximating the signatures in Apple's documentation. Not the framework.
public typealias CMTimeScale = Int32
public typealias CMTimeValue = Int64
public struct CMTime { public init(value: CMTimeValue, timescale: CMTimeScale) {} }
public func CMTimeGetSeconds(_ t: CMTime) -> Double { 0 }
public final class CMSampleBuffer { public init() {} }
public final class CMFormatDescription { public init() {} }
public typealias CMVideoFormatDescription = CMFormatDescription
public struct CMVideoDimensions { public var width: Int32 = 0; public var height: Int32 = 0 }
public func CMVideoFormatDescriptionGetDimensions(_ d: CMVideoFormatDescription) -> CMVideoDimensions { .init() }
public func CMSampleBufferGetPresentationTimeStamp(_ b: CMSampleBuffer) -> CMTime { CMTime(value: 0, timescale: 1) }
