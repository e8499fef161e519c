import Foundation
import Testing

/// `vitals faces` as a user runs it, on the bundled astronaut image (no data outside the repository).
@Suite(.enabled(if: vitalsBinary != nil))
struct FacesCLITests {
    static let astronaut = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/vitals/Resources/astronaut.pgm").path

    /// OpenCV 4.14: `CascadeClassifier("lbpcascade_frontalface_improved.xml").detectMultiScale2(gray, 1.1, 3)`
    /// on the same pixels gives [188, 85, 73, 73] with 38 neighbours.
    @Test func theBundledCascadeFindsTheAstronautsFaceAsOpenCVDoes() throws {
        let run = try vitals(["faces", Self.astronaut, "--json"], in: NSTemporaryDirectory())
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(doc["width"] as? Int == 512 && doc["height"] as? Int == 512)
        #expect(doc["cascade"] as? String == "lbpcascade_frontalface_improved.xml")
        let frames = try #require(doc["frames"] as? [[String: Any]])
        #expect(frames.count == 1 && frames[0]["time_s"] as? Double == 0)
        let faces = try #require(frames[0]["faces"] as? [[String: Int]])
        #expect(faces == [["x": 188, "y": 85, "width": 73, "height": 73, "neighbors": 38]])
    }

    @Test func aMinimumSizeAboveTheFaceFindsNothing() throws {
        let run = try vitals(["faces", Self.astronaut, "--min-size", "120"], in: NSTemporaryDirectory())
        #expect(run.status == 0)
        #expect(run.stdout.hasSuffix("no faces\n"))
    }

    @Test func badInputIsOneErrorLine() throws {
        let dir = try scratchFolder("faces")
        try Data("not an image\n".utf8).write(to: URL(fileURLWithPath: dir + "/notes.pgm"))
        try Data("P5\n4 4\n255\n12".utf8).write(to: URL(fileURLWithPath: dir + "/short.pgm"))
        try Data("<opencv_storage><cascade>".utf8).write(to: URL(fileURLWithPath: dir + "/bad.xml"))
        let cases: [([String], String)] = [
            (["faces", "missing.pgm"], "missing.pgm: no such file"),
            (["faces", "notes.pgm"], "not a binary PGM"),
            (["faces", "short.pgm"], "holds 2 of its 4x4"),
            (["faces", Self.astronaut, "--cascade", "bad.xml"], "not well-formed XML"),
            (["faces", Self.astronaut, "--cascade", "none.xml"], "none.xml: no such file"),
            (["faces", Self.astronaut, "--scale-factor", "1.0001"], "--scale-factor must be at least 1.001"),
        ]
        for (arguments, message) in cases {
            let run = try vitals(arguments, in: dir)
            #expect(run.status != 0, "\(arguments)")
            #expect(run.errorLines.count == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("Error: ") && run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }
}
