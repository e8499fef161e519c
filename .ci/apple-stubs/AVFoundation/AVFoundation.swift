// Stand-in declarations for type-checking Sources/VitalsApple on Linux (see ../README.md): the
// symbols the adapters use, approximating the signatures in Apple's documentation. Not the framework.
@_exported import Foundation
@_exported import CoreMedia
@_exported import CoreVideo
public enum AVMediaType { case video, audio }
public enum AVAuthorizationStatus { case notDetermined, restricted, denied, authorized }
open class AVCaptureInput: NSObject {}
open class AVCaptureOutput: NSObject {}
public final class AVCaptureConnection: NSObject {}
public final class AVCaptureDeviceInput: AVCaptureInput { public init(device: AVCaptureDevice) throws {} }
public protocol AVCaptureVideoDataOutputSampleBufferDelegate: NSObjectProtocol {
    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection)
}
public final class AVCaptureVideoDataOutput: AVCaptureOutput {
    public var videoSettings: [String: Any]! = [:]
    public var alwaysDiscardsLateVideoFrames = true
    public func setSampleBufferDelegate(_ d: (any AVCaptureVideoDataOutputSampleBufferDelegate)?, queue: DispatchQueue?) {}
}
public let AVCaptureSessionErrorKey = "AVCaptureSessionErrorKey"
public final class AVCaptureSession: NSObject {
    public static let runtimeErrorNotification = Notification.Name("rt")
    public static let wasInterruptedNotification = Notification.Name("wi")
    public var isRunning: Bool { false }
    public var inputs: [AVCaptureInput] { [] }
    public var outputs: [AVCaptureOutput] { [] }
    public func beginConfiguration() {}
    public func commitConfiguration() {}
    public func canAddInput(_ i: AVCaptureInput) -> Bool { true }
    public func addInput(_ i: AVCaptureInput) {}
    public func canAddOutput(_ o: AVCaptureOutput) -> Bool { true }
    public func addOutput(_ o: AVCaptureOutput) {}
    public func removeInput(_ i: AVCaptureInput) {}
    public func removeOutput(_ o: AVCaptureOutput) {}
    public func startRunning() {}
    public func stopRunning() {}
}
public final class AVFrameRateRange: NSObject { public var minFrameRate: Double = 0; public var maxFrameRate: Double = 0 }
public final class AVCaptureDevice: NSObject {
    public enum DeviceType { case builtInWideAngleCamera }
    public enum Position { case back, front }
    public enum TorchMode { case off, on, auto }
    public enum FocusMode { case locked, autoFocus, continuousAutoFocus }
    public enum ExposureMode { case locked, autoExpose, continuousAutoExposure }
    public enum WhiteBalanceMode { case locked, autoWhiteBalance, continuousAutoWhiteBalance }
    public final class Format: NSObject {
        public var formatDescription: CMFormatDescription { CMFormatDescription() }
        public var videoSupportedFrameRateRanges: [AVFrameRateRange] { [] }
    }
    public static let maxAvailableTorchLevel: Float = 1
    public static func `default`(_ t: DeviceType, for m: AVMediaType?, position: Position) -> AVCaptureDevice? { nil }
    public static func authorizationStatus(for m: AVMediaType) -> AVAuthorizationStatus { .authorized }
    public static func requestAccess(for m: AVMediaType) async -> Bool { true }
    public var hasTorch: Bool { true }
    public func isTorchModeSupported(_ m: TorchMode) -> Bool { true }
    public var torchMode: TorchMode = .off
    public func setTorchModeOn(level: Float) throws {}
    public func lockForConfiguration() throws {}
    public func unlockForConfiguration() {}
    public var formats: [Format] { [] }
    public var activeFormat: Format = Format()
    public var activeVideoMinFrameDuration = CMTime(value: 1, timescale: 30)
    public var activeVideoMaxFrameDuration = CMTime(value: 1, timescale: 30)
    public func isFocusModeSupported(_ m: FocusMode) -> Bool { true }
    public var focusMode: FocusMode = .locked
    public func isExposureModeSupported(_ m: ExposureMode) -> Bool { true }
    public var exposureMode: ExposureMode = .locked
    public func isWhiteBalanceModeSupported(_ m: WhiteBalanceMode) -> Bool { true }
    public var whiteBalanceMode: WhiteBalanceMode = .locked
}
