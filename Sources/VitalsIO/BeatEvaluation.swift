import Foundation
import PulseDetection
import SignalProcessing

/// Scores detected beats against ECG R-peaks (a PPG recording with a simultaneous ECG).
///
/// Each pulse follows its R-peak by the pulse arrival delay; the recording's delay is estimated as the
/// median lag from each beat to the R-peak before it, and beats are shifted back by it. A shifted
/// beat matches the nearest R-peak within `tolerance` seconds (each R-peak matches at most once).
/// Inter-beat intervals of consecutive matched beats are compared with the R-R intervals of their
/// R-peaks.
public struct BeatEvaluation: Sendable {
    public var name: String
    public var beats: Int
    public var references: Int
    public var truePositives: Int
    public var arrivalDelay: Double
    /// |IBI - RR| in milliseconds, over consecutive matched pairs whose beats are not flagged.
    public var intervalErrorsMS: [Double]
    public var flaggedBeats: Int

    public var sensitivity: Double { Double(truePositives) / Double(max(1, references)) }
    public var positivePredictiveValue: Double { Double(truePositives) / Double(max(1, beats)) }
    public var medianIntervalErrorMS: Double { Statistics.median(intervalErrorsMS) }
    public var p90IntervalErrorMS: Double { Statistics.percentile(intervalErrorsMS, 90) }

    public static func score(name: String, beats: [Beat], rPeaks: [Double], tolerance: Double = 0.15) -> BeatEvaluation {
        let times = beats.map(\.time)
        var lags: [Double] = []
        var j = 0
        for t in times {
            while j + 1 < rPeaks.count && rPeaks[j + 1] <= t { j += 1 }
            if j < rPeaks.count, rPeaks[j] <= t { lags.append(t - rPeaks[j]) }
        }
        let delay = lags.isEmpty ? 0 : Statistics.median(lags)
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
        var errors: [Double] = []
        for i in 1..<max(1, times.count) {
            guard let a = match[i - 1], let b = match[i], b == a + 1, !beats[i].isArtifact else { continue }
            errors.append(abs((times[i] - times[i - 1]) - (rPeaks[b] - rPeaks[a])) * 1000)
        }
        return BeatEvaluation(name: name, beats: times.count, references: rPeaks.count, truePositives: used.count,
                              arrivalDelay: delay, intervalErrorsMS: errors,
                              flaggedBeats: beats.filter(\.isArtifact).count)
    }

    /// Scores every `NAME.csv` (`time_s`, ..., `ppg`) with a `NAME_rpeaks.csv` (`time_s`) in `directory`.
    public static func run(directory: String, settings: PulseAnalyzer.Settings = .init()) throws -> [BeatEvaluation] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".csv") && !$0.hasSuffix("_rpeaks.csv") }
            .filter { FileManager.default.fileExists(atPath: directory + "/" + $0.dropLast(4) + "_rpeaks.csv") }
            .sorted()
        guard !files.isEmpty else { throw InputError(.fileNotFound, "\(directory): no NAME.csv with NAME_rpeaks.csv pairs") }
        return try files.map { file in
            let name = String(file.dropLast(4))
            let recording = try PulseRecording.load(path: directory + "/" + file, column: "ppg")
            let peaksCSV = try CSVFile(path: directory + "/" + name + "_rpeaks.csv")
            let r = try peaksCSV.numericColumns([try peaksCSV.requireColumn("time_s")])[0]
            let analysis = PulseAnalysis.run(recording.inputs, sampleRate: recording.sampleRate, settings: settings)
            return score(name: name, beats: analysis.beats, rPeaks: r)
        }
    }
}
