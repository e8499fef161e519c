import Foundation
import PulseDetection
import SignalProcessing
import Testing

@testable import VitalsIO

/// A generated fingertip clip (Y4M, full-range BT.601, 64 x 64, 30 fps) in which only the two
/// left-most tile columns (of 8) carry a 72-bpm pulse with sensor noise; everywhere else the red
/// channel is clipped (Cr at full scale) and the picture does not change. With `stepEvery`, every
/// pixel's luma also jumps by 3 at every `stepEvery`-th frame and decays linearly until the next
/// jump, as a video encoder's keyframes do to a dark, flat picture.
func tiledClip(seconds: Double = 20, stepEvery: Int? = nil, seed: UInt64 = 5) throws -> String {
    let (w, h, fps) = (64, 64, 30)
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("tiled-\(UUID().uuidString).y4m").path
    let writer = try Y4MWriter(
        path: path, header: Y4MHeader(width: w, height: h, frameRateNumerator: fps, range: .full))
    var rng = SplitMix64(seed: seed)
    let cw = w / 2, ch = h / 2
    var planes = [UInt8](repeating: 0, count: w * h + 2 * cw * ch)
    for k in 0..<Int(seconds * Double(fps)) {
        let t = Double(k) / Double(fps)
        let pulse = sin(2 * Double.pi * 1.2 * t) + 0.4 * sin(4 * Double.pi * 1.2 * t + 0.8)
        let step = stepEvery.map { 3 * (1 - Double(k % $0) / Double($0)) } ?? 0
        for y in 0..<h {
            for x in 0..<w {
                let live = x < w / 4
                let noise = Double(rng.next() % 1000) / 1000 * 2 - 1
                let v = live ? 120 + 6 * pulse + 2 * noise + step : 150 + step
                planes[y * w + x] = UInt8(max(0, min(255, v.rounded())))
            }
        }
        for y in 0..<ch {
            for x in 0..<cw {
                planes[w * h + y * cw + x] = 128  // Cb
                planes[w * h + cw * ch + y * cw + x] = x < cw / 4 ? 200 : 255  // Cr: red clipped outside
            }
        }
        try planes.withUnsafeBytes { try writer.write(planes: $0) }
    }
    try writer.close()
    return path
}

@Suite struct TiledVideoTests {
    @Test func tileStatisticsFindTheClippedTilesAndTheSpectrumShowsThePulseOfTheOthers() throws {
        let path = try tiledClip()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let means = try VideoColorMeans(path: path, tiles: try TileGrid(columns: 8, rows: 8))
        let tiles = try #require(means.tileStatistics)
        #expect(tiles.frames == 600)
        #expect(tiles.changes.count == 599)
        #expect(abs(tiles.clippedTileFraction - 0.75) < 1e-12)
        let recording = try PulseRecording.colors(means.samples, source: path)
        let analysis = try recording.analyse()
        let evidence = VideoPulseEvidence(video: means, analysis: analysis)
        #expect(evidence.frameStep == nil)
        let top = try #require(evidence.peaks.first)
        #expect(abs(top.bpm - 72) < 2)
        #expect(top.relativePower == 1)
        #expect(evidence.note.contains("red clipped in 75% of tiles"))
        #expect(abs((analysis.heartRate?.bpm ?? 0) - 72) < 3)
    }

    @Test func aStepEveryThirtyFramesIsFoundWithItsPeriodAndFrequency() throws {
        let path = try tiledClip(seconds: 12, stepEvery: 30)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let means = try VideoColorMeans(path: path, tiles: try TileGrid(columns: 8, rows: 8))
        let changes = try #require(means.tileStatistics).changes
        let step = try #require(FrameStep.detect(changes: changes, frameRate: 30))
        #expect(step.period == 30)
        #expect(abs((step.frequency ?? 0) - 1) < 1e-12)
        #expect(step.strength >= FrameStep.minimumStrength)
        // Frame 30k is the jump: change index 30k - 1.
        #expect(step.phase == 29)
    }

    @Test func noStepIsReportedInNoiseOrInTooShortARecord() {
        var rng = SplitMix64(seed: 9)
        let noise = (0..<900).map { _ in Double(rng.next() % 1000) / 1000 + 0.5 }
        #expect(FrameStep.detect(changes: noise, frameRate: 30) == nil)
        #expect(FrameStep.detect(changes: [1, 2, 3], frameRate: 30) == nil)
    }
}
