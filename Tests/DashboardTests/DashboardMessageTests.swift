import Dashboard
import PulseDetection
import Testing

@Suite struct DashboardMessageTests {
    @Test func anAnsweredRateCarriesItsBpmAndConfidence() {
        let m = DashboardMessage.rate(.init(time: 12.3456, bpm: 71.84, confidence: 0.8333, status: .answered))
        #expect(m.json.serialized()
                == #"{"type": "rate", "t": 12.346, "bpm": 71.8, "confidence": 0.83, "status": "answered"}"#)
    }

    @Test func aDeclinedRateHasANullBpm() {
        let m = DashboardMessage.rate(.init(time: 5, bpm: nil, confidence: 0.04, status: .declined))
        #expect(m.json.serialized() == #"{"type": "rate", "t": 5, "bpm": null, "confidence": 0.04, "status": "declined"}"#)
    }

    @Test func theWaveformIsTwoArraysOfTimesAndValues() {
        let m = DashboardMessage.waveform([WaveformSample(time: 1, value: 0.12345), WaveformSample(time: 1.0333, value: -2)])
        #expect(m.json.serialized() == #"{"type": "waveform", "t": [1, 1.033], "v": [0.123, -2]}"#)
    }

    @Test func beatsGiveTheirIntervalInMilliseconds() {
        var beat = Beat(time: 3.25, interval: 0.8125, strength: 1)
        #expect(DashboardMessage.beat(beat).json.serialized() == #"{"type": "beat", "t": 3.25, "ibi_ms": 812.5}"#)
        beat.interval = nil
        #expect(DashboardMessage.confirmedBeat(beat).json.serialized()
                == #"{"type": "confirmed_beat", "t": 3.25, "ibi_ms": null}"#)
    }

    @Test func qualityNamesItsChannelsAndPerfusion() {
        let q = QualityReport(time: 10, index: 0.912, trackedBPM: 64.04, spectralConcentration: 0.5, channelAgreement: 1,
                              skewness: 0.3, perfusionPercent: 1.2345, channel: "red", beatChannel: "green")
        #expect(DashboardMessage.quality(q).json.serialized()
                == #"{"type": "quality", "t": 10, "index": 0.91, "channel": "red", "beat_channel": "green", "perfusion_percent": 1.23, "tracked_bpm": 64}"#)
    }

    @Test func hrvBeforeEnoughIntervalsHasNullMeasures() {
        let h = DashboardMessage.HRVReading(rmssd: nil, sdnn: nil, accepted: 4, rejected: 1, needed: 20, windowSeconds: 60,
                                            artifactTimes: [2.5])
        #expect(DashboardMessage.hrv(h).json.serialized()
                == #"{"type": "hrv", "rmssd_ms": null, "sdnn_ms": null, "accepted": 4, "rejected": 1, "needed": 20, "window_s": 60, "artifact_t": [2.5]}"#)
    }

    @Test func helloContactGapAndEnd() {
        let hello = DashboardMessage.hello(.init(source: "a \"quoted\" name", speed: 2, contactSensing: false))
        #expect(hello.json.serialized()
                == #"{"type": "hello", "source": "a \"quoted\" name", "speed": 2, "contact_sensing": false, "window_s": 10}"#)
        #expect(DashboardMessage.contact(time: 1.5, on: false).json.serialized() == #"{"type": "contact", "t": 1.5, "on": false}"#)
        #expect(DashboardMessage.gap(from: 3, to: 4.5).json.serialized() == #"{"type": "gap", "from": 3, "to": 4.5}"#)
        #expect(DashboardMessage.end(time: 60).json.serialized() == #"{"type": "end", "t": 60}"#)
    }

    @Test func aServerSentEventIsOneDataLineAndABlankLine() {
        let event = DashboardMessage.hello(.init(source: "two\nlines", speed: 1, contactSensing: true)).serverSentEvent
        #expect(event.hasPrefix("data: {"))
        #expect(event.hasSuffix("}\n\n"))
        #expect(event.dropLast(2).contains("\n") == false)   // the source's newline is escaped
    }
}
