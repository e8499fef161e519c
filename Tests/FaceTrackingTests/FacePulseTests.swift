import Foundation
import PulseDetection
import SignalProcessing
import Testing
@testable import FaceTracking

/// A 64x64 BGRA picture: grey, with a 32x32 square of skin colour whose colour pulses at `bpm` (0.4 %
/// in green, in the blood's proportions) under a 3 % brightness flicker at 1.5 Hz, and noise of 2
/// levels per pixel. The "detector" reports the square as the face.
private struct PulsingSquare {
    var bpm = 84.0
    var rate = 30.0
    var rng = SplitMix64(seed: 3)
    let face = NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)

    mutating func pixels(frame n: Int) -> [UInt8] {
        let t = Double(n) / rate
        let pulse = 0.004 * sin(2 * Double.pi * bpm / 60 * t)
        let light = 1 + 0.03 * sin(2 * Double.pi * 1.5 * t)
        var bytes = [UInt8](repeating: 0, count: 64 * 64 * 4)
        for y in 0..<64 {
            for x in 0..<64 {
                let skin = (16..<48).contains(x) && (16..<48).contains(y)
                let base = skin ? SIMD3<Double>(190, 130, 110) * (1 + pulse * SIMD3(0.33, 0.77, 0.53) / 0.77) : SIMD3(128, 128, 128)
                let c = base * light + 2 * SIMD3(rng.gaussian(), rng.gaussian(), rng.gaussian())
                let i = 4 * (y * 64 + x)
                bytes[i] = UInt8(max(0, min(255, c.z.rounded())))
                bytes[i + 1] = UInt8(max(0, min(255, c.y.rounded())))
                bytes[i + 2] = UInt8(max(0, min(255, c.x.rounded())))
                bytes[i + 3] = 255
            }
        }
        return bytes
    }
}

@Suite struct FacePulseTests {
    /// Faces reported 6 times a second for 24 s, then none: the face is found at its third
    /// detection, the rate follows the pulse, and the face is lost after the tracker's coasting time.
    @Test func findsTheFaceReadsItsPulseAndLosesIt() throws {
        var scene = PulsingSquare()
        var pulse = try FacePulse(frameRate: 30)
        var events: [FacePulse.Event] = []
        for n in 0..<(30 * 26) {
            let t = Double(n) / 30
            let bytes = scene.pixels(frame: n)
            let frame = try bytes.withUnsafeBytes { try Frame(bgra: $0.baseAddress!, width: 64, height: 64, bytesPerRow: 256, time: t) }
            let detect = n % 5 == 0
            let faces: [FaceObservation]? = detect ? (t < 24 ? [FaceObservation(boundingBox: scene.face, confidence: 1)] : []) : nil
            events += pulse.process(frame, faces: faces)
        }
        events += pulse.finish()
        let found = events.compactMap { if case let .faceFound(id, time) = $0 { return (id, time) } else { return nil } }
        let lost = events.compactMap { if case let .faceLost(id, time) = $0 { return (id, time) } else { return nil } }
        #expect(found.map(\.0) == [1] && abs((found.first?.1 ?? -1) - 10.0 / 30) < 1e-9)  // the third detection, frame 10
        #expect(lost.map(\.0) == [1] && (lost.first?.1 ?? 0) > 24)
        let rates = events.compactMap { if case let .rate(bpm, _, _) = $0 { return bpm } else { return nil } }
        #expect(rates.count >= 5)
        #expect(rates.allSatisfy { abs($0 - 84) < 1.5 }, "\(rates)")
        // No rate once the face is gone (found by review: the old windows kept passing for 18 s).
        let rateTimes = events.compactMap { if case let .rate(_, _, time) = $0 { return time } else { return nil } }
        #expect(rateTimes.allSatisfy { $0 <= lost.first?.1 ?? 0 })
        #expect(pulse.windowsCounted.allSatisfy { $0 > 0 })
        // The frames before the face was found and after it was lost have no colour.
        #expect(pulse.rejectedFrames.allSatisfy { $0 >= 10 })
    }

    @Test func settingsThatCannotWorkAreRefused() {
        var settings = FacePulse.Settings()
        settings.recentWindows = 1  // a rate takes two answered windows
        #expect(throws: (any Error).self) { try FacePulse(frameRate: 30, settings: settings) }
        #expect(throws: (any Error).self) { try FacePulse(frameRate: 0) }
    }
}
