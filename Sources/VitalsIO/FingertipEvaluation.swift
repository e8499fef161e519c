import Foundation
import PulseDetection
import SignalProcessing

/// Scores the fingertip pipeline on a folder laid out like MTHS: `subject_NN.csv` (`time_s,r,g,b`)
/// with `subject_NN_truth.csv` (`time_s,hr_bpm,...`, pulse-oximeter heart rate once a second).
///
/// Windows of `window` seconds every `hop` seconds; a window's truth is the mean of the oximeter
/// values inside it (ends included); windows starting before `skipFirst` seconds are not scored.
public struct FingertipEvaluation: Sendable {
    public struct Window: Sendable {
        public var start: Double
        public var truth: Double
        public var bpm: Double?
        public var confidence: Double
    }

    public struct Subject: Sendable {
        public var name: String
        public var windows: [Window]
        public var wholeBPM: Double?
        public var truthMedian: Double
        /// Why the oximeter's numbers look unreliable for this subject, if they do.
        public var truthNotes: [String]
        /// Why the recording could not be analysed, if it could not: its windows are scored as not
        /// answered and its whole-recording rate as missing, so one bad file costs what it hides.
        public var failure: String?
    }

    public var subjects: [Subject] = []
    /// Recordings without a truth file and truth files without a recording (not scored).
    public var unpaired: [String] = []

    public static func run(directory: String, window: Double = 10, hop: Double = 5, skipFirst: Double = 10,
                           settings: PulseAnalyzer.Settings = .init()) throws -> FingertipEvaluation {
        let (names, unpaired) = try pairedNames(in: directory)
        var result = FingertipEvaluation()
        result.unpaired = unpaired
        for name in names {
            let (truth, truthSource) = try loadTruth(path: directory + "/" + name + "_truth.csv")
            let recording: PulseRecording
            do {
                recording = try PulseRecording.load(path: directory + "/" + name + ".csv")
            } catch {
                result.subjects.append(try unanalysedSubject(name: name, truth: truth, truthSource: truthSource, failure: error,
                                                             window: window, hop: hop, skipFirst: skipFirst))
                continue
            }
            result.subjects.append(try analysedSubject(name: name, recording: recording, truth: truth,
                                                       window: window, hop: hop, skipFirst: skipFirst, settings: settings))
        }
        return result
    }

    /// The names with both NAME.csv and NAME_truth.csv in `directory`, sorted, and the files left unpaired.
    private static func pairedNames(in directory: String) throws -> (names: [String], unpaired: [String]) {
        let entries = try directoryEntries(directory)
        let recordings = Set(entries.filter { $0.hasSuffix(".csv") && !$0.hasSuffix("_truth.csv") }.map { $0.dropLast(4) })
        let truths = Set(entries.filter { $0.hasSuffix("_truth.csv") }.map { $0.dropLast(10) })
        let names = recordings.intersection(truths).sorted()
        guard !names.isEmpty else {
            throw InputError(.fileNotFound, "\(directory): no NAME.csv with NAME_truth.csv pairs")
        }
        var unpaired = recordings.subtracting(truths).map { "\($0).csv (no \($0)_truth.csv)" }
            + truths.subtracting(recordings).map { "\($0)_truth.csv (no \($0).csv)" }
        unpaired.sort()
        return (names.map(String.init), unpaired)
    }

    /// The truth file's time_s and hr_bpm columns, refused when a rate is no heart rate or a time does not increase.
    private static func loadTruth(path: String) throws -> (truth: [[Double]], source: String) {
        let truthCSV = try CSVFile(path: path)
        let tCol = try truthCSV.requireColumn("time_s")
        let hCol = try truthCSV.requireColumn("hr_bpm")
        let truth = try truthCSV.numericColumns([tCol, hCol])
        // A truth that is no heart rate, or out of time order, would be scored as one.
        if let i = truth[1].indices.first(where: { truth[1][$0].isFinite && !truthHeartRates.contains(truth[1][$0]) }) {
            throw InputError(.badOption, "\(truthCSV.source): line \(truthCSV.lineNumber(ofRow: i)): hr_bpm \(truth[1][i]) is no heart rate (20-300 bpm)")
        }
        let timed = truth[0].indices.filter { truth[0][$0].isFinite }
        if let k = timed.indices.dropFirst().first(where: { !(truth[0][timed[$0]] > truth[0][timed[$0 - 1]]) }) {
            throw InputError(.badTimestamps, "\(truthCSV.source): line \(truthCSV.lineNumber(ofRow: timed[k])): time \(truth[0][timed[k]]) s does not increase")
        }
        return (truth, truthCSV.source)
    }

    /// A subject whose recording could not be loaded: the windows the oximeter covers, none answered.
    private static func unanalysedSubject(name: String, truth: [[Double]], truthSource: String, failure error: any Error,
                                          window: Double, hop: Double, skipFirst: Double) throws -> Subject {
        // The windows the oximeter covers (its clock taken to start with the recording).
        let end = truth[0].filter(\.isFinite).max() ?? 0
        let t0 = truth[0].first(where: \.isFinite) ?? 0
        let times = truth[0].map { $0 - t0 }
        try checkWindowCount(duration: end - t0, window: window, hop: hop, source: truthSource)
        let windows = HeartRateReport.windowStarts(duration: end - t0, length: window, hop: hop)
            .filter { $0 >= skipFirst - 1e-9 }.compactMap { s -> Window? in
                windowTruth(times: times, values: truth[1], start: s, length: window)
                    .map { Window(start: s, truth: $0, bpm: nil, confidence: 0) }
            }
        return Subject(name: name, windows: windows, wholeBPM: nil,
                       truthMedian: Statistics.median(truth[1].filter(\.isFinite)),
                       truthNotes: [], failure: "\(error)")
    }

    /// A subject whose recording was analysed: its windows scored, with notes on the oximeter's numbers.
    private static func analysedSubject(name: String, recording: PulseRecording, truth fileClockTruth: [[Double]],
                                        window: Double, hop: Double, skipFirst: Double,
                                        settings: PulseAnalyzer.Settings) throws -> Subject {
        var truth = fileClockTruth
        // The oximeter's times are on the file's clock; windows count from the first sample.
        truth[0] = truth[0].map { $0 - recording.startTime }
        try checkWindowCount(duration: recording.coveredDuration, window: window, hop: hop, source: recording.source)
        let analysis = try recording.analyse(settings: settings)
        let (windows, unscored) = scoredWindows(analysis: analysis, truth: truth, duration: recording.coveredDuration,
                                                window: window, hop: hop, skipFirst: skipFirst)
        let oximeter = Statistics.median(truth[1].filter(\.isFinite))
        var notes = oximeterNotes(truth: truth, recording: recording, noWindowScored: windows.isEmpty, unscored: unscored)
        if let note = disagreementNote(analysis: analysis, oximeter: oximeter) { notes.append(note) }
        return Subject(name: name, windows: windows, wholeBPM: analysis.heartRate?.bpm,
                       truthMedian: oximeter, truthNotes: notes)
    }

    /// The windows from `skipFirst` with an oximeter value, answered by `analysis`, and how many had no value.
    private static func scoredWindows(analysis: PulseAnalysis, truth: [[Double]], duration: Double,
                                      window: Double, hop: Double, skipFirst: Double) -> (windows: [Window], unscored: Int) {
        var windows: [Window] = []
        var unscored = 0
        for s in HeartRateReport.windowStarts(duration: duration, length: window, hop: hop) where s >= skipFirst - 1e-9 {
            guard let value = windowTruth(times: truth[0], values: truth[1], start: s, length: window) else {
                // Said in the subject's notes, not silently left out of "scored".
                unscored += 1
                continue
            }
            let w = analysis.window(start: s, length: window)
            windows.append(Window(start: s, truth: value, bpm: w.bpm, confidence: w.confidence))
        }
        return (windows, unscored)
    }

    /// Notes on the oximeter's own numbers: stuck, missing, or timed outside the recording.
    private static func oximeterNotes(truth: [[Double]], recording: PulseRecording, noWindowScored: Bool,
                                      unscored: Int) -> [String] {
        let finite = truth[1].filter(\.isFinite)
        var notes: [String] = []
        let run = longestConstantRun(truth[0], truth[1])
        if run >= 20 { notes.append(String(format: "oximeter reading constant for %.0f s", run)) }
        if unscored > 0 { notes.append("\(unscored) window(s) without an oximeter value, not scored") }
        if finite.isEmpty { notes.append("no oximeter value: the whole recording is not scored") }
        // Every window without a value although the oximeter has some: its times are elsewhere.
        if noWindowScored && unscored > 0 && !finite.isEmpty,
           let first = truth[0].first(where: \.isFinite), let last = truth[0].last(where: \.isFinite) {
            notes.append(String(format: "the oximeter's times (%.1f-%.1f s) do not overlap the recording's (%.1f-%.1f s): are both on the same clock?",
                                first + recording.startTime, last + recording.startTime,
                                recording.startTime, recording.startTime + recording.duration))
        }
        return notes
    }

    /// A note when a clean pulse, or the spectrum and the beats agreeing, disagree with the oximeter's median.
    private static func disagreementNote(analysis: PulseAnalysis, oximeter: Double) -> String? {
        let whole = analysis.heartRate
        if let whole, whole.confidence >= 0.8, abs(whole.bpm - oximeter) > 10 {
            return String(format: "a clean pulse (confidence %.2f) at %.0f bpm disagrees with the oximeter's %.0f",
                          whole.confidence, whole.bpm, oximeter)
        } else if let whole, let beats = beatRate(analysis), abs(beats.bpm - whole.bpm) <= 0.05 * whole.bpm,
                  abs(whole.bpm - oximeter) > 0.15 * oximeter {
            return String(format: "the pulse's spectrum (%.0f bpm) and its %d beat intervals (%.0f bpm) agree; the oximeter reads %.0f, %.0f %% away",
                          whole.bpm, beats.intervals, beats.bpm, oximeter, 100 * abs(whole.bpm - oximeter) / oximeter)
        }
        return nil
    }

    /// Refuses times spanning more windows of `window` seconds every `hop` than a report lists
    /// (``HeartRateReport/maximumWindows``): a truth time of 1e15 s, or a recording with a jump of
    /// 1e9 s, had every window's start listed, gigabytes of them (and 16 GB then an abort).
    /// - Throws: `InputError.badTimestamps` naming the span and the count.
    static func checkWindowCount(duration: Double, window: Double, hop: Double, source: String) throws {
        let count = HeartRateReport.windowCount(duration: duration, length: window, hop: hop)
        guard count <= Double(HeartRateReport.maximumWindows) else {
            throw InputError(.badTimestamps, String(
                format: "%@: the times span %.3g s, %.3g windows of %g s every %g s; at most %d are scored (are the times in seconds?)",
                source, duration, count, window, hop, HeartRateReport.maximumWindows))
        }
    }

    /// A window's truth: the mean of the oximeter's values timed inside [start, start + length]
    /// (times on the window's clock); nil when it has none.
    static func windowTruth(times: [Double], values: [Double], start: Double, length: Double) -> Double? {
        var inside: [Double] = []
        for (t, h) in zip(times, values) where t >= start - 1e-9 && t <= start + length + 1e-9 && h.isFinite {
            inside.append(h)
        }
        return inside.isEmpty ? nil : Statistics.mean(inside)
    }

    /// The rate the accepted beat intervals give (60 / their median), when there are at least 20 of
    /// them: an estimate independent of the spectral one. Two independent estimates that agree with
    /// each other and not with the oximeter, by more than any oximeter's stated accuracy (typically
    /// ±3 bpm or ±2 %; 15 % here), point at the oximeter.
    static func beatRate(_ analysis: PulseAnalysis) -> (bpm: Double, intervals: Int)? {
        guard let hrv = analysis.hrv else { return nil }
        let accepted = zip(hrv.intervals, hrv.accepted).filter(\.1).map(\.0)
        guard accepted.count >= 20 else { return nil }
        return (60_000 / Statistics.median(accepted), accepted.count)
    }

    static func longestConstantRun(_ t: [Double], _ v: [Double]) -> Double {
        var best = 0.0
        var start = 0
        for i in 1..<max(1, v.count) {
            if v[i] != v[start] || !v[i].isFinite {
                best = max(best, t[i - 1] - t[start])
                start = i
            }
        }
        if !v.isEmpty { best = max(best, t[v.count - 1] - t[start]) }
        return best
    }

    /// The summary measures over a set of windows.
    public struct Summary: Sendable {
        public var scored = 0
        public var answered = 0
        public var within5 = 0
        public var medianAbsoluteError = Double.nan
        public var meanAbsoluteError = Double.nan
        public var halfOrDouble = 0
        public var subjects = 0
        public var subjectsWithin5 = 0
        /// The answered windows' agreement with the truth as papers report it (RMSE, MAPE, r, bias).
        public var agreement = Agreement([])
        public var answeredFraction: Double { Double(answered) / Double(max(1, scored)) }
        public var within5Fraction: Double { Double(within5) / Double(max(1, answered)) }
        public var halfOrDoubleFraction: Double { Double(halfOrDouble) / Double(max(1, answered)) }
        public var subjectsWithin5Fraction: Double { Double(subjectsWithin5) / Double(max(1, subjects)) }
    }

    /// A half- or double-rate answer: within 10 % of half or of twice the truth (`RateTracker`'s
    /// `harmonicTolerance`). The same definition scores MTHS and the simulated finger.
    public static func isHalfOrDouble(_ bpm: Double, truth: Double) -> Bool {
        let ratio = bpm / truth
        return abs(ratio - 0.5) <= 0.1 * 0.5 || abs(ratio - 2) <= 0.1 * 2
    }

    public static func summarize(_ subjects: [Subject]) -> Summary {
        var s = Summary()
        var errors: [Double] = []
        var pairs: [(value: Double, truth: Double)] = []
        for subject in subjects {
            // A subject without any oximeter value has no whole-recording truth to be scored against.
            if subject.truthMedian.isFinite { s.subjects += 1 }
            if let w = subject.wholeBPM, abs(w - subject.truthMedian) <= 5 { s.subjectsWithin5 += 1 }
            for w in subject.windows {
                s.scored += 1
                guard let bpm = w.bpm else { continue }
                s.answered += 1
                let e = abs(bpm - w.truth)
                errors.append(e)
                pairs.append((bpm, w.truth))
                if e <= 5 { s.within5 += 1 }
                if Self.isHalfOrDouble(bpm, truth: w.truth) { s.halfOrDouble += 1 }
            }
        }
        s.medianAbsoluteError = Statistics.median(errors)
        s.agreement = Agreement(pairs)
        s.meanAbsoluteError = s.agreement.meanAbsoluteError
        return s
    }

    public var summary: Summary { Self.summarize(subjects) }
}
