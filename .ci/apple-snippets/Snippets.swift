// The Apple-only code of the README and of PulseDetection's GettingStarted article, as they write
// it: .ci/apple-typecheck.sh compiles this file (the main file of a throwaway app) against the
// stand-ins for Apple's frameworks, and DocumentationTests checks that each such block stands here
// line for line. Blocks an app would put in a method are wrapped in functions; the article's own
// top-level lines stay at the top level. Nothing here runs.
import Foundation
import PulseDetection
import Vitals
import VitalsApple

// README, "Heart rate from a fingertip".
func readmeHeartRate() async throws {
    let monitor = HeartRateMonitor()
    for await event in try await monitor.start(CameraFrameSource()) {
        if case .rate(let r) = event, r.confidence >= 0.7 {
            print("\(Int(r.bpm)) bpm")
            await monitor.stop()   // the torch goes off, the loop ends
        }
    }
}

// README, HRV of Apple Watch's heartbeat series (HealthKit).
func readmeHeartbeatSeries() async throws {
    let reader = HeartbeatSeriesReader()
    try await reader.requestAuthorization()
    for series in try await reader.series(from: .now.addingTimeInterval(-86_400), to: .now) {
        let hrv = try await reader.hrv(of: series)
        print(series.endDate, hrv.measures.rmssd, hrv.rejected.count)
    }
}

// README, "Motion": Core Motion's samples to a detector owned by one task.
func readmeMotion() throws {
    let motion = MotionManagerAdapter()                       // CMMotionManager, off the main queue
    let (samples, feed) = AsyncStream.makeStream(of: DeviceMotion.self)
    try motion.start(rate: 50) { feed.yield($0) }
    Task {
        var strokes = StrokeDetector(wrist: .left)            // or SwingWatchDetector, RepCounter, ...
        for await m in samples {
            if let swing = strokes.process(m) { print(swing.kind, swing.peakRate) }
        }
    }
    // later: motion.stop(); feed.finish()
    motion.stop(); feed.finish()
}

// README, "The iPhone camera": an app that samples the camera's frames itself.
final class PulseViewModel {
    private let camera = CameraFrameSource(configuration: .init(width: 640, height: 480, frameRate: 30, output: .yuv420))
    private let sampler = try! FrameSampler(stride: 4)

    func start(onSample: @escaping @Sendable (ColorSample) -> Void) async {
        do {
            try await camera.start { [sampler] frame in
                if let sample = try? sampler.sample(frame) { onSample(sample) }   // feed the pulse pipeline
            }
        } catch let error as MonitorError {
            print("camera: \(error.code): \(error.message)")   // .permissionDenied, .noTorch, ...
        } catch {}
    }

    func stop() { camera.stop() }   // also switches the torch off
}

// Stand-ins for an app's views (a real app's are main-actor UI; this file is type-checked in Swift 5
// mode, where the article's lines compile as an app's would inside a view controller).
final class Label { var text = "" }
final class PulseView { func pulse() {} }
final class WaveView { func append(_ sample: WaveformSample) {} }
let bpmLabel = Label()
let heartView = PulseView()
let waveView = WaveView()
func showMessage(_ text: String) {}

// PulseDetection's GettingStarted: the monitor with the camera, then the same with closures.
let monitor = HeartRateMonitor()

func measure() async {
    do {
        try await monitor.start(CameraFrameSource())   // torch on, back camera, 30 fps
    } catch {
        // error.code: .permissionDenied, .noCamera, .noTorch, .configurationFailed, .alreadyRunning
        showMessage(error.message)
        return
    }
    for await event in monitor.events {
        switch event {
        case .contactFound:         showMessage("Hold still…")
        case .contactLost:          showMessage("Cover the camera and the flash with your fingertip")
        case .waveform(let sample): waveView.append(sample)
        case .beat:                 heartView.pulse()
        case .rate(let rate):       bpmLabel.text = "\(Int(rate.bpm.rounded())) bpm"
        default:                    break
        }
    }
}

// Later, e.g. when the view disappears (releasing the monitor does not stop it):
await monitor.stop()    // the torch goes off; the `for await` loop ends after the events
                        // already buffered

await monitor.onBeat { _ in await heartView.pulse() }
await monitor.onRate { rate in
    await MainActor.run { bpmLabel.text = "\(Int(rate.bpm.rounded())) bpm" }
    return rate.confidence >= 0.7         // true = stop measuring (see the table above)
}
try await monitor.start(CameraFrameSource())
// Give up if no rate was good enough within 30 s of starting.
try? await Task.sleep(for: .seconds(30))
await monitor.stop()                      // does nothing if the rate handler stopped it already
