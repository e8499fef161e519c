// AVCaptureDevice and its torch: iOS (and Mac Catalyst), macOS. Not watchOS; not visionOS (no torch API);
// not tvOS (capture devices from tvOS 17 only; Package.swift sets no tvOS floor, so SwiftPM's older default applies).
#if canImport(AVFoundation) && !os(watchOS) && !os(tvOS) && !os(visionOS)
import AVFoundation
import CoreMedia
import CoreVideo
import PulseDetection

/// The back camera as a source of fingertip frames: torch on, frames as `Frame` views.
///
/// Thin by design: it asks for permission, configures AVFoundation on its own serial session
/// queue, and hands each frame to the caller on a serial frame queue. What to do with the pixels
/// (`FrameSampler`) and how bright the torch should be (`TorchLevelController`) is portable code.
///
/// - The back wide-angle camera, in the format closest to the requested size whose frame-rate
///   range covers the requested rate (640x480 at 30 fps by default; 60 or more on request).
/// - BGRA or bi-planar 4:2:0 output; late frames are dropped (`alwaysDiscardsLateVideoFrames`).
/// - The torch starts at the lowest level and steps up only while the finger is too dark; once
///   the light is settled, exposure, white balance and focus are locked.
/// - The torch is switched off by `stop()`, on every failure while starting, and when the
///   session reports a runtime error.
public final class CameraFrameSource: NSObject, FrameSource, @unchecked Sendable {
    /// The pixel layout frames arrive in.
    public enum Output: Sendable {
        case bgra
        /// `kCVPixelFormatType_420YpCbCr8BiPlanarFullRange`: the camera's native layout, half the bytes.
        case yuv420
    }

    public struct Configuration: Sendable {
        public var width: Int = 640
        public var height: Int = 480
        /// Frames per second; the format chosen must support it.
        public var frameRate: Int = 30
        public var output: Output = .bgra
        /// How `start()` (the `FrameSource` stream) reduces each frame to a colour sample.
        public var sampler: FrameSampler = try! FrameSampler(stride: 4)
        public init(width: Int = 640, height: Int = 480, frameRate: Int = 30, output: Output = .bgra,
                    sampler: FrameSampler = try! FrameSampler(stride: 4)) {
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.output = output
            self.sampler = sampler
        }
    }

    public let configuration: Configuration
    // All session and device work happens on `sessionQueue`; frames arrive on `frameQueue`.
    private let sessionQueue = DispatchQueue(label: "vitals.camera.session")
    private let frameQueue = DispatchQueue(label: "vitals.camera.frames")
    private let session = AVCaptureSession()
    private var device: AVCaptureDevice?
    // The frame callback and the torch controller are used on both queues: only under `stateLock`.
    private let stateLock = NSLock()
    private var shared = SharedState(onFrame: nil, torch: TorchLevelController())
    // Stride 8 is plenty to judge brightness and costs ~1/64 of a full read.
    private let lightMeter = try! FrameSampler(stride: 8)
    private var running = false
    private var errorObserver: (any NSObjectProtocol)?
    private var interruptionObserver: (any NSObjectProtocol)?
    private var continuation: AsyncThrowingStream<PulseInput, any Error>.Continuation?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Asks for camera permission if needed, configures the camera and starts delivering frames.
    /// - Parameter onFrame: called on a serial queue with each frame; the frame's memory is valid
    ///   only during the call.
    /// - Throws: `MonitorError` (`permissionDenied`, `noCamera`, `noTorch`, `configurationFailed`,
    ///   `alreadyRunning`); the torch is off whenever it throws.
    public func start(onFrame: @escaping @Sendable (Frame) -> Void) async throws {
        switch AVCaptureDevice.authorizationStatus(for: .video) {
        case .authorized:
            break
        case .notDetermined:
            guard await AVCaptureDevice.requestAccess(for: .video) else {
                throw MonitorError(.permissionDenied, "camera access was not granted")
            }
        case .denied, .restricted:
            throw MonitorError(.permissionDenied, "camera access is denied or restricted (Settings > Privacy > Camera)")
        @unknown default:
            throw MonitorError(.permissionDenied, "camera access status unknown")
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            sessionQueue.async {
                do {
                    try self.configureAndStart(onFrame: onFrame)
                    continuation.resume()
                } catch {
                    // A second start leaves the running session alone; any other failure turns all off.
                    if (error as? MonitorError)?.code != .alreadyRunning { self.shutDown() }
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// The configured frame rate, Hz.
    public var nominalRate: Double { Double(configuration.frameRate) }

    /// `FrameSource`: starts the camera and streams each frame's mean colour (`configuration.sampler`).
    /// The stream keeps the newest 8 samples when the consumer falls behind; cancelling it stops the camera.
    /// - Throws: `MonitorError` as `start(onFrame:)`.
    public func start() async throws -> AsyncThrowingStream<PulseInput, any Error> {
        let (stream, continuation) = AsyncThrowingStream<PulseInput, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(8))
        let sampler = configuration.sampler
        try await start { frame in
            if let sample = try? sampler.sample(frame) { continuation.yield(.color(sample)) }
        }
        // Only now: a stream whose start failed is released unused, and releasing it runs its
        // termination handler, which must not stop a session another caller started.
        continuation.onTermination = { [weak self] _ in self?.stop() }
        sessionQueue.async { self.continuation = continuation }
        return stream
    }

    /// Stops the session and switches the torch off; the `start()` stream finishes. Safe to call
    /// more than once.
    public func stop() {
        sessionQueue.async { self.shutDown() }
    }

    // MARK: Session queue

    private func configureAndStart(onFrame: @escaping @Sendable (Frame) -> Void) throws {
        guard !running else { throw MonitorError(.alreadyRunning, "the camera is already running") }
        guard let device = AVCaptureDevice.default(.builtInWideAngleCamera, for: .video, position: .back) else {
            throw MonitorError(.noCamera, "no back wide-angle camera")
        }
        guard device.hasTorch, device.isTorchModeSupported(.on) else {
            throw MonitorError(.noTorch, "the back camera has no torch")
        }
        self.device = device
        let startLevel = withState { state -> Float in
            state.onFrame = onFrame
            state.torch = TorchLevelController()
            return state.torch.initialLevel
        }

        // The configuration is committed before `startRunning()`: AVFoundation raises an exception
        // when a session is started between `beginConfiguration()` and `commitConfiguration()`.
        try configureSession(device: device)
        errorObserver = failStream(on: AVCaptureSession.runtimeErrorNotification) { note in
            let cause = (note.userInfo?[AVCaptureSessionErrorKey] as? any Error)?.localizedDescription
            return "the camera session failed: \(cause ?? "unknown error")"
        }
        // An interruption (a call, another app taking the camera, the app sent to the background)
        // stops the session; it would restart by itself later, but the measurement is broken and
        // the torch state unknown, so the stream ends with the failure instead of silently stalling.
        interruptionObserver = failStream(on: AVCaptureSession.wasInterruptedNotification) { _ in
            "the camera was interrupted (a call, another app or the app in the background)"
        }
        running = true
        session.startRunning()
        // The torch was set while configuring; set once more when the session runs (queued after this
        // call): a level applied before the session started is not documented to survive its start.
        apply(.setTorchLevel(startLevel))
    }

    /// Adds the camera input and the video output, and sets the format, frame rate and torch, in
    /// one configuration block.
    private func configureSession(device: AVCaptureDevice) throws {
        session.beginConfiguration()
        defer { session.commitConfiguration() }
        let input: AVCaptureDeviceInput
        do { input = try AVCaptureDeviceInput(device: device) } catch {
            throw MonitorError(.configurationFailed, "cannot open the camera: \(error.localizedDescription)")
        }
        guard session.canAddInput(input) else { throw MonitorError(.configurationFailed, "cannot add the camera input") }
        session.addInput(input)

        let output = AVCaptureVideoDataOutput()
        let pixelFormat = configuration.output == .bgra
            ? kCVPixelFormatType_32BGRA : kCVPixelFormatType_420YpCbCr8BiPlanarFullRange
        output.videoSettings = [kCVPixelBufferPixelFormatTypeKey as String: pixelFormat]
        output.alwaysDiscardsLateVideoFrames = true
        output.setSampleBufferDelegate(self, queue: frameQueue)
        guard session.canAddOutput(output) else { throw MonitorError(.configurationFailed, "cannot add the video output") }
        session.addOutput(output)

        guard let format = Self.bestFormat(of: device, configuration: configuration) else {
            throw MonitorError(
                .configurationFailed,
                "no camera format near \(configuration.width)x\(configuration.height) supports \(configuration.frameRate) fps")
        }
        do {
            try device.lockForConfiguration()
            defer { device.unlockForConfiguration() }
            device.activeFormat = format
            let frameDuration = CMTime(value: 1, timescale: CMTimeScale(configuration.frameRate))
            device.activeVideoMinFrameDuration = frameDuration
            device.activeVideoMaxFrameDuration = frameDuration
            try device.setTorchModeOn(level: withState { $0.torch.initialLevel })
            if device.isFocusModeSupported(.continuousAutoFocus) { device.focusMode = .continuousAutoFocus }
            if device.isExposureModeSupported(.continuousAutoExposure) { device.exposureMode = .continuousAutoExposure }
            if device.isWhiteBalanceModeSupported(.continuousAutoWhiteBalance) {
                device.whiteBalanceMode = .continuousAutoWhiteBalance
            }
        } catch let error as MonitorError {
            throw error
        } catch {
            throw MonitorError(.configurationFailed, "cannot configure the camera: \(error.localizedDescription)")
        }
    }

    /// Observes `name` for the session: shuts down and ends the `start()` stream with
    /// `MonitorError.sourceFailed` and `message` (a failure, not the end of a measurement).
    private func failStream(on name: Notification.Name, message: @escaping @Sendable (Notification) -> String)
        -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: name, object: session, queue: nil) { [weak self] note in
            let text = message(note)
            guard let self else { return }
            self.sessionQueue.async { self.shutDown(failure: MonitorError(.sourceFailed, text)) }
        }
    }

    /// Torch off, session stopped, inputs and outputs removed; the `start()` stream finishes, with
    /// `failure` when there is one.
    private func shutDown(failure: MonitorError? = nil) {
        if let device {
            if (try? device.lockForConfiguration()) != nil {
                if device.isTorchModeSupported(.off) { device.torchMode = .off }
                device.unlockForConfiguration()
            }
        }
        if session.isRunning { session.stopRunning() }
        session.beginConfiguration()
        session.inputs.forEach(session.removeInput)
        session.outputs.forEach(session.removeOutput)
        session.commitConfiguration()
        for observer in [errorObserver, interruptionObserver].compactMap({ $0 }) {
            NotificationCenter.default.removeObserver(observer)
        }
        errorObserver = nil
        interruptionObserver = nil
        withState { $0.onFrame = nil }
        running = false
        if let failure { continuation?.finish(throwing: failure) } else { continuation?.finish() }
        continuation = nil
    }

    /// The format whose size is closest to the requested one (by pixel count) among those whose
    /// frame-rate ranges include the requested rate.
    static func bestFormat(of device: AVCaptureDevice, configuration: Configuration) -> AVCaptureDevice.Format? {
        let wanted = configuration.width * configuration.height
        let rate = Double(configuration.frameRate)
        return device.formats
            .filter { format in
                format.videoSupportedFrameRateRanges.contains { $0.minFrameRate <= rate && rate <= $0.maxFrameRate }
            }
            .min { a, b in
                let da = CMVideoFormatDescriptionGetDimensions(a.formatDescription)
                let db = CMVideoFormatDescriptionGetDimensions(b.formatDescription)
                return abs(Int(da.width) * Int(da.height) - wanted) < abs(Int(db.width) * Int(db.height) - wanted)
            }
    }

    /// The state both queues use, under `stateLock`.
    private struct SharedState {
        var onFrame: (@Sendable (Frame) -> Void)?
        var torch: TorchLevelController
    }

    private func withState<T>(_ body: (inout SharedState) -> T) -> T {
        stateLock.lock()
        defer { stateLock.unlock() }
        return body(&shared)
    }

    /// Applies the torch controller's answer (on the session queue).
    private func apply(_ action: TorchLevelController.Action) {
        sessionQueue.async {
            guard let device = self.device, self.running, (try? device.lockForConfiguration()) != nil else { return }
            defer { device.unlockForConfiguration() }
            switch action {
            case let .setTorchLevel(level):
                do {
                    try device.setTorchModeOn(level: level)
                } catch {
                    // Above what the phone allows now (it caps the torch when hot): the most it
                    // allows, and no further steps up.
                    try? device.setTorchModeOn(level: AVCaptureDevice.maxAvailableTorchLevel)
                    self.withState { $0.torch.limitToCurrentLevel() }
                }
            case .lockCamera:
                if device.isExposureModeSupported(.locked) { device.exposureMode = .locked }
                if device.isWhiteBalanceModeSupported(.locked) { device.whiteBalanceMode = .locked }
                if device.isFocusModeSupported(.locked) { device.focusMode = .locked }
            }
        }
    }
}

extension CameraFrameSource: AVCaptureVideoDataOutputSampleBufferDelegate {
    public func captureOutput(
        _ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection
    ) {
        guard let pixels = CMSampleBufferGetImageBuffer(sampleBuffer), let onFrame = withState({ $0.onFrame }) else { return }
        let time = CMTimeGetSeconds(CMSampleBufferGetPresentationTimeStamp(sampleBuffer))
        CVPixelBufferLockBaseAddress(pixels, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(pixels, .readOnly) }
        let width = CVPixelBufferGetWidth(pixels), height = CVPixelBufferGetHeight(pixels)
        let frame: Frame?
        if CVPixelBufferIsPlanar(pixels), CVPixelBufferGetPlaneCount(pixels) == 2,
           let luma = CVPixelBufferGetBaseAddressOfPlane(pixels, 0),
           let chroma = CVPixelBufferGetBaseAddressOfPlane(pixels, 1)
        {
            let matrix = CVBufferCopyAttachment(pixels, kCVImageBufferYCbCrMatrixKey, nil) as? String
            let encoding = YCbCrEncoding(
                range: .full, matrix: matrix == (kCVImageBufferYCbCrMatrix_ITU_R_709_2 as String) ? .bt709 : .bt601)
            frame = try? Frame(
                yuv420BiPlanar: FramePlane(baseAddress: luma, bytesPerRow: CVPixelBufferGetBytesPerRowOfPlane(pixels, 0)),
                chroma: FramePlane(baseAddress: chroma, bytesPerRow: CVPixelBufferGetBytesPerRowOfPlane(pixels, 1)),
                encoding: encoding, width: width, height: height, time: time)
        } else if let base = CVPixelBufferGetBaseAddress(pixels) {
            frame = try? Frame(
                bgra: base, width: width, height: height, bytesPerRow: CVPixelBufferGetBytesPerRow(pixels), time: time)
        } else {
            frame = nil
        }
        guard let frame else { return }
        onFrame(frame)
        guard !withState({ $0.torch.isLocked }), let sample = try? lightMeter.sample(frame) else { return }
        if let action = withState({ $0.torch.process(sample) }) { apply(action) }
    }
}
#endif
