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

    /// A Y4M video (read without ffmpeg) of the astronaut, still then gone: a face per frame with its
    /// time while it is there. The luma is the image's (Y4M is copied as it is).
    @Test func aVideoGivesEachFramesFacesWithItsTime() throws {
        let dir = try scratchFolder("faces-video")
        let pgm = try Data(contentsOf: URL(fileURLWithPath: Self.astronaut))
        let luma = pgm.suffix(512 * 512)
        var video = Data("YUV4MPEG2 W512 H512 F10:1 Ip A1:1 C420jpeg XCOLORRANGE=FULL\n".utf8)
        for frame in 0..<4 {
            video += Data("FRAME\n".utf8)
            video += frame < 3 ? luma : Data(repeating: 128, count: 512 * 512)
            video += Data(repeating: 128, count: 2 * 256 * 256)
        }
        try video.write(to: URL(fileURLWithPath: dir + "/clip.y4m"))
        // Faces of 64 pixels and more (fewer scales: the debug build is slow).
        let run = try vitals(["faces", "clip.y4m", "--json", "--max-frames", "4", "--min-size", "64"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let frames = try #require(doc["frames"] as? [[String: Any]])
        #expect(frames.compactMap { $0["time_s"] as? Double } == [0, 0.1, 0.2, 0.3])
        let counts = frames.map { ($0["faces"] as? [[String: Int]])?.count }
        #expect(counts == [1, 1, 1, 0])
        #expect((frames[0]["faces"] as? [[String: Int]])?.first == ["x": 186, "y": 84, "width": 78, "height": 78, "neighbors": 29])
        // Followed from its third frame (the tracker's confirmation) as face 1, then kept while missed.
        let tracked = frames.map { ($0["tracked"] as? [[String: Any]]) ?? [] }
        #expect(tracked.map(\.count) == [0, 0, 1, 1])
        #expect(tracked[2].first?["id"] as? Int == 1 && tracked[3].first?["id"] as? Int == 1)
        #expect(tracked[2].first?["coasting"] as? Bool == false && tracked[3].first?["coasting"] as? Bool == true)
        #expect(abs((tracked[2].first?["x"] as? Double ?? 0) - 186) < 1)
        // A still image has nothing to follow.
        let still = try vitals(["faces", Self.astronaut, "--json"], in: dir)
        #expect((try JSONSerialization.jsonObject(with: Data(still.stdout.utf8)) as? [String: Any])
            .flatMap { $0["frames"] as? [[String: Any]] }?.first?["tracked"] == nil)
        let capped = try vitals(["faces", "clip.y4m", "--json", "--max-frames", "2", "--min-size", "200"], in: dir)
        #expect((try JSONSerialization.jsonObject(with: Data(capped.stdout.utf8)) as? [String: Any])
            .flatMap { $0["frames"] as? [Any] }?.count == 2)
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
        try Data("YUV4MPEG2 W64 H64 F10:1 Ip A1:1 C420jpeg\n".utf8).write(to: URL(fileURLWithPath: dir + "/header-only.y4m"))
        let cases: [([String], String)] = [
            (["faces", "missing.pgm"], "missing.pgm: no such file"),
            (["faces", "notes.pgm"], "not a binary PGM"),
            (["faces", "short.pgm"], "holds 2 of its 4x4"),
            (["faces", Self.astronaut, "--cascade", "bad.xml"], "not well-formed XML"),
            (["faces", Self.astronaut, "--cascade", "none.xml"], "none.xml: no such file"),
            // Refused at its first block (it read 1 GiB first).
            (["faces", Self.astronaut, "--cascade", "/dev/zero"], "/dev/zero: not a text file"),
            (["faces", Self.astronaut, "--scale-factor", "1.0001"], "--scale-factor must be at least 1.001"),
            // As `frames` and `heart-rate` say it (it printed "0 frames" and exited 0).
            (["faces", "header-only.y4m"], "header-only.y4m: the video has no frames"),
        ]
        for (arguments, message) in cases {
            let run = try vitals(arguments, in: dir)
            #expect(run.status != 0, "\(arguments)")
            #expect(run.errorLines.count == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("Error: ") && run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }
}
