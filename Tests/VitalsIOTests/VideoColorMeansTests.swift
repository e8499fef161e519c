import Foundation
import PulseDetection
import Testing

@testable import VitalsIO

/// `count` frame times (seconds) at `rate` frames per second, rounded to whole milliseconds.
func millisecondTimes(count: Int, rate: Double, lateFrom late: Int = .max, by delay: Double = 0) -> [Double] {
    (0..<count).map { (i: Int) -> Double in
        let t = Double(i) / rate + (i >= late ? delay : 0)
        return (t * 1000).rounded() / 1000
    }
}

/// Frame colours at `times` (seconds), with the given timestamp tick.
func colorMeans(times: [Double], tick: Double?) -> VideoColorMeans {
    let info = VideoInfo(
        width: 64, height: 48, sourceWidth: 64, sourceHeight: 48, nominalFrameRate: nil, duration: nil,
        frameCountHint: nil, codec: "test", timestampResolution: tick)
    return VideoColorMeans(info: info, samples: times.map { ColorSample(time: $0, red: 200, green: 50, blue: 30) })
}

struct VideoColorMeansTests {
    @Test func aFrameRateThatMillisecondTimestampsRoundIsMeasuredFromTheWholeSpanAndIsNotVariable() throws {
        // 240 fps in Matroska: times rounded to whole milliseconds, intervals 4 or 5 ms (median 4,
        // which read as 250 fps and "variable").
        let means = colorMeans(times: millisecondTimes(count: 480, rate: 240), tick: 0.001)
        let rate = try #require(means.measuredFrameRate)
        #expect(abs(rate - 240) < 0.1)
        #expect(!means.isVariableFrameRate)
        #expect(abs(means.duration - 2) < 1e-3)
        // The same clock at 30 fps (33 and 34 ms).
        let slow = colorMeans(times: millisecondTimes(count: 90, rate: 30), tick: 0.001)
        #expect(abs(try #require(slow.measuredFrameRate) - 30) < 0.02)
        #expect(!slow.isVariableFrameRate)
    }

    @Test func aGapOrAChangeOfRateIsStillVariable() {
        // 30 fps with frames 10 and later 0.25 s late, in milliseconds.
        let gap = colorMeans(times: millisecondTimes(count: 30, rate: 30, lateFrom: 10, by: 0.25), tick: 0.001)
        #expect(gap.isVariableFrameRate)
        // The gap does not slow the rate (the frames were captured at 30 fps).
        #expect(abs(gap.measuredFrameRate! - 30) < 0.05)
        // 30 fps, then 24 fps, exact times.
        let first: [Double] = (0..<30).map { Double($0) / 30 }
        let then: [Double] = (1...30).map { 29.0 / 30 + Double($0) / 24 }
        let change = first + then
        #expect(colorMeans(times: change, tick: nil).isVariableFrameRate)
        // Exact times at a constant rate: not variable, without any tick to allow.
        let exactTimes: [Double] = (0..<100).map { Double($0) / 29.97 }
        let exact = colorMeans(times: exactTimes, tick: nil)
        #expect(!exact.isVariableFrameRate)
        #expect(abs(exact.measuredFrameRate! - 29.97) < 1e-9)
    }

    @Test func oneFrameOrTimesThatDoNotIncreaseHaveNoRate() {
        let one = colorMeans(times: [0.5], tick: 0.001)
        #expect(one.measuredFrameRate == nil && one.duration == 0 && !one.isVariableFrameRate)
        #expect(colorMeans(times: [2, 1, 0], tick: nil).measuredFrameRate == nil)
        #expect(colorMeans(times: [1, 1, 1], tick: 0.001).measuredFrameRate == nil)
    }

    @Test func aHiccupShorterThanADroppedFrameCountsInTheRate() {
        // A phone's 30-fps clip with one 49-ms interval (no frame missing): the rate is frames over
        // time, (frames - 1) / (last - first), as a spectrum of the frames in order assumes.
        var times = (0..<300).map { Double($0) / 30 }
        for i in 150..<300 { times[i] += 0.016 }
        let rate = colorMeans(times: times, tick: nil).measuredFrameRate!
        #expect(abs(rate - 299 / (times[299] - times[0])) < 1e-9)
    }

    @Test(.enabled(if: ffmpegAvailable))
    func a240FpsMatroskaVideoReportsItsRateAndItsMillisecondTick() throws {
        let mkv = temporaryPath("r240.mkv")
        try #require(try runFFmpeg(["-f", "lavfi", "-i", "testsrc=s=64x48:r=240:d=1", "-c:v", "ffv1", mkv]))
        let means = try VideoColorMeans(path: mkv)
        #expect(means.samples.count == 240)
        #expect(means.info.timestampResolution == 0.001)
        #expect(abs(try #require(means.measuredFrameRate) - 240) < 0.5)
        #expect(!means.isVariableFrameRate)
    }
}
