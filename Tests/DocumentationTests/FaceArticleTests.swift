import Foundation
import Testing
import Vitals
import VitalsIO

/// The code of FaceTracking's `GettingStarted` article (FaceTracking.docc), as it writes it, on the
/// bundled astronaut picture and a generated pulsing face.
@Suite struct FaceArticleTests {
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func findingAndFollowingFaces() throws {
        let xml = [UInt8](try Data(contentsOf: Self.repository.appendingPathComponent("Sources/vitals/Resources/lbpcascade_frontalface_improved.xml")))
        let astronaut = try PGMImage.read(path: Self.repository.appendingPathComponent("Sources/vitals/Resources/astronaut.pgm").path)
        let (width, height, bytesPerRow) = (astronaut.width, astronaut.height, astronaut.width)
        var ids: Set<Int> = [], boxes: [ViewRect] = [], foreheads: [NormalizedRect] = []
        func draw(_ box: ViewRect, id: Int) { ids.insert(id); boxes.append(box) }
        func sampleColour(_ region: NormalizedRect) { foreheads.append(region) }

        let cascade = try CascadeClassifier(xml: xml)      // an OpenCV cascade file's bytes
        var detector = try FaceDetector(cascade: cascade)
        var tracker = FaceTracker()
        let preview = try PreviewTransform(imageWidth: Double(width), imageHeight: Double(height),
                                           viewWidth: 390, viewHeight: 844, gravity: .resizeAspectFill)

        for k in 0..<10 {   // ten frames of the same picture, 1/30 s apart
            let time = Double(k) / 30
            try astronaut.pixels.withUnsafeBytes { raw in
                let luma = raw.baseAddress!
                let image = try GrayImage(baseAddress: luma, width: width, height: height, bytesPerRow: bytesPerRow)
                let observations = detector.detect(in: image).map { $0.observation(width: width, height: height) }
                for face in tracker.process(observations, at: time) {
                    draw(preview.viewRect(for: face.boundingBox), id: face.id)   // points, on the preview
                    sampleColour(SkinRegions(face: face.boundingBox).forehead)   // forehead and cheeks
                }
            }
        }
        #expect(ids.count == 1)                                  // one face, one ID
        #expect(!boxes.isEmpty && boxes.allSatisfy { $0.width > 50 && $0.height > 50 })
        #expect(foreheads.allSatisfy { $0.width > 0 && $0.height > 0 })
    }

    @Test func aHeartRateFromAFace() throws {
        var rates: [Double] = []
        func show(_ bpm: Double) { rates.append(bpm) }

        var pulse = try FacePulse(frameRate: 30)

        try forEachPulsingFaceFrame(seconds: 40, bpm: 72) { frame in
            let observations = [generatedFace]                  // what the detector found in this frame
            for case .rate(let bpm, _, _) in pulse.process(frame, faces: observations) {
                show(bpm)
            }
        }
        #expect(!rates.isEmpty && abs(rates.last! - 72) <= 2)
    }

    /// Every code block of the article stands in this file line for line (indentation aside).
    @Test func theArticlesCodeIsThisFilesCode() throws {
        let article = Self.repository.appendingPathComponent("Sources/FaceTracking/FaceTracking.docc/GettingStarted.md")
        #expect(try codeBlocks(of: article, standIn: URL(fileURLWithPath: #filePath)) == 4)
    }
}
