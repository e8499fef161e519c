import Dashboard
import PulseDetection
import Testing

/// Beats whose intervals alternate 1020 and 980 ms: every successive difference is 40 ms, so
/// RMSSD is 40 ms and SDNN (population) 20 ms.
private func alternatingBeats(_ count: Int) -> [Beat] {
    var t = 0.0
    return (0..<count).map { k in
        let interval = k == 0 ? nil : (k % 2 == 0 ? 1.02 : 0.98)
        t += interval ?? 0
        var beat = Beat(time: t, interval: interval, strength: 1)
        beat.rateConfidence = 0.9
        return beat
    }
}

@Suite struct RunningHRVTests {
    @Test func alternatingIntervalsGiveAnalyticMeasures() throws {
        var hrv = RunningHRV(windowSeconds: 60, minimumIntervals: 20, minimumConfidence: 0.1)
        var reading: DashboardMessage.HRVReading?
        for beat in alternatingBeats(41) { reading = hrv.add(beat) }
        let r = try #require(reading)
        #expect(abs(try #require(r.rmssd) - 40) < 1e-6)
        #expect(abs(try #require(r.sdnn) - 20) < 1e-6)
        #expect(r.accepted + r.rejected == 40)
    }

    @Test func measuresWaitForEnoughAcceptedIntervals() {
        var hrv = RunningHRV(windowSeconds: 60, minimumIntervals: 20, minimumConfidence: 0.1)
        let readings = alternatingBeats(40).map { hrv.add($0) }
        let first = readings.firstIndex { $0.rmssd != nil }!
        #expect(readings[first].accepted == 20)
        #expect(readings[..<first].allSatisfy { $0.sdnn == nil && $0.accepted < 20 })
    }

    @Test func onlyTheWindowsBeatsCount() {
        var hrv = RunningHRV(windowSeconds: 30, minimumIntervals: 5, minimumConfidence: 0.1)
        var reading: DashboardMessage.HRVReading?
        for beat in alternatingBeats(100) { reading = hrv.add(beat) }
        #expect(reading!.accepted + reading!.rejected == 30)   // 31 beats in the last 30 s
    }

    @Test func beatsFoundWhileTheRateWasDeclinedAreKeptOut() {
        var hrv = RunningHRV(windowSeconds: 60, minimumIntervals: 5, minimumConfidence: 0.1)
        var reading: DashboardMessage.HRVReading?
        for var beat in alternatingBeats(30) {
            if beat.time > 10 && beat.time < 15 { beat.rateConfidence = 0.02 }
            reading = hrv.add(beat)
        }
        #expect(reading!.rejected >= 5)
        #expect(reading!.artifactTimes.contains { $0 > 10 && $0 < 15 })
    }
}
