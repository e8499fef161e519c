import Foundation
import Testing

/// Bad input to `vitals faces`, `bench` and the motion commands: one line on stderr naming the
/// problem and a non-zero exit, never a crash, and nothing run before the input is refused.
@Suite(.enabled(if: vitalsBinary != nil))
struct HardeningMotionCLITests {
    /// A cascade whose comment holds a byte that is not UTF-8: Foundation's XMLParser trapped on it.
    static let latin1Comment: [UInt8] = Array("<?xml version=\"1.0\"?>\n<!-- tree ".utf8) + [0x8E]
        + Array(" -->\n<opencv_storage></opencv_storage>\n".utf8)

    @Test("a --cascade with a comment that is not UTF-8 is one line, not a crash in the XML parser")
    func facesCascadeWithACommentThatIsNotUTF8() throws {
        let dir = try scratchFolder("faces-cascade-utf8")
        try Data(Self.latin1Comment).write(to: URL(fileURLWithPath: dir + "/bad.xml"))
        try Data(Array("P5\n8 8\n255\n".utf8) + [UInt8](repeating: 128, count: 64)).write(to: URL(fileURLWithPath: dir + "/image.pgm"))
        let run = try vitals(["faces", "image.pgm", "--cascade", "bad.xml"], in: dir)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.errorLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("bad.xml: cascade is not UTF-8 text"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("a --cascade that cannot be read is refused before any benchmark runs, whatever --filter keeps")
    func benchRefusesABadCascadeFirst() throws {
        let dir = try scratchFolder("bench-cascade")
        try "<opencv_storage></opencv_storage>".write(toFile: dir + "/empty.xml", atomically: true, encoding: .utf8)
        for (cascade, message) in [("missing.xml", "missing.xml: no such file"), ("empty.xml", "empty.xml: not an OpenCV cascade")] {
            let run = try vitals(["bench", "--filter", "motion-reps", "--rounds", "1", "--cascade", cascade], in: dir)
            #expect(run.status == 1, "\(run.stdout)")
            #expect(run.errorLines.count == 1, "\(run.stderr)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test("a --cascade that finds no face in the benchmark frame is an error, not a failed precondition")
    func benchWithACascadeThatFindsNoFace() throws {
        let dir = try scratchFolder("bench-no-face")
        // One Haar stump whose leaves (-1, 1) never reach the stage threshold of 100: no window passes.
        let cascade = """
            <?xml version="1.0"?>
            <opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType>
              <height>8</height><width>8</width><featureParams><maxCatCount>0</maxCatCount></featureParams>
              <stages><_><stageThreshold>100.</stageThreshold><weakClassifiers>
                <_><internalNodes>0 -1 0 0.5</internalNodes><leafValues>-1. 1.</leafValues></_>
              </weakClassifiers></_></stages>
              <features><_><rects><_>2 2 4 4 1.</_><_>0 0 8 8 -0.25</_></rects></_></features>
            </cascade></opencv_storage>
            """
        try cascade.write(toFile: dir + "/none.xml", atomically: true, encoding: .utf8)
        let run = try vitals(["bench", "--filter", "face-detect", "--rounds", "1", "--cascade", "none.xml"], in: dir)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.errorLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("the cascade finds no face in the benchmark frame"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }
}
