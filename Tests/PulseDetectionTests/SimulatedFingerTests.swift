import Testing
import SignalProcessing
@testable import PulseDetection

@Suite struct SimulatedFingerTests {
    private func colors(_ settings: SimulatedFinger.Settings, seconds: Double) -> [ColorSample] {
        var finger = SimulatedFinger(settings: settings)
        return finger.inputs(duration: seconds).compactMap { if case .color(let c) = $0 { c } else { nil } }
    }

    @Test func theSameSeedGivesTheSameFramesAndADifferentSeedDoesNot() {
        var a = SimulatedFinger.Settings()
        a.seed = 7
        var b = a
        b.seed = 8
        var f1 = SimulatedFinger(settings: a), f2 = SimulatedFinger(settings: a), f3 = SimulatedFinger(settings: b)
        let x = f1.inputs(duration: 10), y = f2.inputs(duration: 10), z = f3.inputs(duration: 10)
        #expect(x == y)
        #expect(x != z)
    }

    @Test func aTorchLitFingertipIsSaturatedRedWithLowGreenAndBlue() {
        let frames = colors(SimulatedFinger.Settings(), seconds: 30)
        #expect(frames.allSatisfy { $0.red <= 255 && $0.red >= 240 })
        #expect(frames.allSatisfy { $0.green < 60 && $0.blue < 40 })
        // Red sits near clipping, so its pulse is compressed: its relative swing is well below green's.
        let red = frames.map(\.red), green = frames.map(\.green)
        let redSwing = (Statistics.percentile(red, 95) - Statistics.percentile(red, 5)) / Statistics.mean(red)
        let greenSwing = (Statistics.percentile(green, 95) - Statistics.percentile(green, 5)) / Statistics.mean(green)
        #expect(redSwing < greenSwing / 3)
        // The hue carries the pulse too.
        let hue = frames.map(\.hue)
        #expect(Statistics.standardDeviation(hue) > 0.05)
    }

    @Test func timestampsJitterWithinThreeMillisecondsAndAlwaysIncrease() {
        let settings = SimulatedFinger.Settings()  // ±3 ms
        var finger = SimulatedFinger(settings: settings)
        let times = finger.inputs(duration: 60).map(\.time)
        var largest = 0.0
        for t in times {
            let nominal = (t - 0.003) * 30  // frame k at k/30 + 3 ms + jitter
            largest = max(largest, abs(nominal - nominal.rounded()) / 30)
        }
        #expect(largest <= 0.003 + 1e-12)
        #expect(largest > 0.002)  // the jitter is really there
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func aboutTwoPercentOfFramesAreDropped() {
        var finger = SimulatedFinger(settings: SimulatedFinger.Settings())
        let delivered = finger.inputs(duration: 300).count
        let dropped = 1 - Double(delivered) / 9000
        // Binomial(9000, 0.02): standard deviation 0.0015; four of them either side.
        #expect(abs(dropped - 0.02) < 0.006)
    }

    @Test func beatIntervalsHaveTheRequestedRateAndVariability() {
        var s = SimulatedFinger.Settings()
        s.bpm = 66
        s.intervalVariability = 0.03
        let beats = SimulatedFinger.beats(settings: s, until: 600)
        let intervals = zip(beats, beats.dropFirst()).map { $1.onset - $0.onset }
        #expect(abs(Statistics.mean(intervals) - 60 / 66) < 0.005)
        // Independent Gaussian variation of SD s gives successive differences of SD s·√2.
        let diffs = zip(intervals, intervals.dropFirst()).map { $1 - $0 }
        let rmssd = (diffs.map { $0 * $0 }.reduce(0, +) / Double(diffs.count)).squareRoot()
        #expect(abs(rmssd / (0.03 * 2.0.squareRoot()) - 1) < 0.1)
        #expect(abs(SimulatedFinger.meanRate(settings: s, until: 600) - 66) < 0.5)
    }

    @Test func theGreenChannelPulsesAtTheHeartRate() {
        var s = SimulatedFinger.Settings.ideal
        s.bpm = 84
        let green = colors(s, seconds: 40).map(\.green)
        let spectrum = Spectrum.periodogram(green, sampleRate: 30, window: .hann)
        let band = spectrum.frequencies.indices.filter { spectrum.frequencies[$0] > 0.5 && spectrum.frequencies[$0] < 4 }
        let peak = band.max { spectrum.power[$0] < spectrum.power[$1] }!
        #expect(abs(spectrum.frequencies[peak] * 60 - 84) < 1.6)  // one bin is 1.5 bpm
    }

    @Test func eachSystolicPeakIsFollowedByASmallerDicroticWave() {
        var s = SimulatedFinger.Settings.ideal
        s.output = .ppg
        s.noise = 0
        s.bpm = 60
        s.frameRate = 200
        var finger = SimulatedFinger(settings: s)
        let inputs = finger.inputs(duration: 10)
        let values = inputs.map { input -> Double in if case .ppg(_, let v) = input { v } else { .nan } }
        let peaks = Peaks.find(values, minDistance: 20, minProminence: 0.05, minHeight: nil)
        let beats = SimulatedFinger.beats(settings: s, until: 10).filter { $0.onset > 0.5 && $0.onset < 9 }
        #expect(beats.count >= 8)  // 60 bpm: a beat a second
        for beat in beats {
            let near = peaks.filter { abs(inputs[$0.index].time - beat.peak) < 0.02 }
            #expect(near.count == 1, "systolic peak at \(beat.peak)")
            // The dicrotic wave: a local maximum 0.15-0.4 s after the systolic peak, lower than it.
            let dicrotic = peaks.filter {
                let dt = inputs[$0.index].time - beat.peak
                return dt > 0.15 && dt < 0.4
            }
            #expect(dicrotic.count == 1, "dicrotic wave after \(beat.peak)")
            if let d = dicrotic.first, let p = near.first { #expect(d.value < 0.8 * p.value) }
        }
    }

    @Test func duringALiftOffTheCameraSeesTheRoomNotARedFingertip() {
        var s = SimulatedFinger.Settings()
        s.liftOffs = [10..<15]
        let frames = colors(s, seconds: 20)
        let off = frames.filter { $0.time >= 10 && $0.time < 15 }
        let on = frames.filter { $0.time < 10 || $0.time >= 15 }
        let detector = ContactDetector()
        #expect(!off.isEmpty && off.allSatisfy { !detector.frameLooksCovered($0, previousRed: nil) })
        #expect(on.allSatisfy { detector.frameLooksCovered($0, previousRed: nil) })
    }

    @Test func thePPGOutputRisesWithBloodVolume() {
        var s = SimulatedFinger.Settings.ideal
        s.output = .ppg
        s.frameRate = 100
        var finger = SimulatedFinger(settings: s)
        let inputs = finger.inputs(duration: 20)
        let beats = SimulatedFinger.beats(settings: s, until: 19).filter { $0.onset > 1 }
        #expect(beats.count >= 15)
        for beat in beats {
            let atPeak = inputs.min { abs($0.time - beat.peak) < abs($1.time - beat.peak) }!
            let atFoot = inputs.min { abs($0.time - beat.onset) < abs($1.time - beat.onset) }!
            guard case .ppg(_, let high) = atPeak, case .ppg(_, let low) = atFoot else {
                Issue.record("expected PPG inputs, got \(atPeak), \(atFoot)")
                return
            }
            #expect(high > low + 0.5)
        }
    }
}

/// Settings the generator cannot work with stop it with a message naming them: every frame dropped,
/// a negative or NaN rate and NaN jitter looped for ever, infinite rates trapped converting to Int.
/// Values reach the exit test's process as text: JSON has no NaN or infinity.
@Suite struct SimulatedFingerPreconditionTests {
    @Test(arguments: [("bpm", "-1"), ("bpm", "1e300"), ("bpm", "nan"), ("frameRate", "-1"), ("frameRate", "inf"), ("frameRate", "1e-300"),
                      ("dropRate", "1"), ("timestampJitter", "nan")])
    func aSettingOutsideItsRangeIsNamed(name: String, value: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [name, value] in
            var s = SimulatedFinger.Settings()
            let v = Double(value)!
            switch name {
            case "bpm": s.bpm = v
            case "frameRate": s.frameRate = v
            case "dropRate": s.dropRate = v
            default: s.timestampJitter = v
            }
            var finger = SimulatedFinger(settings: s)
            _ = finger.inputs(duration: 1)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("SimulatedFinger: \(name) must be") == true)
    }

    @Test(arguments: ["nan", "inf", "-inf"])
    func aDurationThatIsNotANumberIsNamed(duration: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [duration] in
            var finger = SimulatedFinger(settings: .ideal)
            _ = finger.inputs(duration: Double(duration)!)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("SimulatedFinger.inputs: the duration must be") == true)
    }

    @Test func aNegativeDurationGivesNoFrames() {
        var finger = SimulatedFinger(settings: .ideal)
        #expect(finger.inputs(duration: -1e300).isEmpty)
    }
}
