import Foundation
import Testing

/// Bad input to `vitals faces`, `bench` and the motion commands: one line on stderr naming the
/// problem and a non-zero exit, never a crash, and nothing run before the input is refused.
@Suite(.enabled(if: vitalsBinary != nil))
struct HardeningMotionCLITests {
    /// A cascade whose comment holds a byte that is not UTF-8: Foundation's XMLParser trapped on it.
    static let latin1Comment: [UInt8] = Array("<?xml version=\"1.0\"?>\n<!-- tree ".utf8) + [0x8E]
        + Array(" -->\n<opencv_storage></opencv_storage>\n".utf8)

    @Test("a log sampled at 10 kHz, the most a recording may be, runs: 1e-4 s apart read 10000.000001 Hz, stopped vitals motion and was refused by steps and heart-rate")
    func aLogAtTenKilohertz() throws {
        let dir = try scratchFolder("motion-10khz")
        var csv = "time,acc_x,acc_y,acc_z,gyro_x,gyro_y,gyro_z\n"
        for i in 0..<3000 {
            let t = Double(i) / 10_000
            csv += "\(t),\(0.01 * sin(Double(i))),-0.7,0.3,0.001,1.0,-0.05\n"
        }
        try csv.write(toFile: dir + "/fast.csv", atomically: true, encoding: .utf8)
        for command in ["motion", "reps", "swings", "tremor", "steps"] {
            let run = try vitals([command, "fast.csv"], in: dir)
            #expect(run.status == 0, "\(command): \(run.stderr)")
            #expect(!run.stderr.contains("Fatal error") && !run.stderr.contains("crashed"), "\(command): \(run.stderr)")
        }
        // A PPG at 10 kHz, 1e-4 s apart: it was refused as "1e+04 Hz is outside 5 Hz...10 kHz".
        var ppg = "time_s,ppg\n"
        for i in 0..<50_000 { ppg += "\(Double(i) / 10_000),\(sin(2 * Double.pi * 1.2 * Double(i) / 10_000))\n" }
        try ppg.write(toFile: dir + "/fast-ppg.csv", atomically: true, encoding: .utf8)
        let pulse = try vitals(["heart-rate", "fast-ppg.csv", "--column", "ppg", "--json"], in: dir)
        #expect(pulse.status == 0 && pulse.stdout.contains("\"sample_rate_hz\": 10000"), "\(pulse.stderr)")
    }

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

    /// A folder `h` in a fresh scratch folder holding 100 samples at 50 Hz from 1700000000 s (a.csv
    /// beside it, the log they came from), and the path of its one segment file.
    func history(_ name: String) throws -> (dir: String, segment: String) {
        let dir = try scratchFolder(name)
        let rows = (0..<100).map { i in String(format: "%.2f,0.1,0.2,-1", Double(i) / 50) }
        try ("time,acc_x,acc_y,acc_z\n" + rows.joined(separator: "\n")).write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        let add = try vitals(["history", "add", "h", "a.csv", "--start", "1700000000", "--accel-unit", "g"], in: dir)
        try #require(add.status == 0, "\(add.stderr)")
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: dir + "/h").first { $0.hasSuffix(".vah") })
        return (dir, dir + "/h/" + segment)
    }

    /// A history whose segment has a sample damaged on disk (8 bytes of `value` at `offset` in the
    /// sample's 32: time, then x, y, z).
    func damagedHistory(_ name: String, sample: Int, offset: Int, value: Double) throws -> String {
        let (dir, segment) = try history(name)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: segment))
        try handle.seek(toOffset: UInt64(32 + 32 * sample + offset))
        try handle.write(contentsOf: withUnsafeBytes(of: value.bitPattern.littleEndian) { Data($0) })
        try handle.close()
        return dir
    }

    @Test("a sample damaged on disk is an error naming it, not an export that stops there with success")
    func historyExportOfADamagedSample() throws {
        for (offset, value, what) in [(0, Double.nan, "time nan s"), (0, 0.0, "time 0.0 s after 1700000000.08 s"),
                                      (8, Double.nan, "acceleration nan, 0.2, -1.0 g"), (24, .infinity, "acceleration 0.1, 0.2, inf g")] {
            let dir = try damagedHistory("history-damaged", sample: 5, offset: offset, value: value)
            let export = try vitals(["history", "export", "h"], in: dir)
            #expect(export.status == 1, "\(what): \(export.stdout.suffix(200))")
            #expect(export.errorLines.count == 1, "\(export.stderr)")
            #expect(export.stderr.contains("sample 6 of 100 is damaged (") && export.stderr.contains(what), "\(export.stderr)")
            #expect(!export.stdout.contains("nan") && !export.stdout.contains("inf"))
            // A stretch before the damage reads as it was.
            let before = try vitals(["history", "export", "h", "--to", "1700000000.04"], in: dir)
            #expect(before.status == 0 && before.stdout.split(separator: "\n").count == 1 + 3, "\(before.stderr)")
        }
    }

    @Test("a folder under a segment file's name is named as such, not 'NSCocoaErrorDomain error 256'")
    func historyWithAFolderForASegment() throws {
        let dir = try history("history-folder").dir
        try FileManager.default.createDirectory(atPath: dir + "/h/accelerometer-1800000000000.vah", withIntermediateDirectories: false)
        for arguments in [["history", "info", "h"], ["history", "export", "h"], ["history", "add", "h", "a.csv", "--start", "1900000000"]] {
            let run = try vitals(arguments, in: dir)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.errorLines.count == 1, "\(run.stderr)")
            #expect(run.stderr.contains("accelerometer-1800000000000.vah: a folder, not a segment file"), "\(run.stderr)")
        }
    }

    @Test("an IPOL file stating a rate no sensor has is refused naming it, not as a rate of -nan Hz")
    func stepsOfAnIPOLFileWithAnImpossibleRate() throws {
        let dir = try scratchFolder("steps-ipol-rate")
        let rows = (0..<300).map { i in "\(i).0\t0.1\t0.2\t9.8\t0\t0\t0\t0\t0\t0" }
        for (rate, shown) in [("5e-324", "4.94e-324 Hz"), ("1e-300", "1e-300 Hz"), ("3", "3 Hz"), ("1e9", "1e+09 Hz")] {
            let text = "Acquisition frequency: \(rate) Hz\nPacketCounter\tAcc_X\tAcc_Y\tAcc_Z\tGyr_X\tGyr_Y\tGyr_Z\tMag_X\tMag_Y\tMag_Z\n"
                + rows.joined(separator: "\n") + "\n"
            try text.write(toFile: dir + "/walk_lb.txt", atomically: true, encoding: .utf8)
            let run = try vitals(["steps", "walk_lb.txt"], in: dir)
            #expect(run.status == 1, "\(rate): \(run.stderr)")
            #expect(run.errorLines.count == 1, "\(run.stderr)")
            #expect(run.stderr.contains("the stated acquisition frequency \(shown) is outside 7 Hz...10 kHz"), "\(run.stderr)")
        }
    }
}
