import Foundation
import PulseDetection

/// Whole-video heart rate of fingertip videos against a pulse-oximeter spot value: the evaluation
/// behind `vitals eval video DIR` (issue 3: within 5 bpm for at least 6 of 7 videos).
///
/// Layout: `NAME.mp4` (or any video) beside `NAME.json` holding `{"hr_bpm": 63, ...}`. Each video
/// runs the same path as `vitals heart-rate VIDEO`: frames shrunk to 160 pixels by ffmpeg, mean
/// colours, the fingertip pipeline.
public struct VideoEvaluation: Sendable {
    public struct Result: Sendable {
        public var name: String
        public var truthBPM: Double
        /// nil when the pipeline declined to answer (low quality) or the video could not be read.
        public var estimatedBPM: Double?
        public var confidence: Double?
        /// Why there is no estimate, when the video could not be read.
        public var failure: String?
        public var seconds: Double
        /// Wall-clock seconds for the whole video: decoding, sampling, the pipeline.
        public var wallSeconds: Double = 0
        /// Video seconds analysed per wall-clock second.
        public var realTimeFactor: Double? { wallSeconds > 0 && seconds > 0 ? seconds / wallSeconds : nil }
        /// What the video's own frames and pulse show (nil when it could not be read).
        public var evidence: VideoPulseEvidence?
        public var error: Double? { estimatedBPM.map { abs($0 - truthBPM) } }
        /// Estimate within `VideoEvaluation.tolerance` of the truth.
        public var isWithinTolerance: Bool { (error ?? .infinity) <= VideoEvaluation.tolerance }
    }

    /// bpm: issue 3's "within 5 bpm of the oximeter".
    public static let tolerance = 5.0
    /// Issue 3: at least 6 of the 7 videos within tolerance.
    public static let requiredFraction = 6.0 / 7.0
    /// Tiles across and down for the evidence (clipping map, frame steps): 8 x 8 regions of a frame
    /// shrunk to 160 pixels are 11 x 20 pixels, many pixels each yet small against the vignetting.
    public static let tileGrid = try! TileGrid(columns: 8, rows: 8)

    public var results: [Result]
    /// Videos without a truth file (not scored).
    public var unscored: [String] = []
    /// Truth files (`NAME.json`) without a video beside them.
    public var truthsWithoutVideo: [String] = []
    public var withinTolerance: Int { results.filter(\.isWithinTolerance).count }
    public var fractionWithinTolerance: Double { results.isEmpty ? 0 : Double(withinTolerance) / Double(results.count) }

    /// Runs every video in `directory` that has a truth file.
    /// - Throws: `InputError` when the folder is missing or holds no video with a truth file.
    public static func run(directory: String, maxDimension: Int? = 160) throws -> VideoEvaluation {
        let fm = FileManager.default
        var results: [Result] = []
        var unscored: [String] = []
        let entries = try directoryEntries(directory)
        let videoNames = Set(entries.filter { VideoFile.hasVideoExtension($0) }.map { ($0 as NSString).deletingPathExtension })
        let truthsWithoutVideo = entries.filter { $0.hasSuffix(".json") && !videoNames.contains(String($0.dropLast(5))) }
        for name in entries {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(name)
            guard VideoFile.hasVideoExtension(url.path) else { continue }
            let truthURL = url.deletingPathExtension().appendingPathExtension("json")
            // A video without a truth file is not scored; a truth file without a heart rate is an
            // error (it would silently shrink the "of N").
            guard let data = fm.contents(atPath: truthURL.path) else {
                unscored.append(name)
                continue
            }
            guard let doc = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw InputError(.corrupt, "\(truthURL.path): not a JSON object (the truth file holds {\"hr_bpm\": ...})")
            }
            guard let truth = (doc["hr_bpm"] as? NSNumber)?.doubleValue, truth.isFinite, truth > 0 else {
                throw InputError(.missingColumn, "\(truthURL.path): no heart rate 'hr_bpm' (bpm)")
            }
            try checkTruthHeartRate(truth, at: truthURL.path)
            var result = Result(name: name, truthBPM: truth, seconds: 0)
            let start = DispatchTime.now().uptimeNanoseconds
            do {
                let means = try VideoColorMeans(
                    path: url.path, options: .init(maxDimension: maxDimension), tiles: tileGrid)
                let recording = try PulseRecording.colors(means.samples, source: url.path)
                result.seconds = recording.duration
                let analysis = try recording.analyse()
                result.estimatedBPM = analysis.heartRate?.bpm
                result.confidence = analysis.heartRate?.confidence
                result.wallSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                result.evidence = VideoPulseEvidence(video: means, analysis: analysis)
            } catch let error as InputError {
                result.failure = error.message
            } catch {
                // Any other failure (a frame too small for the tile grid, ...) is this video's, named.
                result.failure = "\(url.path): \(error)"
            }
            results.append(result)
        }
        guard !results.isEmpty else {
            throw InputError(.empty, "\(directory): no video with a NAME.json truth file (hr_bpm)")
        }
        return VideoEvaluation(results: results, unscored: unscored, truthsWithoutVideo: truthsWithoutVideo)
    }
}
