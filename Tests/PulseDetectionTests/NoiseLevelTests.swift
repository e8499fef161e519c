import Foundation
import Testing
import SignalProcessing
@testable import PulseDetection

@Suite struct NoiseLevelTests {
    /// `seconds` of a 72-bpm pulse-like wave (amplitude `amplitude`, with its second harmonic) at
    /// 30 Hz plus white Gaussian noise of standard deviation `sigma`.
    static func level(amplitude: Double, sigma: Double, seconds: Double = 30, spikeAt: Int? = nil) -> Double {
        var rng = SplitMix64(seed: 11)
        var level = NoiseLevel(samples: 300)
        for i in 0..<Int(seconds * 30) {
            let t = Double(i) / 30
            let w = 2 * Double.pi * 1.2 * t
            var x = amplitude * (sin(w) + 0.4 * sin(2 * w + 1)) + sigma * rng.gaussian()
            if i == spikeAt { x += 100 * amplitude }
            level.add(x)
        }
        return level.sigma
    }

    /// Noise from a hundredth of the pulse up (below that the pulse's own second harmonic, 4 % of it
    /// left in the fourth difference, sets the floor: see the next test).
    @Test(arguments: [0.05, 0.2, 1])
    func whiteNoiseUnderAPulseIsMeasured(sigma: Double) {
        let s = Self.level(amplitude: 5, sigma: sigma)
        #expect(abs(s / sigma - 1) < 0.15, "\(s) for \(sigma)")
    }

    @Test func aCleanPulseReadsAsLittleNoise() {
        // The wave's fourth difference keeps 0.4 % of its 1.2-Hz fundamental and 6 % of its 2.4-Hz
        // harmonic: a floor of about a four-hundredth of the pulse's amplitude.
        let floor = Self.level(amplitude: 5, sigma: 0)
        #expect(floor > 0 && floor < 5 / 300.0, "\(floor)")
    }

    /// A spike of 100 pulse amplitudes, once settled or right at the start (where the median of
    /// the first differences, not their mean, sets the level).
    @Test(arguments: [600, 3, 10, 40])
    func aSpikeMovesTheLevelLittle(at sample: Int) {
        let clean = Self.level(amplitude: 5, sigma: 0.05)
        let spiked = Self.level(amplitude: 5, sigma: 0.05, spikeAt: sample)
        #expect(spiked < 1.3 * clean, "\(spiked) vs \(clean)")
    }

    /// A channel exactly constant at first (a sensor at its ceiling) still gets a level once it moves.
    @Test func aConstantStartDoesNotStickAtZero() {
        var rng = SplitMix64(seed: 4)
        var level = NoiseLevel(samples: 300)
        for i in 0..<900 { level.add(i < 90 ? 255 : 200 + 0.05 * rng.gaussian()) }
        #expect(abs(level.sigma / 0.05 - 1) < 0.2, "\(level.sigma)")
    }
}

/// The channel beats are timed on: the one whose upstrokes stand highest above its noise.
@Suite struct BeatChannelTests {
    /// A clean simulated finger whose red and blue means carry extra sensor noise (and so its hue):
    /// only green times beats well. RMSSD of the confirmed beats against the simulator's intervals.
    @Test func beatsAreTimedOnTheQuietestChannel() {
        var settings = SimulatedFinger.Settings.ideal
        settings.bpm = 90
        settings.seed = 5
        settings.noise = 0
        settings.intervalVariability = 0.04 * 60 / 90
        var finger = SimulatedFinger(settings: settings)
        var rng = SplitMix64(seed: 9)
        let inputs = finger.inputs(duration: 120).map { input -> PulseInput in
            guard case .color(var c) = input else { return input }
            c.red += 0.3 * rng.gaussian()
            c.blue += 0.3 * rng.gaussian()
            return .color(c)
        }
        var channels: [String: Int] = [:], beatChannels: [String: Int] = [:]
        let analysis = PulseAnalysis.run(inputs, sampleRate: 30) { event in
            if case .quality(let q) = event {
                channels[q.channel, default: 0] += 1
                beatChannels[q.beatChannel, default: 0] += 1
            }
        }
        let truth = SimulatedFinger.beats(settings: settings, until: 120).filter { $0.onset > 15 && $0.onset < 115 }
        let expected = HRV.measures(intervals: zip(truth, truth.dropFirst()).map { ($1.onset - $0.onset) * 1000 }).measures.rmssd
        let measured = HRV.measures(beatTimes: analysis.beats.filter { $0.time > 15 && $0.time < 115 }.map(\.time)).measures.rmssd
        #expect(abs(measured / expected - 1) <= 0.03, "RMSSD \(measured) ms, truth \(expected) ms; rate channels \(channels)")
        #expect(beatChannels.max { $0.value < $1.value }?.key == "green", "beat channels \(beatChannels)")
    }
}

extension BeatChannelTests {
    /// Red at its ceiling for part of every beat (exactly 255: a clipped sensor), green and blue with
    /// noise. Red's upstrokes next to the flat runs are not taken, so red must not carry the beats
    /// however quiet it is between them.
    @Test(arguments: [248.0, 250.0, 252.0])
    func aClippingChannelDoesNotCarryTheBeats(redBase: Double) {
        var rng = SplitMix64(seed: 21)
        let period = 0.8
        let inputs = (0..<1800).map { i -> PulseInput in
            let t = Double(i) / 30
            let phase = t.truncatingRemainder(dividingBy: period) / period
            let p = exp(-0.5 * pow((phase - 0.25) / 0.08, 2)) + 0.4 * exp(-0.5 * pow((phase - 0.55) / 0.1, 2))
            return .color(ColorSample(time: t, red: min(255, redBase + 8 * (1 - p) + 0.02 * rng.gaussian()),
                                      green: 40 * (1 - 0.12 * p) + 0.3 * rng.gaussian(),
                                      blue: 20 * (1 - 0.05 * p) + 0.3 * rng.gaussian()))
        }
        let analysis = PulseAnalysis.run(inputs, sampleRate: 30)
        let beats = analysis.beats.filter { $0.time > 10 && $0.time < 55 }.count
        #expect(beats >= 50, "\(beats) confirmed beats of 56 between 10 and 55 s")
    }
}
