import Foundation
import PulseDetection
import SignalProcessing

/// Scores detected beats against ECG R-peaks (a PPG recording with a simultaneous ECG).
///
/// Each pulse follows its R-peak by the pulse arrival delay; the recording's delay is estimated as the
/// one that matches the most beats (`arrivalDelay(_:rPeaks:tolerance:maximumDelay:)`), and beats are
/// shifted back by it. A shifted
/// beat matches the nearest R-peak within `tolerance` seconds (each R-peak matches at most once).
/// Inter-beat intervals of consecutive matched beats are compared with the R-R intervals of their
/// R-peaks: all of them (the figure), and apart those HRV keeps (not rejected as ectopic,
/// artefact or of doubtful shape). Given the span the recording covers, an unmatched beat whose R-peak would precede it and
/// an unmatched R-peak whose pulse would follow it are not scored (the other signal cannot hold
/// their partner).
public struct BeatEvaluation: Sendable {
    public var name: String
    public var beats: Int
    public var references: Int
    public var truePositives: Int
    public var arrivalDelay: Double
    /// |IBI - RR| in milliseconds, over every pair of consecutive matched beats whose R-peaks are
    /// consecutive too.
    public var intervalErrorsMS: [Double]
    /// The same over the intervals HRV keeps (the interval's ending beat not flagged `isArtifact`).
    public var keptIntervalErrorsMS: [Double] = []
    public var flaggedBeats: Int
    /// R-peaks next to an implausible R-R interval (see ``implausibleReferences(_:)``): ectopic beats
    /// or errors of the R-peak detector in ECG noise.
    public var implausibleReferences: Int = 0
    /// Sensitivity over the plausible R-peaks only, and PPV over the beats more than 0.5 s from any
    /// implausible R-peak: how the beats fare where the reference itself can be trusted.
    public var sensitivityPlausible: Double = .nan
    public var ppvPlausible: Double = .nan

    public var sensitivity: Double { Double(truePositives) / Double(max(1, references)) }
    public var positivePredictiveValue: Double { Double(truePositives) / Double(max(1, beats)) }
    public var medianIntervalErrorMS: Double { Statistics.median(intervalErrorsMS) }
    public var p90IntervalErrorMS: Double { Statistics.percentile(intervalErrorsMS, 90) }
    public var medianKeptIntervalErrorMS: Double { Statistics.median(keptIntervalErrorsMS) }
    public var p90KeptIntervalErrorMS: Double { Statistics.percentile(keptIntervalErrorsMS, 90) }

    /// - Parameters:
    ///   - name: the recording's name, kept in the result to label its row.
    ///   - beats: the detected beats, times in seconds on the R-peaks' clock (their `isArtifact` flags
    ///     decide which intervals HRV keeps).
    ///   - rPeaks: the ECG's R-peak times, seconds, in increasing order.
    ///   - tolerance: how far (s) a beat, shifted back by the arrival delay, may lie from an R-peak
    ///     and still match it; 0.15 by default.
    ///   - span: the times (s) the recording covers, if known: see the type's description.
    public static func score(name: String, beats: [Beat], rPeaks: [Double], tolerance: Double = 0.15,
                             span: ClosedRange<Double>? = nil) -> BeatEvaluation {
        let times = beats.map(\.time)
        let delay = arrivalDelay(times, rPeaks: rPeaks, tolerance: tolerance)
        var match = [Int?](repeating: nil, count: times.count)
        var used = Set<Int>()
        var k = 0
        for (i, t) in times.enumerated() {
            let s = t - delay
            while k + 1 < rPeaks.count && rPeaks[k + 1] <= s { k += 1 }
            var best: Int?
            for c in [k, k + 1] where c < rPeaks.count && abs(rPeaks[c] - s) <= tolerance && !used.contains(c) {
                if best == nil || abs(rPeaks[c] - s) < abs(rPeaks[best!] - s) { best = c }
            }
            if let best {
                match[i] = best
                used.insert(best)
            }
        }
        var errors: [Double] = [], kept: [Double] = []
        for i in 1..<max(1, times.count) {
            guard let a = match[i - 1], let b = match[i], b == a + 1 else { continue }
            let e = abs((times[i] - times[i - 1]) - (rPeaks[b] - rPeaks[a])) * 1000
            errors.append(e)
            if !beats[i].isArtifact { kept.append(e) }
        }
        let scoredBeats = times.indices.filter { i in match[i] != nil || span.map { times[i] - delay >= $0.lowerBound } ?? true }
        let scoredPeaks = rPeaks.indices.filter { k in used.contains(k) || span.map { rPeaks[k] + delay <= $0.upperBound } ?? true }
        var result = BeatEvaluation(name: name, beats: scoredBeats.count, references: scoredPeaks.count, truePositives: used.count,
                                    arrivalDelay: delay, intervalErrorsMS: errors,
                                    flaggedBeats: beats.filter(\.isArtifact).count)
        result.keptIntervalErrorsMS = kept
        let implausible = implausibleReferences(rPeaks)
        result.implausibleReferences = implausible.filter { $0 }.count
        let plausible = scoredPeaks.filter { !implausible[$0] }
        result.sensitivityPlausible = Double(plausible.filter { used.contains($0) }.count) / Double(max(1, plausible.count))
        let doubtfulTimes = rPeaks.indices.filter { implausible[$0] }.map { rPeaks[$0] }
        let clear = scoredBeats.filter { i in !doubtfulTimes.contains { abs($0 - (times[i] - delay)) < 0.5 } }
        result.ppvPlausible = Double(clear.filter { match[$0] != nil }.count) / Double(max(1, clear.count))
        return result
    }

    /// The pulse arrival delay, seconds: of the delays 0...`maximumDelay` in 5-ms steps, the one that
    /// puts the most beats within `tolerance` of an R-peak before them, refined to the median lag of
    /// those beats from their R-peak. (The median lag from each beat to the R-peak before it fails when the delay
    /// is close to an R-R interval: the lags then split between about 0 and about one interval.)
    static func arrivalDelay(_ times: [Double], rPeaks: [Double], tolerance: Double,
                             maximumDelay: Double = 0.8) -> Double {
        guard !times.isEmpty, !rPeaks.isEmpty else { return 0 }
        /// The R-peak nearest `s`, by binary search.
        func nearest(_ s: Double) -> Double {
            var lo = 0, hi = rPeaks.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if rPeaks[mid] < s { lo = mid + 1 } else { hi = mid }
            }
            if lo == rPeaks.count { return rPeaks[lo - 1] }
            if lo == 0 { return rPeaks[0] }
            return s - rPeaks[lo - 1] < rPeaks[lo] - s ? rPeaks[lo - 1] : rPeaks[lo]
        }
        /// The lag of the beat at `t` from its R-peak under delay `d`, if one is near enough; a pulse
        /// never precedes its own R-peak.
        func lag(_ t: Double, _ d: Double) -> Double? {
            let r = nearest(t - d)
            return abs(r - (t - d)) <= tolerance && r <= t ? t - r : nil
        }
        var best = (delay: 0.0, count: -1)
        for step in 0...Int((maximumDelay / 0.005).rounded()) {
            let d = Double(step) * 0.005
            let count = times.reduce(0) { $0 + (lag($1, d) == nil ? 0 : 1) }
            if count > best.count { best = (d, count) }
        }
        let lags = times.compactMap { lag($0, best.delay) }
        return lags.isEmpty ? best.delay : Statistics.median(lags)
    }

    /// Marks R-peaks next to an R-R interval more than 30 % away from the median of its neighbours
    /// (`HRV.localReferences(_:inRange:references:)` in PulseDetection, the reference HRV's own artefact rules use): a sinus
    /// rhythm does not change that fast, so either the heart skipped (ectopy) or the R-peak detector
    /// did (spurious or missed R-peaks in a noisy ECG).
    public static func implausibleReferences(_ rPeaks: [Double]) -> [Bool] {
        var marks = [Bool](repeating: false, count: rPeaks.count)
        guard rPeaks.count > 2 else { return marks }
        let rr = zip(rPeaks.dropFirst(), rPeaks).map { $0 - $1 }
        let references = HRV.localReferences(rr, inRange: [Bool](repeating: true, count: rr.count))
        for (i, reference) in references.enumerated() {
            if let m = reference?.median, abs(rr[i] - m) > 0.3 * m {
                marks[i] = true
                marks[i + 1] = true
            }
        }
        return marks
    }

    /// Refuses R-peak times that cannot be a reference for `recording`: fewer than two, not finite,
    /// not increasing, or not on the recording's clock (fewer than half inside its span).
    /// `place` names where R-peak `i` is written ("line 12", "beat annotation 12").
    static func checkReference(_ r: [Double], source src: String, place: (Int) -> String, recording: PulseRecording) throws {
        guard r.count >= 2 else { throw InputError(.tooShort, "\(src): \(r.count) R-peak times; a reference needs at least 2") }
        if let i = r.firstIndex(where: { !$0.isFinite }) {
            throw InputError(.nonFinite, "\(src): \(place(i)), column 'time_s' is empty or not finite")
        }
        if let i = r.indices.dropFirst().first(where: { !(r[$0] > r[$0 - 1]) }) {
            throw InputError(.badTimestamps, "\(src): \(place(i)): R-peak time \(r[i]) s does not increase (previous \(r[i - 1]) s)")
        }
        let span = recording.startTime...(recording.startTime + recording.duration)
        let outside = r.filter { !span.contains($0) }.count
        guard 2 * outside <= r.count else {
            throw InputError(.badTimestamps, String(format: "%@: %d of %d R-peak times lie outside the recording (%.3f-%.3f s on its clock): are they in seconds, on the same clock?",
                                                    src, outside, r.count, span.lowerBound, span.upperBound))
        }
    }

    /// Scores every `NAME.csv` (`time_s`, ..., `ppg`) with a `NAME_rpeaks.csv` (`time_s`) in `directory`,
    /// and, given an `annotator` ("atr", "qrs", ...), every PhysioNet record `NAME.hea` with an
    /// annotation file `NAME.<annotator>`: its PLETH signal against its beat annotations.
    public static func run(directory: String, annotator: String? = nil,
                           settings: PulseAnalyzer.Settings = .init()) throws -> [BeatEvaluation] {
        let entries = try directoryEntries(directory)
        func exists(_ file: String) -> Bool { FileManager.default.fileExists(atPath: directory + "/" + file) }
        let files = entries.filter { $0.hasSuffix(".csv") && !$0.hasSuffix("_rpeaks.csv") && exists($0.dropLast(4) + "_rpeaks.csv") }
        let records = annotator.map { ext in entries.filter { WFDBRecord.isHeader($0) && exists($0.dropLast(4) + "." + ext) } } ?? []
        guard !files.isEmpty || !records.isEmpty else {
            throw InputError(.fileNotFound, "\(directory): no NAME.csv with NAME_rpeaks.csv pairs"
                             + (annotator.map { ", nor NAME.hea records with NAME.\($0) annotations" } ?? ""))
        }
        // One name twice would score one recording twice, under one name, in the pooled figures.
        let recordNames = Set(records.map { $0.dropLast(4) })
        if let ext = annotator, let both = files.map({ $0.dropLast(4) }).first(where: recordNames.contains) {
            throw InputError(.badOption, "\(directory): \(both) is both \(both).csv with \(both)_rpeaks.csv and \(both).hea with \(both).\(ext); keep one of them there")
        }
        let fromCSV = try files.map { file in
            let name = String(file.dropLast(4))
            let recording = try PulseRecording.load(path: directory + "/" + file, column: "ppg")
            let peaksCSV = try CSVFile(path: directory + "/" + name + "_rpeaks.csv")
            let r = try peaksCSV.numericColumns([try peaksCSV.requireColumn("time_s")])[0]
            try checkReference(r, source: peaksCSV.source, place: { "line \(peaksCSV.lineNumber(ofRow: $0))" }, recording: recording)
            return try score(name: name, recording: recording, rPeaks: r, settings: settings)
        }
        let fromRecords = try records.map { header in
            let name = String(header.dropLast(4))
            let record = try WFDBRecord(headerPath: directory + "/" + header)
            let recording = try record.recording(column: nil, source: directory + "/" + header)
            let path = directory + "/" + name + "." + annotator!
            let annotations = try WFDBAnnotations(path: path)
            let frequency = annotations.frequency ?? record.sampleRate
            let r = annotations.annotations.filter(\.isBeat).map { Double($0.sample) / frequency }
            try checkReference(r, source: path, place: { "beat annotation \($0 + 1)" }, recording: recording)
            return try score(name: name, recording: recording, rPeaks: r, settings: settings)
        }
        return fromCSV + fromRecords
    }

    /// Analyses `recording` and scores its beats against `r`, R-peak times on the recording's clock.
    private static func score(name: String, recording: PulseRecording, rPeaks r: [Double],
                              settings: PulseAnalyzer.Settings) throws -> BeatEvaluation {
        let analysis = try recording.analyse(settings: settings)
        // The R-peaks are on the file's clock; the analysis counts from its first sample.
        let rPeaks = r.map { $0 - recording.startTime }
        return score(name: name, beats: analysis.beats, rPeaks: rPeaks, span: 0...recording.duration)
    }
}
