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

    @Test func aLongRecordingLeftOnDisk() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-readme-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var csv = "time_s,ppg\n"
        for i in 0..<6000 {   // a minute at 100 Hz, 72 bpm
            let t = Double(i) / 100
            csv += "\(t),\(sin(2 * Double.pi * 1.2 * t) + 0.4 * sin(4 * Double.pi * 1.2 * t + 1))\n"
        }
        try csv.write(toFile: path, atomically: true, encoding: .utf8)

        let recording = try PulseRecording.load(path: path, column: "ppg")   // checked; samples left on disk
        let analysis = try recording.analyse()       // read again a run at a time; throws if the file changed meanwhile
        let rate = try #require(analysis.heartRate)
        #expect(abs(rate.bpm - 72) <= 0.5)
    }

    @Test func theFacesPulse() throws {
        // 40 s of a face whose skin reddens with a 63-bpm pulse, and the detector's box on it.
        var pulse = try FacePulse(frameRate: 30)
        let faces = [generatedFace]
        var rates: [Double] = []
        try forEachPulsingFaceFrame(seconds: 40, bpm: 63) { frame in
            // As the README writes it:
            for case .rate(let bpm, _, _) in pulse.process(frame, faces: faces) { rates.append(bpm) }
        }
        #expect(!rates.isEmpty && abs(rates.last! - 63) <= 2)
    }

    @Test func aDurableAccelerometerHistory() throws {
        let historyFolder = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-readme-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: historyFolder) }
        let now = 1_795_000_000.0
        let samples = (0..<500).map { i in
            AccelerometerSample(time: now - 10 + Double(i) / 50, acceleration: Vector3(x: 0, y: 0, z: -1))
        }
        let history = try AccelerometerHistory(folder: historyFolder)   // made if missing
        try history.append(samples)                                     // [AccelerometerSample], times in seconds, increasing
        let lastDay = try history.samples(from: now - 86_400, through: now)
        var batches = 0
        try history.read(from: now - 5, through: now) { batch in batches += batch.count }  // a long stretch in constant memory
        #expect(lastDay == samples && batches == 250)
    }

    @Test func findingFacesWithACascade() throws {
        let bytes = [UInt8](try Data(contentsOf: Self.repository.appendingPathComponent("Sources/vitals/Resources/lbpcascade_frontalface_improved.xml")))
        let astronaut = try PGMImage.read(path: Self.repository.appendingPathComponent("Sources/vitals/Resources/astronaut.pgm").path)
        let cascade = try CascadeClassifier(xml: bytes)              // the XML file's bytes
        var detector = try FaceDetector(cascade: cascade)            // scale factor 1.1, 3 neighbours
        let (w, h, stride) = (astronaut.width, astronaut.height, astronaut.width)
        let found = try astronaut.pixels.withUnsafeBytes { luma in
            let image = try GrayImage(baseAddress: luma.baseAddress!, width: w, height: h, bytesPerRow: stride)
            return detector.detect(in: image)
        }
        #expect(found.count == 1)
        for face in found { #expect(face.rect.width >= 40 && face.neighbors >= 3) }   // pixels
    }

    @Test func trackingFacesOnAPreview() throws {
        var tracker = FaceTracker()
        let preview = try PreviewTransform(imageWidth: 1920, imageHeight: 1080, rotation: .clockwise90,
                                           viewWidth: 390, viewHeight: 844, gravity: .resizeAspectFill, mirrored: true)
        var events: [FaceTrackEvent] = []
        // Per camera frame: observations from any detector, the frame's time in seconds.
        let observations = [FaceObservation(boundingBox: NormalizedRect(x: 0.4, y: 0.3, width: 0.2, height: 0.3), confidence: 0.9)]
        var ids: Set<Int> = []
        for frame in 1...10 {
            for face in tracker.process(observations, at: 0.033 * Double(frame), events: &events) {
                let onScreen = preview.viewRect(for: face.boundingBox)   // points, to draw the box
                let skin = SkinRegions(face: face.boundingBox)           // forehead and cheeks, to sample colour
                ids.insert(face.id)
                #expect(onScreen.width > 0 && onScreen.height > 0)
                #expect(skin.forehead.width > 0 && skin.forehead.width < face.boundingBox.width)
            }
        }
        #expect(ids.count == 1)   // one face, one ID throughout
    }

    @Test func theMeanColourOfACameraFrame() throws {
        let (width, height, bytesPerRow) = (640, 480, 640 * 4 + 64)   // rows padded, as a camera's are
        var pixels = [UInt8](repeating: 0, count: bytesPerRow * height)
        for y in 0..<height {
            for x in 0..<width { pixels.replaceSubrange((y * bytesPerRow + 4 * x)..<(y * bytesPerRow + 4 * x + 4), with: [30, 60, 240, 255]) }
        }
        let t = 1.5
        let sample = try pixels.withUnsafeBytes { base in
            let sampler = try FrameSampler(region: .centered(fraction: 0.8), stride: 4)
            let frame = try Frame(bgra: base.baseAddress!, width: 640, height: 480, bytesPerRow: bytesPerRow, time: t)
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
