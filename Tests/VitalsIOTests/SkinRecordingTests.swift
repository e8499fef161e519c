import Foundation
import PulseDetection
import SignalProcessing
import Testing
@testable import VitalsIO

/// A Y4M clip of one skin region: every pixel the region's colour (150, 100, 80 levels, its pulse in
/// the blood's proportions and 0.3 % in green) plus noise of 2 levels per pixel, so the frame mean
/// keeps the pulse below one level; full-range BT.601 4:2:0.
private func writeSkinClip(path: String, bpm: Double, seconds: Double = 24, frameRate: Int = 15, seed: UInt64) throws {
    let (w, h) = (32, 32)
    let header = Y4MHeader(width: w, height: h, frameRateNumerator: frameRate)
    let writer = try Y4MWriter(path: path, header: header)
    var rng = SplitMix64(seed: seed)
    var planes = [UInt8](repeating: 0, count: header.frameByteCount)
    for n in 0..<Int(seconds * Double(frameRate)) {
        let t = Double(n) / Double(frameRate)
        let wave = sin(2 * Double.pi * bpm / 60 * t)
        let c = SIMD3<Double>(150, 100, 80) * (1 + 0.003 * wave * SIMD3(0.33, 0.77, 0.53) / 0.77)
        let y = 0.299 * c.x + 0.587 * c.y + 0.114 * c.z
        let cb = 128 + (c.z - y) / 1.772, cr = 128 + (c.x - y) / 1.402
        func level(_ v: Double) -> UInt8 { UInt8(min(255, max(0, (v + 2 * rng.gaussian()).rounded()))) }
        for i in 0..<(w * h) { planes[i] = level(y) }
        for i in 0..<(w * h / 4) {
            planes[w * h + i] = level(cb)
            planes[w * h + w * h / 4 + i] = level(cr)
        }
        try planes.withUnsafeBytes { try writer.write(planes: $0) }
    }
    try writer.close()
}

@Suite struct SkinRecordingTests {
    @Test func evalSkinScoresEachVideoOverItsRegionsTogether() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-skin-\(UUID().uuidString)").path
        let cohort = dir + "/cohort"
        try FileManager.default.createDirectory(atPath: cohort, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "video,hr_bpm\nclipA,84\nclipB,66\n".write(toFile: cohort + "/truth.csv", atomically: true, encoding: .utf8)
        try writeSkinClip(path: cohort + "/clipA_forehead.y4m", bpm: 84, seed: 1)
        try writeSkinClip(path: cohort + "/clipA_cheek.y4m", bpm: 84, seed: 2)
        try writeSkinClip(path: cohort + "/clipB.y4m", bpm: 66, seed: 3)
        var unscored: [String] = []
        let results = try SkinEvaluation.run(directory: dir, unscored: { unscored.append($0) })
        #expect(unscored.isEmpty)
        #expect(results.map(\.video) == ["clipA", "clipB"])
        #expect(results.map(\.group) == ["cohort", "cohort"])
        #expect(results[0].regions == ["cheek", "forehead"])
        #expect(results[1].regions == ["whole frame"])
        for r in results {
            let bpm = try #require(r.heartRate, "\(r.video)")
            #expect(abs(bpm - r.truth) < 1.5, "\(r.video): \(bpm)")
            #expect(r.rejectedFrames == 0)
        }
        // A file is the region of the longest video name it starts with (found by review: "clipB"
        // took "clipB_x_cheek" as its region "x_cheek").
        try FileManager.default.copyItem(atPath: cohort + "/clipB.y4m", toPath: cohort + "/clipB_x_cheek.y4m")
        try "video,hr_bpm\nclipB,66\nclipB_x,66\n".write(toFile: cohort + "/truth.csv", atomically: true, encoding: .utf8)
        let split = try SkinEvaluation.run(directory: dir, unscored: { unscored.append($0) })
        #expect(split.map(\.regions) == [["whole frame"], ["cheek"]])
        // Videos no truth row names are said to be left out.
        #expect(unscored.sorted() == ["cohort/clipA_cheek.y4m", "cohort/clipA_forehead.y4m"])
        // A subfolder that links back to a folder already scored is not scored again (its videos
        // were counted twice).
        try FileManager.default.createSymbolicLink(atPath: dir + "/again", withDestinationPath: cohort)
        try FileManager.default.createSymbolicLink(atPath: cohort + "/loop", withDestinationPath: cohort)
        #expect(try SkinEvaluation.run(directory: dir).map(\.group) == ["cohort", "cohort"])  // the folder, not its link
        #expect(try SkinEvaluation.run(directory: cohort).map(\.video) == ["clipB", "clipB_x"])
        // No videos listed is an error, not a NaN.
        try "video,hr_bpm\n".write(toFile: cohort + "/truth.csv", atomically: true, encoding: .utf8)
        #expect(throws: InputError.self) { try SkinEvaluation.run(directory: dir) }
        // A truth row whose video is missing is named.
        try "video,hr_bpm\nclipC,70\n".write(toFile: cohort + "/truth.csv", atomically: true, encoding: .utf8)
        #expect(throws: InputError.self) { try SkinEvaluation.run(directory: dir) }
        #expect(throws: InputError.self) { try SkinEvaluation.run(directory: cohort + "/clipB.y4m") }
    }

    @Test func regionsMustShareTheirFrames() throws {
        func colours(_ n: Int) throws -> PulseRecording {
            try PulseRecording.colors((0..<n).map { ColorSample(time: Double($0) / 30, red: 150 + sin(Double($0)), green: 100, blue: 80) },
                                      source: "clip")
        }
        #expect(throws: InputError.self) { try SkinRecording(source: "clip", regions: [("a", try colours(300)), ("b", try colours(299))]) }
        #expect(throws: InputError.self) { try SkinRecording(source: "clip", regions: []) }
        let one = try SkinRecording(source: "clip", regions: [("a", try colours(300))])
        #expect(one.regions == ["a"])
        #expect(abs(one.duration - 299.0 / 30) < 1e-9)
    }

    /// A region whose colour jumps in most frames goes into no rate.
    @Test func aRegionThatMostlyJumpsIsLeftOut() throws {
        var rng = SplitMix64(seed: 7)
        let samples = (0..<600).map { n -> ColorSample in
            let red = 150 * (1 + 0.3 * rng.gaussian())  // the red share wanders by several hundredths a frame
            return ColorSample(time: Double(n) / 30, red: red, green: 100, blue: 80)
        }
        let recording = try SkinRecording(source: "clip", regions: [("patch", try PulseRecording.colors(samples, source: "clip"))])
        let analysis = try recording.analyse()
        #expect(Double(analysis.rejectedFrames[0]) > 0.5 * 600)
        #expect(analysis.used == [false])
        #expect(!analysis.estimates.isEmpty && analysis.estimates.allSatisfy { $0.declined == .flatSignal })
        #expect(analysis.heartRate == nil)
    }
}

@Suite struct FaceVideoSimulatorTests {
    /// A setting out of range is named in the error, one setting at a time.
    @Test func theSettingOutOfRangeIsNamed() throws {
        let rgb = [UInt8](repeating: 128, count: 48 * 32 * 3)
        let cases: [(WritableKeyPath<FaceVideoSimulator.Configuration, Double>, Double, String)] = [
            (\.bpm, 10, "heart rate"), (\.pulseAmplitude, 0.2, "pulse"), (\.flickerDepth, 0.8, "flicker 80"),
            (\.flickerHz, -1, "flicker's frequency"), (\.swayPixels, 13, "sway 13"), (\.noiseLevel, 100, "noise"),
            (\.seconds, 5000, "length"),
        ]
        for (key, value, named) in cases {
            var c = FaceVideoSimulator.Configuration()
            c[keyPath: key] = value
            do {
                _ = try FaceVideoSimulator(rgb: rgb, width: 48, height: 32, configuration: c)
                Issue.record("\(named): accepted")
            } catch let error as InputError {
                #expect(error.message.contains(named), "\(error.message)")
            }
        }
    }

    /// A grey picture with a square of skin colour: the square pulses, the grey does not.
    @Test func onlyTheSkinPulses() throws {
        let (w, h) = (48, 32)
        var rgb = [UInt8](repeating: 128, count: w * h * 3)
        for y in 8..<24 { for x in 8..<24 { rgb[3 * (y * w + x)] = 190; rgb[3 * (y * w + x) + 1] = 130; rgb[3 * (y * w + x) + 2] = 110 } }
        var configuration = FaceVideoSimulator.Configuration()
        configuration.bpm = 90
        configuration.seconds = 24
        configuration.frameRate = 15
        configuration.swayPixels = 0
        let simulator = try FaceVideoSimulator(rgb: rgb, width: w, height: h, configuration: configuration)
        #expect(simulator.skinPixels == 16 * 16)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-face-\(UUID().uuidString).y4m").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try simulator.writeY4M(to: path)
        func rate(_ region: FrameRegion) throws -> Double? {
            let means = try VideoColorMeans(path: path, sampler: try FrameSampler(region: region))
            #expect(means.samples.count == 360)
            let recording = try SkinRecording(source: path, regions: ["r"], colors: [means.samples])
            return try recording.analyse().heartRate
        }
        #expect(abs(try #require(try rate(.pixels(x: 10, y: 10, width: 12, height: 12))) - 90) < 1)
        #expect(try rate(.pixels(x: 28, y: 4, width: 16, height: 24)) == nil)
        #expect(throws: InputError.self) { try FaceVideoSimulator(rgb: [UInt8](repeating: 128, count: w * h * 3), width: w, height: h) }
        #expect(throws: InputError.self) { try FaceVideoSimulator(rgb: rgb, width: w, height: h + 1) }
        // Found by fuzzing: a region off the picture trapped (an empty range, an overflow).
        for region in [(400, 400, 10, 10), (-500, 0, 10, 10), (Int.max, 0, 10, 10)] {
            var off = FaceVideoSimulator.Configuration()
            off.skinRegion = region
            #expect(throws: InputError.self) { try FaceVideoSimulator(rgb: rgb, width: w, height: h, configuration: off) }
        }
        var wide = FaceVideoSimulator.Configuration()
        wide.skinRegion = (1, 1, Int.max, 100)
        #expect(try FaceVideoSimulator(rgb: rgb, width: w, height: h, configuration: wide).skinPixels == 16 * 16)
    }
}
