import Foundation
import PulseDetection
import SignalProcessing

/// `vitals eval wrist`: `WristRateTracker` (PulseDetection) against ECG heart rates on recordings laid out as the
/// IEEE Signal Processing Cup 2015 set: `NAME.csv` (PPG and accelerometer columns, no time column)
/// beside `NAME_bpm.csv` (`window_start_s,window_end_s,bpm`: the ECG's rate over each window).
///
/// Each truth window is scored against the estimate for the window that starts at the same time
/// (within a quarter of the hop): the tracker with the accelerometer (its answered windows, and
/// every window's best guess), the same tracker without it (`motionSuppression` 0, every window),
/// and the fingertip pipeline (`PulseAnalysis`, PulseDetection) on the first PPG column over the same windows,
/// answered windows only.
public struct WristEvaluation: Sendable {
    public struct Options: Sendable {
        public var ppgColumns = ["ppg1", "ppg2"]
        public var motionColumns = ["acc_x", "acc_y", "acc_z"]
        public var rate: Double? = 125
        public var settings = WristRateTracker.Settings()
        public init() {}
    }

    /// Errors against the truth, bpm, for one method on one recording.
    public struct Scores: Sendable {
        public var errors: [Double]
        /// Truth windows the method answered, of all scored.
        public var answered: Int
        public var windows: Int
        public init(errors: [Double], answered: Int, windows: Int) {
            self.errors = errors
            self.answered = answered
            self.windows = windows
        }
        /// Every recording's windows together.
        public init(pooling scores: [Scores]) {
            self.init(errors: scores.flatMap(\.errors), answered: scores.map(\.answered).reduce(0, +),
                      windows: scores.map(\.windows).reduce(0, +))
        }
        public var meanAbsoluteError: Double { errors.isEmpty ? .nan : errors.reduce(0) { $0 + abs($1) } / Double(errors.count) }
        public func within(_ bpm: Double) -> Double {
            errors.isEmpty ? .nan : Double(errors.filter { abs($0) <= bpm }.count) / Double(errors.count)
        }
    }

    public var name: String
    /// The answered windows (declined ones count as not answered).
    public var withMotion: Scores
    /// Every window's best guess, declined or not (as SPC 2015's methods are scored).
    public var withMotionEveryWindow: Scores
    public var withoutMotion: Scores
    public var fingertipPipeline: Scores
    /// Truth rows without a value (not scored).
    public var missingTruth = 0
    /// Truth windows inside the recording with no tracker window starting within a quarter hop of
    /// theirs (counted as not answered).
    public var truthOffTheGrid = 0

    /// Every `NAME.csv` of `directory` that has a `NAME_bpm.csv` beside it, in name order.
    /// - Throws: `InputError` for a folder without such pairs or a file that cannot be read.
    public static func run(directory: String, options: Options = Options()) throws -> [WristEvaluation] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw InputError(.badOption, "\(directory): is a file; eval wrist takes a folder of NAME.csv and NAME_bpm.csv pairs")
        }
        let names = try directoryEntries(directory)
        let recordings = names.filter { $0.hasSuffix(".csv") && !$0.hasSuffix("_bpm.csv") }
            .map { String($0.dropLast(4)) }
            .filter { names.contains("\($0)_bpm.csv") }
        guard !recordings.isEmpty else {
            throw InputError(.fileNotFound, "\(directory): no NAME.csv with a NAME_bpm.csv beside it")
        }
        return try recordings.map { try evaluate(name: $0, directory: directory, options: options) }
    }

    static func evaluate(name: String, directory: String, options: Options) throws -> WristEvaluation {
        let path = (directory as NSString).appendingPathComponent("\(name).csv")
        let csv = try CSVFile(path: path)
        let truthCSV = try CSVFile(path: (directory as NSString).appendingPathComponent("\(name)_bpm.csv"))
        let truthColumns = try truthCSV.numericColumns(["window_start_s", "window_end_s", "bpm"].map { try truthCSV.requireColumn($0) })
        let length = options.settings.windowSeconds
        var truth: [(start: Double, bpm: Double)] = []
        var missingTruth = 0
        for i in truthColumns[0].indices {
            let (start, end, bpm) = (truthColumns[0][i], truthColumns[1][i], truthColumns[2][i])
            guard start.isFinite, end.isFinite, bpm.isFinite else { missingTruth += 1; continue }
            // Named only for an error: finding a row's line walks the file.
            let line = { "\(truthCSV.source): line \(truthCSV.lineNumber(ofRow: i))" }
            guard abs(end - start - length) <= 0.05 else {
                throw InputError(.badOption, String(format: "%@: a truth window of %g s; the tracker's windows are %g s", line(), end - start, length))
            }
            try checkTruthHeartRate(bpm, at: line())
            truth.append((start, bpm))
        }
        // The stated rate is for files without times; a time column gives its own.
        let timed = csv.columnIndex("time_s") != nil || csv.columnIndex("time_ms") != nil
        let recording = try WristRecording.load(csv, ppgColumns: options.ppgColumns, motionColumns: options.motionColumns,
                                                rate: timed ? nil : options.rate)
        func tracked(_ settings: WristRateTracker.Settings) throws -> [WristRateTracker.Estimate] {
            let tracker: WristRateTracker
            do {
                tracker = try WristRateTracker(sampleRate: recording.sampleRate, channels: recording.ppg.count, settings: settings)
            } catch let error as InvalidSettings {
                throw InputError(.badRate, "\(path): \(error.description)")  // a rate the tracker cannot use
            }
            return recording.track(with: tracker)
        }
        var without = options.settings
        without.motionSuppression = 0
        let analysis = PulseAnalysis.run(recording.times.indices.lazy.map { PulseInput.ppg(time: recording.times[$0], value: recording.ppg[0][$0]) },
                                         sampleRate: recording.sampleRate)
        // Truth windows the recording does not cover in full have no estimate: not scored.
        let inside = truth.filter { $0.start >= 0 && $0.start + length <= recording.duration + 1 / recording.sampleRate + 1e-9 }
        let hop = options.settings.hopSeconds, tolerance = hop / 4
        /// The estimate starting within `tolerance` of a truth window's start (estimates start a hop
        /// apart, so at most one does), found by its nearest hop index rather than a scan of them all.
        func matcher(_ estimates: [WristRateTracker.Estimate]) -> (Double) -> WristRateTracker.Estimate? {
            var byHop: [Int: Int] = [:]
            for (i, e) in estimates.enumerated() where byHop[Int((e.start / hop).rounded())] == nil {
                byHop[Int((e.start / hop).rounded())] = i
            }
            return { start in
                let k = Int((start / hop).rounded())
                return [k, k - 1, k + 1].lazy.compactMap { byHop[$0] }.map { estimates[$0] }
                    .first { abs($0.start - start) <= tolerance }
            }
        }
        func score(_ bpm: (_ start: Double) -> Double?) -> Scores {
            let errors = inside.compactMap { t in bpm(t.start).map { $0 - t.bpm } }
            return Scores(errors: errors, answered: errors.count, windows: inside.count)
        }
        let with = matcher(try tracked(options.settings)), withoutMotion = matcher(try tracked(without))
        var result = WristEvaluation(name: name, withMotion: score { with($0)?.bpm },
                                     withMotionEveryWindow: score { with($0)?.bestGuessBPM },
                                     withoutMotion: score { withoutMotion($0)?.bestGuessBPM },
                                     fingertipPipeline: score { analysis.window(start: $0, length: length).bpm })
        result.missingTruth = missingTruth
        result.truthOffTheGrid = inside.filter { with($0.start) == nil }.count
        return result
    }
}
