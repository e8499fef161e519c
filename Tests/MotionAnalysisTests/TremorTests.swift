import Foundation
import MotionAnalysis
import SignalProcessing
import Testing

/// A wrist at rest (gravity along -z) at `rate` Hz with accelerometer noise, plus what `extra` adds (g).
private func restingWrist(seconds: Double, rate: Double = 50, noise: Double = 0.003, seed: UInt64 = 1,
                          extra: (Double) -> Vector3 = { _ in .zero }) -> [(time: Double, acceleration: Vector3)] {
    var rng = SplitMix64(seed: seed)
    func gauss() -> Double {
        let u = max(Double(rng.next() >> 11) / Double(1 << 53), 1e-300), v = Double(rng.next() >> 11) / Double(1 << 53)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
    return (0..<Int(seconds * rate)).map { i in
        let t = Double(i) / rate
        let a = Vector3(x: noise * gauss(), y: noise * gauss(), z: -1 + noise * gauss()) + extra(t)
        return (t, a)
    }
}

/// The acceleration amplitude (g) of a sinusoidal displacement of `peakToPeakCm` at `frequency` Hz.
private func amplitude(peakToPeakCm: Double, frequency: Double) -> Double {
    peakToPeakCm / 100 / 2 * pow(2 * .pi * frequency, 2) / 9.80665
}

private func judge(_ samples: [(time: Double, acceleration: Vector3)], rate: Double = 50) throws -> [TremorDetector.Second] {
    var detector = try TremorDetector(sampleRate: rate)
    var out: [TremorDetector.Second] = []
    for s in samples { out += detector.process(time: s.time, acceleration: s.acceleration) }
    return out + detector.finish()
}

/// The share of seconds after the first window with `severity`.
private func share(_ seconds: [TremorDetector.Second], _ severity: TremorDetector.Severity) -> Double {
    let judged = seconds.filter { $0.start >= 4 }
    return Double(judged.filter { $0.severity == severity }.count) / Double(max(judged.count, 1))
}

@Suite struct TremorDetectorTests {
    @Test func aStillWristHasNoTremor() throws {
        let seconds = try judge(restingWrist(seconds: 120))
        #expect(seconds.count == 120)
        #expect(share(seconds, .none) == 1, "\(seconds.filter { $0.severity != .none }.map { ($0.start, $0.severity, $0.movementRMS, $0.tremorRMS) })")
        // The first seconds, before a window has filled, are unknown.
        #expect(seconds.prefix(3).allSatisfy { $0.severity == .unknown })
    }

    /// Tremors of each grade's amplitude are found, at their frequency, and graded: slight at 4-10 Hz,
    /// the larger grades at 4-7 Hz (a tremor of centimetres at 10 Hz would be 4-28 g, beyond a
    /// wrist and most accelerometers).
    @Test(arguments: [(0.4, TremorDetector.Severity.slight), (2, .mild), (6, .moderate), (14, .strong)])
    func aRegularTremorIsFoundAndGraded(peakToPeakCm: Double, expected: TremorDetector.Severity) throws {
        for frequency in expected == .slight ? [4.0, 5.5, 7, 10] : [4.0, 5.5, 7] {
            let a = amplitude(peakToPeakCm: peakToPeakCm, frequency: frequency)
            let seconds = try judge(restingWrist(seconds: 60) { t in
                Vector3(x: a * sin(2 * .pi * frequency * t), y: 0.3 * a * sin(2 * .pi * frequency * t + 1), z: 0)
            })
            #expect(share(seconds, expected) >= 0.95, "\(peakToPeakCm) cm at \(frequency) Hz: \(seconds.filter { $0.severity != expected }.map { ($0.start, $0.severity) })")
            let found = seconds.compactMap(\.frequency)
            #expect(!found.isEmpty && found.allSatisfy { abs($0 - frequency) < 0.2 }, "\(frequency) Hz: \(found.prefix(3))")
            let cm = seconds.compactMap(\.amplitudeCentimetres)
            // The y axis adds sqrt(1 + 0.09) to the vector RMS; the band-pass's gain is 1 in the band.
            #expect(!cm.isEmpty && cm.allSatisfy { abs($0 / (peakToPeakCm * 1.09.squareRoot()) - 1) < 0.1 }, "\(frequency) Hz: \(cm.map { $0 / (peakToPeakCm * 1.09.squareRoot()) }.sorted().prefix(2)) \(cm.map { $0 / (peakToPeakCm * 1.09.squareRoot()) }.sorted().suffix(2))")
        }
    }

    /// Noise filling the tremor band with the power of a clear tremor is not one: it is irregular.
    @Test func bandLimitedNoiseIsNotATremor() throws {
        var filter = Butterworth.bandPass(order: 2, low: 4, high: 10, sampleRate: 50)
        var rng = SplitMix64(seed: 7)
        let shaped = (0..<3000).map { _ in filter.process(Double(rng.next() >> 11) / Double(1 << 53) - 0.5) }
        let scale = 0.05 / (shaped.reduce(0) { $0 + $1 * $1 } / Double(shaped.count)).squareRoot()
        let seconds = try judge(restingWrist(seconds: 60) { t in Vector3(x: scale * shaped[min(Int(t * 50), 2999)], y: 0, z: 0) })
        #expect(seconds.filter { $0.start >= 4 }.allSatisfy { $0.tremorRMS > 0.03 })
        #expect(share(seconds, .none) >= 0.9, "\(seconds.map(\.regularity))")
    }

    /// Walking (a 1.8-Hz swing with harmonics reaching the tremor band) and waving the arm are
    /// movement: unknown, never a tremor.
    @Test func movementIsUnknownNotTremor() throws {
        let walk = try judge(restingWrist(seconds: 60) { t in
            let w = 2 * .pi * 1.8 * t
            return Vector3(x: 0.3 * sin(w) + 0.12 * sin(2 * w + 0.4) + 0.06 * sin(3 * w), y: 0.15 * cos(w), z: 0.1 * sin(2 * w))
        })
        #expect(share(walk, .unknown) >= 0.95)
        let wave = try judge(restingWrist(seconds: 60) { t in Vector3(x: 0.2 * sin(2 * .pi * 0.8 * t), y: 0, z: 0) })
        #expect(share(wave, .unknown) >= 0.95)
        #expect(!(walk + wave).contains { $0.frequency != nil })
    }

    /// A strong tremor's own leak into the movement band does not make it "moving".
    @Test func aStrongTremorIsNotTakenForMovement() throws {
        let a = amplitude(peakToPeakCm: 12, frequency: 4)
        let seconds = try judge(restingWrist(seconds: 30) { t in Vector3(x: a * sin(2 * .pi * 4 * t), y: 0, z: 0) })
        #expect(share(seconds, .strong) >= 0.95)
        #expect(seconds.filter { $0.start >= 4 }.allSatisfy { $0.movementRMS > 0.04 })
    }

    /// A tremor that starts and stops, with a gap in the log: minutes give the shares of their
    /// judged seconds; the gap is not judged and the window fills again after it.
    @Test func minutesAndGaps() throws {
        let a = amplitude(peakToPeakCm: 2, frequency: 5)
        var samples = restingWrist(seconds: 180) { t in
            (60..<120).contains(t) ? Vector3(x: a * sin(2 * .pi * 5 * t), y: 0, z: 0) : .zero
        }
        samples.removeAll { (150..<160).contains($0.time) }
        let seconds = try judge(samples)
        #expect(!seconds.contains { $0.start >= 150 && $0.start < 159 })
        #expect(seconds.filter { $0.start >= 160 && $0.start < 163 }.allSatisfy { $0.severity == .unknown })
        let minutes = TremorDetector.minutes(seconds)
        #expect(minutes.count == 3)
        #expect(minutes.allSatisfy { abs($0.percentUnknown + $0.percentNone + $0.percentSlight + $0.percentMild + $0.percentModerate + $0.percentStrong - 1) < 1e-12 })
        #expect(minutes[1].percentMild >= 0.9 && minutes[0].percentNone >= 0.9)
        #expect(minutes[2].judgedSeconds < 60 && minutes[2].percentNone >= 0.8)
        let episodes = TremorDetector.episodes(seconds)
        #expect(episodes.count == 1)
        #expect(abs(episodes[0].start - 60) <= 4 && abs(episodes[0].end - 120) <= 4 && episodes[0].severity == .mild)
        #expect(abs(episodes[0].frequency - 5) < 0.1 && abs(episodes[0].amplitudeCentimetres - 2) < 0.2)
    }

    @Test func streamingEqualsBatchAndBadInputIsRefused() throws {
        let a = amplitude(peakToPeakCm: 1.5, frequency: 6)
        let samples = restingWrist(seconds: 40) { t in Vector3(x: a * sin(2 * .pi * 6 * t), y: 0, z: 0) }
        let motion = samples.map {
            DeviceMotion(time: $0.time, attitude: .identity, gravity: Vector3(x: 0, y: 0, z: -1), rotationRate: .zero,
                         userAcceleration: $0.acceleration - Vector3(x: 0, y: 0, z: -1))
        }
        var batch = try TremorDetector(sampleRate: 50)
        let all = batch.process(motion)
        #expect(all.count == 40)
        let one = try judge(samples)
        #expect(zip(all, one).allSatisfy { $0.severity == $1.severity && abs(($0.frequency ?? 0) - ($1.frequency ?? 0)) < 1e-9 })
        // Repeated or earlier times are skipped, not judged.
        var d = try TremorDetector(sampleRate: 50)
        _ = d.process(time: 1, acceleration: Vector3(x: 0, y: 0, z: -1))
        #expect(d.process(time: 1, acceleration: Vector3(x: 9, y: 0, z: -1)).isEmpty && d.process(time: .nan, acceleration: .zero).isEmpty)
        #expect(throws: TremorDetector.InvalidParameters.self) { try TremorDetector(sampleRate: 20) }
        #expect(throws: TremorDetector.InvalidParameters.self) { try TremorDetector(sampleRate: .nan) }
        var p = TremorDetector.Parameters()
        p.windowSeconds = 0.5
        #expect(throws: TremorDetector.InvalidParameters.self) { try TremorDetector(sampleRate: 50, parameters: p) }
    }

    /// A time of 2^52 s or more (epoch nanoseconds taken for seconds, say) is skipped: there a second
    /// added to a time can leave it unchanged, and closing seconds one by one never ended.
    @Test func timesTooLargeToCountSecondsInAreSkipped() throws {
        for time in [1.7e18, 1e300, -1e300, TremorDetector.maximumTime, -TremorDetector.maximumTime] {
            var d = try TremorDetector(sampleRate: 50)
            #expect(d.process(time: time, acceleration: Vector3(x: 0, y: 0, z: -1)).isEmpty)
            #expect(d.process(time: time * (1 + 1e-12), acceleration: Vector3(x: 0, y: 0, z: -1)).isEmpty)
            #expect(d.finish().isEmpty)
        }
        // Just inside the range (where times are half-second steps) the seconds are counted.
        var d = try TremorDetector(sampleRate: 50)
        let start = TremorDetector.maximumTime - 100
        var seconds: [TremorDetector.Second] = []
        for i in 0..<20 { seconds += d.process(time: start + Double(i) / 2, acceleration: Vector3(x: 0, y: 0, z: -1)) }
        seconds += d.finish()
        #expect(seconds.map(\.start) == (0..<10).map { start + Double($0) })
    }

    /// A gap longer than the window would have its seconds closed one by one (a 1e12-s gap never
    /// ended): the maximum gap is at most the window.
    @Test func aMaximumGapLongerThanTheWindowIsRefused() throws {
        for gap in [4.5, 1e12, .infinity, .nan, 0] {
            var p = TremorDetector.Parameters()
            p.maximumGap = gap
            #expect(throws: TremorDetector.InvalidParameters.self) { try TremorDetector(sampleRate: 50, parameters: p) }
        }
        var p = TremorDetector.Parameters()
        p.maximumGap = p.windowSeconds
        #expect(throws: Never.self) { try TremorDetector(sampleRate: 50, parameters: p) }
    }

    /// Minutes are numbered from `origin`; a second whose minute is past `Int.max` (an origin far
    /// before the recording, a decoded start that is not a number) is left out instead of trapping.
    @Test func minutesLeaveOutSecondsTheyCannotNumber() throws {
        let seconds = try judge(restingWrist(seconds: 70))
        #expect(TremorDetector.minutes(seconds, origin: -1e300).isEmpty)
        #expect(TremorDetector.minutes(seconds, origin: .nan).isEmpty)
        var odd = seconds
        odd[3].start = .infinity
        odd[4].start = -.nan
        let minutes = TremorDetector.minutes(odd)
        #expect(minutes.count == 2 && minutes.map(\.judgedSeconds).reduce(0, +) == Double(seconds.count - 2))
    }
}
