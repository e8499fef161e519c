import Foundation
import Testing
import Vitals

/// More of the monitor as `GettingStarted.md` (PulseDetection.docc) describes it, beyond its code
/// blocks (GettingStartedBlocksTests): a closure sees every beat the event sequence does, and a rate
/// handler that returns true stops the monitor at that rate.
@Suite struct GettingStartedTests {
    @Test func aSimulatedFingerWithALiftOff() async throws {
        var settings = SimulatedFinger.Settings()
        settings.bpm = 68
        settings.liftOffs = [20..<23]                      // the finger leaves the lens for 3 s
        let monitor = HeartRateMonitor()
        let beats = Counter()
        await monitor.onBeat { _ in await beats.add() }   // a closure on the same events
        let events = try await monitor.start(SimulatedFingerSource(settings: settings, duration: 40))
        let truth = SimulatedFinger.beats(settings: settings, until: 40)
        var lost: [Double] = [], rates: [Double] = [], beatEvents = 0
        for await event in events {
            switch event {
            case .contactLost(let time): lost.append(time)
            case .rate(let rate): rates.append(rate.bpm)
            case .beat: beatEvents += 1
            default: break
            }
        }
        #expect(lost.count == 1 && abs(lost[0] - 20) <= 0.5)
        #expect(!rates.isEmpty && abs(rates.last! - 68) <= 2)
        #expect(truth.count >= 40 && beatEvents >= 25)
        #expect(await beats.count == beatEvents)
    }

    @Test func closuresStopTheMonitorFromTheRateHandler() async throws {
        let monitor = HeartRateMonitor()
        await monitor.onRate { rate in
            rate.confidence >= 0.7         // true = stop measuring
        }
        var settings = SimulatedFinger.Settings()
        settings.bpm = 80
        let events = try await monitor.start(SimulatedFingerSource(settings: settings, duration: 120))
        var rates: [RateEstimate] = []
        for await event in events {
            if case .rate(let rate) = event { rates.append(rate) }
        }
        // Stopped at the first confident rate, long before the 120 s ran out.
        #expect(rates.last.map { $0.confidence >= 0.7 && $0.time < 30 } == true)
        #expect(rates.dropLast().allSatisfy { $0.confidence < 0.7 })
    }
}

private actor Counter {
    var count = 0
    func add() { count += 1 }
}
