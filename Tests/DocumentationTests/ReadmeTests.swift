import Foundation
import Testing
import Vitals
import VitalsIO
import TestSupport

/// The README's portable code, as written there, on generated inputs and the repository's own
/// bundled files: a README whose calls no longer exist fails to build here.
@Suite struct ReadmeTests {
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every Swift block of the README stands line for line in this file, or, when it uses an
    /// Apple-only adapter, in `.ci/apple-snippets/Snippets.swift`, which CI type-checks against
    /// stand-ins for Apple's frameworks: a README block cannot drift from code that compiles.
    @Test func theReadmesCodeIsCodeThatCompiles() throws {
        let readme = Self.repository.appendingPathComponent("README.md")
        let appleOnly = ["CameraFrameSource", "HeartbeatSeriesReader", "MotionManagerAdapter"]
        func isAppleOnly(_ block: String) -> Bool { appleOnly.contains { block.contains($0) } }
        let portable = try codeBlocks(of: readme, standIn: URL(fileURLWithPath: #filePath), skipping: isAppleOnly)
        let apple = try codeBlocks(of: readme, standIn: Self.repository.appendingPathComponent(".ci/apple-snippets/Snippets.swift"),
                                   skipping: { !isAppleOnly($0) })
        #expect(portable == 6 && apple == 4)
    }

    @Test func aLongRecordingLeftOnDisk() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-readme-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var csv = "time_s,ppg\n"
        for i in 0..<6000 {   // a minute at 100 Hz, 72 bpm
            let t = Double(i) / 100
            csv += "\(t),\(sin(2 * Double.pi * 1.2 * t) + 0.4 * sin(4 * Double.pi * 1.2 * t + 1))\n"
        }
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        let dayCSV = path

        let recording = try PulseRecording.load(path: dayCSV, column: "ppg")   // checked; samples left on disk
        let analysis = try recording.analyse()       // read again a run at a time; throws if the file changed meanwhile
        let rate = try #require(analysis.heartRate)
        #expect(abs(rate.bpm - 72) <= 0.5)
    }

    @Test func theFacesPulse() throws {
        // 40 s of a face whose skin reddens with a 63-bpm pulse, and the detector's box on it.
        var rates: [Double] = []
        func print(_ bpm: Double) { rates.append(bpm) }   // what the README's line would show

        var pulse = try FacePulse(frameRate: 30)
        // Per camera frame: the Frame and the faces the detector found in it (nil when it did not run).
        func process(_ frame: Frame, faces: [FaceObservation]?) {
            for case .rate(let bpm, _, _) in pulse.process(frame, faces: faces) { print(bpm) }
        }

        try forEachPulsingFaceFrame(seconds: 40, bpm: 63) { frame in process(frame, faces: [generatedFace]) }
        #expect(!rates.isEmpty && abs(rates.last! - 63) <= 2)
    }

    @Test func aDurableAccelerometerHistory() throws {
        let historyFolder = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-readme-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: historyFolder) }
        let now = 1_795_000_000.0
        let (start, end) = (now - 5, now)
        var batches = 0
        func process(_ batch: [AccelerometerSample]) { batches += batch.count }
        let samples = (0..<500).map { i in
            AccelerometerSample(time: now - 10 + Double(i) / 50, acceleration: Vector3(x: 0, y: 0, z: -1))
        }
        let history = try AccelerometerHistory(folder: historyFolder)   // made if missing
        try history.append(samples)                                     // [AccelerometerSample], times in seconds, increasing
        let lastDay = try history.samples(from: now - 86_400, through: now)
        try history.read(from: start, through: end) { batch in process(batch) }   // a long stretch in constant memory
        #expect(lastDay == samples && batches == 250)
    }

    @Test func findingFacesWithACascade() throws {
        let bytes = [UInt8](try Data(contentsOf: Self.repository.appendingPathComponent("Sources/vitals/Resources/lbpcascade_frontalface_improved.xml")))
        let astronaut = try PGMImage.read(path: Self.repository.appendingPathComponent("Sources/vitals/Resources/astronaut.pgm").path)
        let (w, h, stride) = (astronaut.width, astronaut.height, astronaut.width)
        var found: [(rect: PixelRect, neighbors: Int)] = []
        func print(_ rect: PixelRect, _ neighbors: Int) { found.append((rect, neighbors)) }   // what the README's line would show
        try astronaut.pixels.withUnsafeBytes { pixels in
            let luma = pixels.baseAddress!
            let cascade = try CascadeClassifier(xml: bytes)              // the XML file's bytes
            var detector = try FaceDetector(cascade: cascade)            // scale factor 1.1, 3 neighbours
            let image = try GrayImage(baseAddress: luma, width: w, height: h, bytesPerRow: stride)
            for face in detector.detect(in: image) { print(face.rect, face.neighbors) }   // pixels
        }
        #expect(found.count == 1)
        for face in found { #expect(face.rect.width >= 40 && face.neighbors >= 3) }
    }

    @Test func trackingFacesOnAPreview() throws {
        var shown: [(id: Int, onScreen: ViewRect, forehead: NormalizedRect)] = []
        func print(_ id: Int, _ onScreen: ViewRect, _ forehead: NormalizedRect) { shown.append((id, onScreen, forehead)) }   // what the README's line would show

        var tracker = FaceTracker()
        let preview = try PreviewTransform(imageWidth: 1920, imageHeight: 1080, rotation: .clockwise90,
                                           viewWidth: 390, viewHeight: 844, gravity: .resizeAspectFill, mirrored: true)
        var events: [FaceTrackEvent] = []
        // Per camera frame: observations from any detector, the frame's time in seconds.
        func process(_ observations: [FaceObservation], at time: Double) {
            for face in tracker.process(observations, at: time, events: &events) {
                let onScreen = preview.viewRect(for: face.boundingBox)   // points, to draw the box
                let skin = SkinRegions(face: face.boundingBox)           // forehead and cheeks, to sample colour
                print(face.id, onScreen, skin.forehead)
            }
        }
        process([FaceObservation(boundingBox: NormalizedRect(x: 0.4, y: 0.3, width: 0.2, height: 0.3), confidence: 0.9)], at: 0.033)
        for frame in 2...10 {   // the same face in nine more frames
            process([FaceObservation(boundingBox: NormalizedRect(x: 0.4, y: 0.3, width: 0.2, height: 0.3), confidence: 0.9)], at: 0.033 * Double(frame))
        }
        #expect(shown.count == 8)                // from its third frame on (confirmationFrames is 3)
        #expect(Set(shown.map(\.id)).count == 1)  // one face, one ID throughout
        for (_, onScreen, forehead) in shown {
            #expect(onScreen.width > 0 && onScreen.height > 0)
            #expect(forehead.width > 0 && forehead.width < 0.2)
        }
    }

    @Test func theMeanColourOfACameraFrame() throws {
        let (width, height, bytesPerRow) = (640, 480, 640 * 4 + 64)   // rows padded, as a camera's are
        var pixels = [UInt8](repeating: 0, count: bytesPerRow * height)
        for y in 0..<height {
            for x in 0..<width { pixels.replaceSubrange((y * bytesPerRow + 4 * x)..<(y * bytesPerRow + 4 * x + 4), with: [30, 60, 240, 255]) }
        }
        let t = 1.5
        let sample = try pixels.withUnsafeBytes { pixels in
            let base = pixels.baseAddress!
            let sampler = try FrameSampler(region: .centered(fraction: 0.8), stride: 4)
            let frame = try Frame(bgra: base, width: 640, height: 480, bytesPerRow: bytesPerRow, time: t)
            let sample: ColorSample = try sampler.sample(frame)   // time, red, green, blue (0...255)
            return sample
        }
        #expect(sample.time == 1.5 && sample.red == 240 && sample.green == 60 && sample.blue == 30)
    }
}

/// The README's motion pattern (Motion: "The detectors are value types fed one `DeviceMotion` at a
/// time"): samples arrive from a background source through an `AsyncStream`, and one task owns the
/// detector. `MotionManagerAdapter` is Apple-only; here a task plays generated strokes into the stream
/// as Core Motion's queue would.
@Suite struct ReadmeMotionTests {
    @Test func aDetectorOwnedByOneTaskGetsTheStreamedSamples() async {
        let trace = Generate.swings([(2, -9, 0.5), (5, 9, 0.5), (8, -9, 0.5)], rate: 50, seconds: 10)
        let (samples, feed) = AsyncStream.makeStream(of: DeviceMotion.self)
        let source = Task.detached { for m in trace { feed.yield(m) }; feed.finish() }  // stands in for motion.start
        let detector = Task {
            var strokes = StrokeDetector(wrist: .left)            // or SwingWatchDetector, RepCounter, ...
            var found: [SwingEvent] = []
            for await m in samples {
                if let swing = strokes.process(m) { found.append(swing) }
            }
            return found
        }
        await source.value
        let swings = await detector.value
        #expect(swings.map(\.kind) == [.backhand, .forehand, .backhand])
        #expect(swings.allSatisfy { $0.peakRate > 5 })
    }
}
