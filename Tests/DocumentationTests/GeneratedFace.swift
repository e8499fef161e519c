import Foundation
import Vitals

/// `seconds` of 30-fps BGRA frames of a 64x64 picture whose middle is skin that reddens with a pulse
/// at `bpm` (0.6 % of its colour, in the blood's proportions) under seeded noise; `body` gets each
/// frame while its pixels are valid. The face there, as a detector would report it, is `face`.
func forEachPulsingFaceFrame(seconds: Double, bpm: Double, _ body: (Frame) throws -> Void) throws {
    let width = 64, height = 64
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    var random = SplitMix64(seed: 7)  // seeded: the same noise every run
    for i in 0..<Int(30 * seconds) {
        let t = Double(i) / 30
        let beat = 1 + 0.006 * sin(2 * Double.pi * bpm / 60 * t)
        for y in 0..<height {
            for x in 0..<width {
                let skin = x >= 12 && x < 52 && y >= 8 && y < 56
                let (r, g, b) = skin ? (200 / beat, 150 / (beat * beat), 120 / beat) : (60.0, 60.0, 60.0)
                let noise = Double.random(in: -1...1, using: &random)
                let o = 4 * (y * width + x)
                pixels[o] = UInt8(max(0, min(255, (b + noise).rounded())))
                pixels[o + 1] = UInt8(max(0, min(255, (g + noise).rounded())))
                pixels[o + 2] = UInt8(max(0, min(255, (r + noise).rounded())))
                pixels[o + 3] = 255
            }
        }
        try pixels.withUnsafeBytes { raw in
            try body(try Frame(bgra: raw.baseAddress!, width: width, height: height, bytesPerRow: 4 * width, time: t))
        }
    }
}

/// Where the generated picture's face is, as a detector reports it.
let generatedFace = FaceObservation(boundingBox: NormalizedRect(x: 0.25, y: 0.2, width: 0.5, height: 0.6), confidence: 0.9)
