import Foundation
import MotionAnalysis
import PulseDetection
import SignalProcessing
import Testing
@testable import VitalsIO

@Suite struct SVGChartTests {
    @Test func ticksAreRoundNumbersInsideTheRange() {
        #expect(SVGChart.ticks(0...60, count: 6) == [0, 10, 20, 30, 40, 50, 60])
        #expect(SVGChart.ticks(0.3...1.7, count: 3) == [0.5, 1, 1.5])
        #expect(SVGChart.ticks(-2.2...2.2, count: 4) == [-2, 0, 2])
        #expect(SVGChart.ticks(-2.2...2.2, count: 8) == [-2, -1, 0, 1, 2])
        #expect(SVGChart.ticks(1...1, count: 4).isEmpty)
        #expect(SVGChart.niceStep(0.7) == 1 && SVGChart.niceStep(1.2) == 2 && SVGChart.niceStep(3) == 5 && SVGChart.niceStep(7200) == 10000)
        #expect(SVGChart.label(0.5, range: 0...1) == "0.5" && SVGChart.label(40, range: 0...120) == "40")
        #expect(SVGChart.label(-0.0001, range: -1...1) == "0.0")
    }

    /// A line denser than the pixels keeps each column's extremes: the SVG stays small and the
    /// highest and lowest points survive.
    @Test func aLongLineIsDrawnAsItsPixelEnvelope() {
        var chart = SVGChart(width: 500, height: 100, x: 0...100_000, y: -2...2, xLabel: "t", yLabel: "v")
        let points = (0..<100_000).map { (x: Double($0), y: $0 == 51_234 ? 1.9 : sin(Double($0) / 7)) }
        chart.line(points, color: "#000")
        let svg = chart.render(title: "t", id: "a")
        #expect(svg.utf8.count < 60_000, "\(svg.utf8.count) bytes")
        // The spike's pixel row (y = 1.9 -> row top + 0.025 of the plot height) is drawn.
        let row = fmt(chart.py(1.9))
        #expect(svg.contains(" \(row)L") || svg.contains(" \(row)M") || svg.contains(" \(row)\""))
    }

    @Test func aLineBreaksAtGapsAndNonFiniteValues() {
        var chart = SVGChart(width: 300, height: 100, x: 0...10, y: 0...1, xLabel: "t", yLabel: "v")
        chart.line([(0, 0.5), (1, 0.5), (2, .nan), (3, 0.5), (4, 0.5), (9, 0.5), (10, 0.5)], color: "#000", maxGap: 2)
        let svg = chart.render(title: "t", id: "a")
        #expect(svg.components(separatedBy: "M").count - 1 >= 3 + 2) // three segments, plus the grid's moves
        let path = svg.components(separatedBy: "<g clip-path")[1]
        #expect(path.components(separatedBy: "M").count - 1 == 3)
        #expect(!svg.contains("nan") && !svg.contains("inf"))
    }

    @Test func textIsEscaped() {
        #expect(HTML.escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;")
        let chart = SVGChart(width: 300, height: 100, x: 0...1, y: 0...1, xLabel: "<x>", yLabel: "y&")
        let svg = chart.render(title: "\"t\"", id: "a")
        #expect(svg.contains("&lt;x&gt;") && svg.contains("y&amp;") && svg.contains("&quot;t&quot;"))
    }
}

@Suite struct HeartRateHTMLReportTests {
    @Test func stripsCoverAShortRecordingAndSpreadOverALongOne() {
        let short = HeartRateHTMLReport.Waveform(duration: 25).strips
        #expect(short.map(\.from) == [0, 10, 20] && short.last!.to == 25)
        let long = HeartRateHTMLReport.Waveform(duration: 3600).strips
        #expect(long.count == 6 && long.first!.from == 0 && long.last!.to == 3600)
        #expect(zip(long, long.dropFirst()).allSatisfy { $1.from > $0.to })
        #expect(HeartRateHTMLReport.Waveform(duration: 4).strips.map(\.to) == [4])
        #expect(HeartRateHTMLReport.Waveform(duration: 0).strips.isEmpty)
    }

    /// A simulated finger lifted for a while: the page shows the rate, the beats, the HRV table and
    /// the stretch without a finger; the name is escaped and no number is NaN.
    @Test func aSimulatedFingerGivesACompletePage() throws {
        var settings = SimulatedFinger.Settings()
        settings.bpm = 75
        settings.liftOffs = [20..<26]
        var finger = SimulatedFinger(settings: settings)
        let frames = finger.inputs(duration: 40).compactMap { if case .color(let c) = $0 { c } else { nil } }
        let recording = try PulseRecording.colors(frames, source: "finger <1>.csv")
        let waveform = HeartRateHTMLReport.Waveform(duration: recording.coveredDuration)
        let analysis = try recording.analyse(observe: waveform.observe)
        let bpm = try #require(analysis.heartRate?.bpm)
        #expect(abs(bpm - 75) < 2)
        #expect(waveform.samples.count == 4 && waveform.samples[0].count > 100)
        let html = HeartRateHTMLReport.html(input: "finger <1>.csv", recording: recording, analysis: analysis, waveform: waveform)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</html>\n"))
        #expect(html.contains("finger &lt;1&gt;.csv") && !html.contains("finger <1>"))
        #expect(html.contains(String(format: "%.1f <small>bpm</small>", bpm)))
        #expect(html.contains("<code>rmssd</code>"))
        #expect(html.components(separatedBy: "<svg").count - 1 == 2 + 4 + 2)
        // The lift-off is shaded: contact lost near 20 s and found again near 26 s.
        let spans = HeartRateHTMLReport.noContactSpans(analysis, duration: recording.coveredDuration)
        #expect(spans.count == 1 && abs(spans[0].from - 20) < 0.6 && abs(spans[0].to - 26) < 1.5)
        #expect(!html.contains("nan") && !html.contains("NaN") && !html.contains("inf"))
        // No external fetches: the page works offline.
        let outside = html.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
        #expect(!outside.contains("http:") && !outside.contains("https:") && !outside.contains("src="))
    }

    /// With no rate (white noise) the page says the rate was declined and shows no HRV figures.
    @Test func noiseGivesADeclinedRateAndNoHRV() throws {
        // Seeded: about 1 in 60 unseeded draws of 30 s of white noise gets a rate.
        var rng = SplitMix64(seed: 1)
        let text = "time_s,ppg\n" + (0..<3000).map { "\(Double($0) / 100),\(Double.random(in: -1...1, using: &rng))" }.joined(separator: "\n")
        let recording = try PulseRecording.load(try CSVFile(bytes: Array(text.utf8), source: "noise.csv"), column: "ppg", rate: nil)
        let waveform = HeartRateHTMLReport.Waveform(duration: recording.coveredDuration)
        let analysis = try recording.analyse(observe: waveform.observe)
        #expect(analysis.heartRate == nil)
        let html = HeartRateHTMLReport.html(input: "noise.csv", recording: recording, analysis: analysis, waveform: waveform)
        #expect(html.contains("– <small>bpm</small>") && html.contains("declined"))
        #expect(html.contains("no HRV without a rate"))
    }
}

@Suite struct ReportTimeAxisTests {
    /// A gap of a day between two sessions is cut to a narrow break; times on either side keep
    /// their spacing and order, and short gaps stay as they are.
    @Test func longGapsAreCutAndTimesKeepTheirOrder() {
        let axis = ReportTimeAxis(duration: 86_400 + 200, gaps: [(100, 86_500), (150_000, 150_000.5)].map { (from: $0.0, to: $0.1) })
        #expect(axis.cuts.count == 1)
        #expect(abs(axis.cutWidth - 0.015 * 200) < 1e-9)
        #expect(abs(axis.duration - (200 + axis.cutWidth)) < 1e-9)
        #expect(axis.x(50) == 50 && abs(axis.x(86_500) - (100 + axis.cutWidth)) < 1e-9)
        #expect(abs(axis.x(86_550) - axis.x(86_500) - 50) < 1e-9)
        let times = stride(from: 0.0, through: 86_600, by: 37).map(axis.x)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(axis.label.contains("long gaps cut out"))
        #expect(ReportTimeAxis(duration: 600).label == "time (min)" && ReportTimeAxis(duration: 60).label == "time (s)")
    }
}

@Suite struct MotionHTMLReportTests {
    /// Three sets of squat-like tilts in a generated Core Motion log, a day apart from a second
    /// session: the page shows the counts and the sets, cuts the day, and has no NaN.
    @Test func aGeneratedLogGivesACompletePage() throws {
        var text = "timestamp,motionGravityX,motionGravityY,motionGravityZ,motionUserAccelerationX,motionUserAccelerationY,motionUserAccelerationZ,motionRotationRateX,motionRotationRateY,motionRotationRateZ\n"
        for session in [0.0, 86_400] {
            for i in 0..<3000 {
                let t = Double(i) / 50
                let moving = t > 10 && t < 40
                let a = moving ? 0.8 * sin(2 * .pi * t / 2.5) : 0
                let w = moving ? 0.8 * 2 * .pi / 2.5 * cos(2 * .pi * t / 2.5) : 0
                text += "\(session + t),\(sin(a)),0,\(-cos(a)),0,0,\(moving ? 0.1 * sin(2 * .pi * t / 2.5) : 0),0,\(w),0\n"
            }
        }
        let log = try MotionLog.parse(bytes: Array(text.utf8), source: "squats <a>.csv")
        let motion = try log.deviceMotion()
        var counter = RepCounter(sampleRate: log.sampleRate)
        let sets = counter.process(motion)
        var stability = PoseStability()
        let holds = stability.process(motion)
        var tremorDetector = try TremorDetector(sampleRate: log.sampleRate)
        let tremor = tremorDetector.process(motion)
        let findings = MotionHTMLReport.Findings(sets: sets, swings: [], holds: holds, impacts: [], impactThreshold: 1.5, tremor: tremor)
        let html = MotionHTMLReport.html(file: "squats <a>.csv", log: log, motion: motion, derived: false, findings: findings)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("squats &lt;a&gt;.csv"))
        #expect(html.contains("gap 24.0 h") && html.contains("long gaps cut out"))
        #expect(html.contains("<div class=\"value\">\(sets.reduce(0) { $0 + $1.reps })</div>"))
        #expect(html.components(separatedBy: "<svg").count - 1 == 5)
        #expect(html.contains("<div class=\"label\">tremor</div><div class=\"value\">0 <small>%</small></div>"))
        let without = MotionHTMLReport.html(file: "squats.csv", log: log, motion: motion, derived: false,
                                            findings: MotionHTMLReport.Findings(sets: sets, swings: [], holds: holds, impacts: [], impactThreshold: 1.5))
        #expect(without.components(separatedBy: "<svg").count - 1 == 4 && without.contains("not judged at 50 Hz"))
        #expect(!html.contains("nan") && !html.contains("inf"))
        #expect(sets.count >= 2 && holds.count >= 2)
    }
}

@Suite struct StepsHTMLReportTests {
    /// A generated walk at 2 steps/s from 5 to 40 s, still otherwise: the page shows the steps and
    /// the pause, and shades the still start and end.
    @Test func aGeneratedWalkGivesACompletePage() throws {
        let rate = 50.0
        let time = (0..<Int(60 * rate)).map { Double($0) / rate }
        let acceleration = time.map { t -> Vector3 in
            let walking = t >= 5 && t < 40
            return Vector3(x: 0, y: 0, z: -1 - (walking ? 0.3 * sin(2 * .pi * 2 * t) : 0))
        }
        let recording = AccelerationRecording(format: "motion-log", source: "walk <1>.csv", time: time, acceleration: acceleration)
        let analysis = StepAnalysis(recording: recording)
        #expect(abs(analysis.data.numberOfSteps - 70) <= 3)
        let html = StepsHTMLReport.html(file: "walk <1>.csv", recording: recording, analysis: analysis)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("walk &lt;1&gt;.csv"))
        #expect(html.contains("<div class=\"value\">\(analysis.data.numberOfSteps)</div>"))
        #expect(html.components(separatedBy: "<svg").count - 1 == 2)
        #expect(!html.contains("nan") && !html.contains("inf"))
        let spans = StepsHTMLReport.pausedSpans(analysis.events, end: 60)
        #expect(spans.count == 2 && spans[0].from == 0 && abs(spans[0].to - 5) < 1.5 && abs(spans[1].from - 40) < 2.5 && spans[1].to == 60)
    }
}

/// The page of the windowed trackers (`heart-rate --motion|--skin|--face --report`).
@Suite struct WindowedRateHTMLReportTests {
    /// A running wrist: a pulse at 150 bpm under an arm swinging at 80 per minute. The page gives the
    /// rate, the movement's, a strip per stretch with each PPG channel and |a|, and nothing NaN.
    @Test func aRunningWristGivesACompletePage() throws {
        let rate = 125.0, n = Int(90 * rate)
        var text = "time_s,ppg1,ppg2,ax,ay,az\n"
        for i in 0..<n {
            let t = Double(i) / rate, pulse = sin(2 * .pi * 2.5 * t), swing = sin(2 * .pi * 80 / 60 * t)
            text += "\(t),\(pulse + 2 * swing),\(0.8 * pulse + swing),\(swing),\(0.3 * swing),1\n"
        }
        let recording = try WristRecording.load(try CSVFile(bytes: Array(text.utf8), source: "run <1>.csv"),
                                                ppgColumns: ["ppg1", "ppg2"], motionColumns: ["ax", "ay", "az"], rate: nil)
        let estimates = recording.track(with: try WristRateTracker(sampleRate: rate, channels: 2))
        let answered = estimates.compactMap(\.bpm)
        #expect(answered.count >= estimates.count - 1 && answered.allSatisfy { abs($0 - 150) < 3 })
        let html = recording.htmlReport(input: "run <1>.csv", estimates: estimates)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</html>\n"))
        #expect(html.contains("run &lt;1&gt;.csv") && !html.contains("run <1>"))
        #expect(html.contains(String(format: "%.1f <small>bpm</small>", Statistics.median(answered))))
        #expect(html.contains("80 <small>per min</small>"))
        // Two charts of the windows, and four 10-s strips over 90 s.
        #expect(html.components(separatedBy: "<svg").count - 1 == 2 + 4)
        #expect(html.contains("PPG ppg2") && html.contains("|acceleration|"))
        #expect(!html.contains("nan") && !html.contains("NaN") && !html.contains("inf"))
    }

    /// Every window declined: the page says so, with the reasons counted, and no rate.
    @Test func declinedWindowsAreCountedByReason() throws {
        let frames = (0..<600).map { i in ColorSample(time: Double(i) / 30, red: 180, green: 90, blue: 60) }
        var flat = frames
        flat[300].green = 91  // not flat to the reader, flat to the pulse
        let recording = try SkinRecording(source: "skin.csv", regions: [("patch", try PulseRecording.colors(flat, source: "skin.csv"))])
        let analysis = try recording.analyse()
        #expect(analysis.heartRate == nil)
        let html = recording.htmlReport(input: "skin.csv", heading: "Remote pulse from skin", command: "vitals heart-rate --skin --report",
                                        analysis: analysis, pulse: .init())
        #expect(html.contains("<div class=\"value\">–</div>"))
        #expect(html.contains("declined: ") && html.contains("patch green"))
        #expect(!html.contains("nan") && !html.contains("NaN"))
    }
}

@Suite struct WindowedRateStripTests {
    /// Strips lie where there are samples: around a 2-h gap between two 10-min stretches, none in the
    /// gap, each whole, the first at the start and the last at the end.
    @Test func stripsStayOutOfGaps() {
        let gaps = [(from: 600.0, to: 7800.0)]
        let strips = stripSpans(duration: 8400, gaps: gaps, length: 10, maximum: 4)
        #expect(strips.count == 4)
        for s in strips {
            #expect(abs(s.to - s.from - 10) < 1e-9)
            #expect(s.to <= 600 || s.from >= 7800, "\(s)")
        }
        #expect(strips.first!.from == 0 && strips.last!.to == 8400)
        // Back to back in a short recording; one short strip for one shorter than a strip.
        #expect(stripSpans(duration: 25, gaps: [], length: 10, maximum: 4).map(\.from) == [0, 10, 20])
        #expect(stripSpans(duration: 4, gaps: [], length: 10, maximum: 4).map(\.to) == [4])
    }
}
