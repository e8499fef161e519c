import Foundation
import Testing
@testable import PulseDetection

/// A pulse train at 60 bpm sampled at 30 Hz (systolic and dicrotic Gaussians), fed to a BeatShape;
/// each beat is graded 3 s after its fiducial point, as the pipeline's decision lag would.
/// With `flipAt`, the waveform is appended with the other sign until then, and the shape is turned
/// over at that time (as the pipeline does when it finds hue's sign).
private func grades(spikeAt spikeBeat: Int? = nil, spikeSize: Double = 4, amplitudeScale: (Int) -> Double = { _ in 1 },
                    flipAt: Double? = nil)
    -> [(correlation: Double, amplitude: Double, isDoubtful: Bool)?] {
    let rate = 30.0, period = 1.0
    var shape = BeatShape(rate: rate)
    var flipped = false
    var out: [(correlation: Double, amplitude: Double, isDoubtful: Bool)?] = []
    var nextGrade = 0
    let beats = 30
    for n in 0..<Int(Double(beats + 4) * period * rate) {
        let t = Double(n) / rate
        var v = 0.0
        for k in 0..<beats {
            let onset = Double(k) * period + 0.3
            let a = (t - onset - 0.17) / 0.065, b = (t - onset - 0.42) / 0.09
            v += amplitudeScale(k) * (exp(-0.5 * a * a) + 0.45 * exp(-0.5 * b * b))
            if k == spikeBeat {
                let s = (t - onset - 0.1) / 0.3
                if s >= 0 && s <= 1 { v += spikeSize * 0.5 * (1 - cos(2 * Double.pi * s)) }
            }
        }
        if let flipAt, !flipped, t >= flipAt {
            shape.invert()
            flipped = true
        }
        shape.append(time: t, value: flipAt != nil && !flipped ? -v : v)
        // The fiducial (steepest upstroke) of beat k: one width before its systolic peak.
        while nextGrade < beats, t >= Double(nextGrade) * period + 0.3 + 0.105 + 3 {
            out.append(shape.grade(beatAt: Double(nextGrade) * period + 0.3 + 0.105, period: period))
            nextGrade += 1
        }
    }
    return out
}

@Test func cleanBeatsMatchTheirTemplateAndAreNotDoubtful() {
    let g = grades()
    #expect(g.prefix(BeatShape.initialBeats).allSatisfy { $0 == nil })
    let graded = g.compactMap { $0 }
    #expect(graded.count == g.count - BeatShape.initialBeats)
    #expect(graded.allSatisfy { $0.correlation > 0.999 && abs($0.amplitude - 1) < 1e-6 && !$0.isDoubtful })
}

@Test func aMotionSpikeOnABeatMakesItDoubtfulAndOnlyIt() {
    let g = grades(spikeAt: 15)
    #expect(g[15]?.isDoubtful == true)
    #expect(g.enumerated().allSatisfy { i, x in i == 15 || i == 16 || x?.isDoubtful != true })
}

@Test func aBeatTwiceAsLargeIsDoubtfulThoughItsShapeIsPerfect() {
    let g = grades(amplitudeScale: { $0 == 20 ? 2.5 : 1 })
    #expect(g[20]?.correlation ?? 0 > 0.99)
    #expect(g[20]?.isDoubtful == true)
    #expect(g[21]?.isDoubtful == false)
}

@Test func slowAmplitudeChangesFromBreathingAreNotDoubtful() {
    // ±30 % amplitude modulation at a breathing period of 4 beats.
    let g = grades(amplitudeScale: { 1 + 0.3 * sin(2 * Double.pi * Double($0) / 4) })
    #expect(g.compactMap { $0 }.count == g.count - BeatShape.initialBeats)  // every beat past the first is graded
    #expect(g.compactMap { $0 }.allSatisfy { !$0.isDoubtful })
}

@Test func aBeatOutsideTheHistoryIsNotGraded() {
    var shape = BeatShape(rate: 30)
    for n in 0..<300 { shape.append(time: Double(n) / 30, value: sin(Double(n) / 5)) }
    #expect(shape.grade(beatAt: 0.5, period: 1) == nil)  // older than the 8-s history
    #expect(shape.grade(beatAt: 9.8, period: 1) == nil)  // its window runs past the newest sample
}

/// A waveform appended with the wrong sign and then turned over grades as if it had always had the
/// right one: the same correlations, none doubtful (without `invert`, every later beat would be
/// unlike the template until it was rebuilt).
@Test func turningTheShapeOverMatchesTheRightSignFromTheStart() {
    let right = grades(), late = grades(flipAt: 12.2)
    #expect(right.count == late.count)
    #expect(right.compactMap { $0 }.count == right.count - BeatShape.initialBeats)  // the loop below compares grades
    for (a, b) in zip(right, late) {
        #expect((a == nil) == (b == nil))
        if let a, let b { #expect(abs(a.correlation - b.correlation) < 1e-12 && a.isDoubtful == b.isDoubtful) }
    }
    #expect(late.compactMap { $0 }.allSatisfy { !$0.isDoubtful })
}

/// A beat time or period that is not a finite number is not graded: an infinite beat time in a
/// history stamped with infinite times put its samples at NaN positions (a trap converting to Int).
@Test func beatsAtTimesThatAreNotNumbersAreNotGraded() {
    for stamp in [Double.infinity, -.infinity, .nan] {
        var shape = BeatShape(rate: 30)
        for n in 0..<300 { shape.append(time: stamp, value: sin(Double(n) / 5)) }
        for time in [stamp, 5, .infinity, -.infinity, .nan] {
            for period in [1, .infinity, .nan] { #expect(shape.grade(beatAt: time, period: period) == nil) }
        }
    }
    var shape = BeatShape(rate: 30)
    for n in 0..<300 { shape.append(time: Double(n) / 30, value: sin(Double(n) / 5)) }
    for (time, period) in [(Double.infinity, 1.0), (-.infinity, 1), (.nan, 1), (5, .infinity), (5, .nan)] {
        #expect(shape.grade(beatAt: time, period: period) == nil)
    }
}
