#if canImport(AVFoundation) && !os(watchOS)
import PulseDetection

/// The camera as a ``PulseDetection/FrameSource`` for ``PulseDetection/HeartRateMonitor``: each frame
/// is reduced to its mean colour (every 4th row and column of the whole frame) on the camera's frame
/// queue and delivered as `PulseInput.color`.
extension CameraFrameSource: FrameSource {
    /// The configured frame rate, Hz.
    public var nominalRate: Double { Double(configuration.frameRate) }

    /// Starts the camera (torch on) and returns the frames' mean colours.
    ///
    /// The stream keeps the newest 8 frames when the pipeline falls behind (older ones are dropped:
    /// the pipeline bridges short gaps from the timestamps). Ending the stream stops the camera.
    /// - Throws: ``PulseDetection/MonitorError`` with the camera's code (`permissionDenied`, `noCamera`,
    ///   `noTorch`, `configurationFailed`, `alreadyRunning`).
    public func start() async throws -> AsyncThrowingStream<PulseInput, any Error> {
        let sampler = try FrameSampler(stride: 4)
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: PulseInput.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(8))
        continuation.onTermination = { [weak self] _ in self?.stop() }
        do {
            try await start { frame in
                if let color = try? sampler.sample(frame) { continuation.yield(.color(color)) }
            }
        } catch {
            continuation.finish()
            guard let camera = error as? CameraError else { throw error }
            throw MonitorError(MonitorError.Code(rawValue: camera.code.rawValue) ?? .configurationFailed, camera.message)
        }
        return stream
    }
}
#endif
