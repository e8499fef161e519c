import Dashboard
import PulseDetection
import Testing

private let session = DashboardMessage.Session(source: "test", speed: 1, contactSensing: true)

private func quality(at time: Double, index: Double) -> QualityReport {
    QualityReport(time: time, index: index, trackedBPM: 70, spectralConcentration: 0.5, channelAgreement: 1,
                  skewness: 0.2, perfusionPercent: 1, channel: "red", periodicity: 0.8, beatChannel: "red")
}

/// The state after a simulated finger's first `seconds` through the live pipeline.
private func stateAfterSimulatedFinger(seconds: Double, bpm: Double = 72) -> DashboardState {
    var settings = SimulatedFinger.Settings.ideal
    settings.bpm = bpm
    var inputs = LiveInputs(simulated: settings, limit: seconds)
    var analyzer = PulseAnalyzer(sampleRate: settings.frameRate)
    var state = DashboardState(session: session)
    while let input = inputs.next() {
        analyzer.process(input) { _ = state.process($0) }
    }
    return state
}

@Suite struct DashboardStateTests {
    @Test func aDeclinedWindowShowsNoRate() {
        var state = DashboardState(session: session)
        _ = state.process(.rate(RateEstimate(time: 6, bpm: 70, confidence: 0.8)))
        #expect(state.rate.status == .answered && state.rate.bpm == 70)
        let messages = state.process(.quality(quality(at: 7, index: 0.05)))
        #expect(state.rate == .init(time: 7, bpm: nil, confidence: 0.05, status: .declined))
        #expect(messages == [.quality(quality(at: 7, index: 0.05)), .rate(state.rate)])
    }

    @Test func aConfidentWindowWaitsForItsRateEvent() {
        var state = DashboardState(session: session)
        let messages = state.process(.quality(quality(at: 7, index: 0.6)))
        #expect(messages == [.quality(quality(at: 7, index: 0.6))])
        #expect(state.rate.status == .measuring)
    }

    @Test func liftingTheFingerClearsTheRate() {
        var state = DashboardState(session: session)
        _ = state.process(.contactFound(time: 0.3))
        _ = state.process(.rate(RateEstimate(time: 6, bpm: 70, confidence: 0.8)))
        let messages = state.process(.contactLost(time: 9))
        #expect(messages == [.contact(time: 9, on: false), .rate(.init(time: 9, bpm: nil, confidence: nil, status: .noContact))])
        #expect(state.contact?.on == false)
    }

    @Test(arguments: [(30.0, 30), (125.0, 50), (500.0, 50)])
    func theWaveformIsThinnedToFiftyPointsASecondAtMost(inputRate: Double, expected: Int) {
        var state = DashboardState(session: session)
        var sent = 0
        for k in 0..<Int(inputRate) {
            sent += state.process(.waveform(WaveformSample(time: 10 + Double(k) / inputRate, value: 0))).count
        }
        #expect(sent == expected)
    }

    @Test func aLateViewerGetsTheCurrentStateFirst() throws {
        let state = stateAfterSimulatedFinger(seconds: 30)
        let snapshot = state.snapshot
        #expect(snapshot.first == .hello(session))
        guard case .contact(_, let on) = snapshot[1] else { Issue.record("no contact message: \(snapshot[1])"); return }
        #expect(on)
        guard case .rate(let rate) = snapshot[2] else { Issue.record("no rate message: \(snapshot[2])"); return }
        #expect(rate.status == .answered)
        #expect(abs(try #require(rate.bpm) - 72) < 3)
        #expect(snapshot.contains { if case .quality = $0 { true } else { false } })
        #expect(snapshot.contains { if case .hrv(let h) = $0 { h.accepted > 10 } else { false } })
    }

    @Test func aLateViewerGetsTheLastWindowOfWaveformAndBeats() throws {
        let state = stateAfterSimulatedFinger(seconds: 30)
        let snapshot = state.snapshot
        let waves = snapshot.compactMap { if case .waveform(let w) = $0 { w } else { nil } }
        #expect(waves.count == 1)
        let wave = try #require(waves.first)
        let span = try #require(wave.last).time - wave[0].time
        #expect(span > 9.5 && span <= 10)
        #expect(wave.count >= 290 && wave.count <= 301)   // 30 fps less the simulator's dropped frames
        let beats = snapshot.compactMap { if case .beat(let t, _) = $0 { t } else { nil } }
        #expect(beats.count >= 10 && beats.count <= 13)   // 72 bpm: 12 beats in 10 s
        #expect(beats.allSatisfy { $0 >= wave[0].time })
        #expect(snapshot.contains { if case .confirmedBeat = $0 { true } else { false } })
    }

    @Test func theEndIsPartOfTheSnapshot() {
        var state = DashboardState(session: session)
        #expect(state.end(at: 42) == .end(time: 42))
        #expect(state.snapshot.last == .end(time: 42))
    }
}

/// Display settings that cannot size what the state keeps stop it with a message naming them (NaN
/// or infinite windows and rates trapped converting to Int; an infinite HRV window kept every beat).
/// Values reach the exit test's process as text: JSON has no NaN or infinity.
@Suite struct DashboardStatePreconditionTests {
    @Test(arguments: [("windowSeconds", "nan"), ("windowSeconds", "1e300"), ("waveformRate", "inf"), ("waveformRate", "0"),
                      ("hrvWindowSeconds", "inf"), ("hrvWindowSeconds", "nan")])
    func aSettingOutsideItsRangeIsNamed(name: String, value: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [name, value] in
            var s = DashboardState.Settings()
            let v = Double(value)!
            switch name {
            case "windowSeconds": s.windowSeconds = v
            case "waveformRate": s.waveformRate = v
            default: s.hrvWindowSeconds = v
            }
            _ = DashboardState(session: .init(source: "test", speed: 1, contactSensing: true), settings: s)
        }
        let expected = name == "hrvWindowSeconds" ? "RunningHRV: windowSeconds must be" : "DashboardState: \(name) must be"
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains(expected) == true)
    }
}
