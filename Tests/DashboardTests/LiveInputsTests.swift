import Dashboard
import PulseDetection
import Testing

private let recording: [PulseInput] = (0..<10).map { .ppg(time: Double($0) * 0.1, value: Double($0)) }

private func drain(_ inputs: LiveInputs) -> [PulseInput] {
    var inputs = inputs
    var out: [PulseInput] = []
    while let i = inputs.next() { out.append(i) }
    return out
}

@Suite struct LiveInputsTests {
    @Test func aRecordingPlaysOnce() {
        #expect(drain(LiveInputs(recording: recording, period: 1, loop: false)) == recording)
    }

    @Test func aLoopedRecordingKeepsItsClockGoing() {
        let out = drain(LiveInputs(recording: recording, period: 1, loop: true, limit: 2.5))
        #expect(out.count == 25)
        #expect(out[10] == .ppg(time: 1, value: 0))
        #expect(out[24] == .ppg(time: 2.4, value: 4))
        #expect(zip(out, out.dropFirst()).allSatisfy { $0.time < $1.time })
    }

    @Test func aLimitCountsFromTheFirstInput() {
        let later = recording.map { PulseInput.ppg(time: $0.time + 100, value: 0) }
        #expect(drain(LiveInputs(recording: later, period: 1, loop: false, limit: 0.45)).count == 5)
    }

    @Test func loopingNothingEnds() {
        #expect(drain(LiveInputs(recording: [], period: 0, loop: true)).isEmpty)
    }

    @Test func theSimulatedFingerRunsUntilItsLimit() {
        let out = drain(LiveInputs(simulated: .ideal, limit: 2))
        #expect(out.count >= 55 && out.count <= 60)   // 30 fps, a few frames dropped
        #expect(out.allSatisfy { if case .color = $0 { $0.time < 2 } else { false } })
    }
}

@Suite struct ReplayPacerTests {
    @Test func inputsAreDueAtTheirTimeOverTheSpeed() {
        var pacer = ReplayPacer(speed: 2)
        #expect(pacer.delay(until: 10, now: 100) == 0)        // the first input anchors the schedule
        #expect(pacer.delay(until: 11, now: 100) == 0.5)
        #expect(abs(pacer.delay(until: 11, now: 100.3) - 0.2) < 1e-9)
        #expect(pacer.delay(until: 11, now: 100.6) == 0)      // late by less than the lag allowed: at once
    }

    /// An input time that is not a number is due at once (the pipeline skips it) and does not move
    /// the schedule: an infinite time asked for an infinite wait.
    @Test func anInputTimeThatIsNotANumberIsDueAtOnce() {
        var pacer = ReplayPacer(speed: 1)
        #expect(pacer.delay(until: .nan, now: 0) == 0)         // does not anchor the schedule
        #expect(pacer.delay(until: 10, now: 100) == 0)
        for bad in [Double.infinity, -.infinity, .nan] { #expect(pacer.delay(until: bad, now: 100) == 0) }
        #expect(pacer.delay(until: 11, now: 100) == 1)
        #expect(pacer.delay(until: 12, now: .infinity) == 0)
        #expect(pacer.delay(until: 12, now: 100) == 2)
    }

    @Test func aFeederFarBehindStartsAgainInsteadOfBursting() {
        var pacer = ReplayPacer(speed: 1)
        _ = pacer.delay(until: 0, now: 0)
        #expect(pacer.delay(until: 1, now: 5) == 0)           // 4 s late: re-anchored here
        #expect(pacer.delay(until: 2, now: 5) == 1)           // due a second after the late input
    }
}
