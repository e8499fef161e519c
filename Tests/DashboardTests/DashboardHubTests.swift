import Dashboard
import Foundation
import PulseDetection
import Testing

private let session = DashboardMessage.Session(source: "test", speed: 1, contactSensing: true)

/// The first `count` frames of `stream`.
private func take(_ count: Int, from stream: AsyncStream<String>) async -> [String] {
    var out: [String] = []
    for await frame in stream {
        out.append(frame)
        if out.count == count { break }
    }
    return out
}

@Suite struct DashboardHubTests {
    @Test func everyViewerGetsTheSameLiveFrames() async {
        let hub = DashboardHub(state: DashboardState(session: session))
        let a = await hub.subscribe(), b = await hub.subscribe()
        #expect(await hub.viewerCount == 2)
        await hub.publish([.contactFound(time: 0.5), .waveform(WaveformSample(time: 0.6, value: 1))])
        let expected = [DashboardMessage.hello(session), .rate(.init(time: nil, bpm: nil, confidence: nil, status: .measuring)),
                        .contact(time: 0.5, on: true), .rate(.init(time: 0.5, bpm: nil, confidence: nil, status: .measuring)),
                        .waveform([WaveformSample(time: 0.6, value: 1)])].map(\.serverSentEvent)
        #expect(await take(5, from: a) == expected)
        #expect(await take(5, from: b) == expected)
    }

    @Test func aLateViewerStartsWithTheCurrentState() async {
        let hub = DashboardHub(state: DashboardState(session: session))
        await hub.publish([.contactFound(time: 0.5), .rate(RateEstimate(time: 6, bpm: 64, confidence: 0.9))])
        let late = await take(3, from: await hub.subscribe())
        #expect(late == [DashboardMessage.hello(session), .contact(time: 0.5, on: true),
                         .rate(.init(time: 6, bpm: 64, confidence: 0.9, status: .answered))].map(\.serverSentEvent))
    }

    @Test func closingEndsEveryStream() async {
        let hub = DashboardHub(state: DashboardState(session: session))
        let stream = await hub.subscribe()
        await hub.close()
        var frames = 0
        for await _ in stream { frames += 1 }
        #expect(frames == 2)   // the snapshot: hello and the rate
        var after = 0
        for await _ in await hub.subscribe() { after += 1 }
        #expect(after == 0)
    }

    /// A ping reaches every viewer as a comment line, which an EventSource ignores.
    @Test func aPingIsACommentToEveryViewer() async {
        let hub = DashboardHub(state: DashboardState(session: session))
        let a = await hub.subscribe(), b = await hub.subscribe()
        await hub.ping()
        for stream in [a, b] {
            let frames = await take(3, from: stream)
            #expect(frames.last == DashboardHub.pingFrame && frames.last!.hasPrefix(":") && frames.last!.hasSuffix("\n\n"))
        }
    }

    @Test func aViewerThatLeavesIsForgotten() async throws {
        let hub = DashboardHub(state: DashboardState(session: session))
        do {
            let stream = await hub.subscribe()
            _ = await take(1, from: stream)
        }
        // The stream's termination reaches the hub on a task of its own.
        for _ in 0..<100 where await hub.viewerCount > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await hub.viewerCount == 0)
    }

    /// An input stamped 1e300 s after the one before (or a speed of 1e-21) asks for a wait no
    /// `Duration` holds: the feed waits (a day at a time) until it is cancelled, instead of trapping.
    @Test(arguments: [(1e300, 1.0), (1, 1e-21)])
    func aWaitTooLongForADurationEndsWithCancellation(later: Double, speed: Double) async throws {
        let hub = DashboardHub(state: DashboardState(session: session))
        let inputs = LiveInputs(recording: [.ppg(time: 0, value: 1), .ppg(time: later, value: 2)], period: 1, loop: false)
        let feed = Task { try await LiveFeed.run(inputs, sampleRate: 30, speed: speed, hub: hub) }
        try await Task.sleep(for: .milliseconds(200))
        feed.cancel()
        await #expect(throws: CancellationError.self) { try await feed.value }
    }

    @Test func theFeedRunsThePipelineAndTellsTheEnd() async throws {
        let hub = DashboardHub(state: DashboardState(session: session))
        let last = try await LiveFeed.run(LiveInputs(simulated: .ideal, limit: 12), sampleRate: 30, speed: 1000, hub: hub)
        let state = await hub.state
        #expect(state.endTime == last)
        #expect(state.rate.status == .answered)
        #expect(state.contact?.on == true)
    }
}
