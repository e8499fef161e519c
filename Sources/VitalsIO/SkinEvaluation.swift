import Foundation
import PulseDetection
import SignalProcessing

/// The remote pulse of videos of skin against a heart rate per video: `vitals eval skin`.
///
/// A folder (or each of its subfolders) holds `truth.csv` (columns `video,hr_bpm`) and, for each
/// video, one or more videos of its skin regions named `VIDEO_REGION.EXT` (or one `VIDEO.EXT`), as
/// the skin-patch set in `../shared/data/rppg-skin` (forehead and cheeks cut from face videos).
/// Each region's frames are averaged whole; the video's rate is tracked over its regions together.
public struct SkinEvaluation: Sendable {
    /// The subfolder (cohort) the video is in; "" for the folder itself.
    public var group: String
    public var video: String
    public var truth: Double
    public var regions: [String]
    /// Each region alone: the median of its answered windows, bpm (nil when none was answered).
    public var regionRates: [Double?]
    /// The regions together.
    public var heartRate: Double?
    public var windows: Int
    public var answeredWindows: Int
    /// Frames left out, summed over the regions, and the frames of one region.
    public var rejectedFrames: Int
    public var frames: Int
    public var duration: Double

    /// Scores every video the `truth.csv` of `directory` (or of each of its subfolders) lists.
    /// - Parameters:
    ///   - directory: the folder holding `truth.csv` and the region videos, or subfolders (cohorts)
    ///     that each do.
    ///   - method: how the remote pulse combines R, G and B into one signal (POS by default, CHROM,
    ///     or green alone).
    ///   - progress: called with each video's name (`GROUP/VIDEO`) before it is decoded.
    ///   - unscored: called with each video file (`GROUP/FILE`) that no `truth.csv` row names, before
    ///     any is decoded.
    /// - Throws: `InputError` for a folder without `truth.csv` (itself or a subfolder), a truth row
    ///   without a video or a plausible rate (20-300 bpm), a video without region files, or a video
    ///   that cannot be decoded.
    public static func run(directory: String, method: RemotePulse.Method = .pos,
                           progress: ((String) -> Void)? = nil,
                           unscored: ((String) -> Void)? = nil) throws -> [SkinEvaluation] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw InputError(.fileNotFound, "\(directory): not a folder (eval skin takes a folder with truth.csv and the videos)")
        }
        let entries = try directoryEntries(directory)
        var groups: [String] = entries.contains("truth.csv") ? [""] : []
        // Folders by their real path: a subfolder that links to one already taken is scored once.
        func real(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
        var taken: Set<String> = groups.isEmpty ? [] : [real(directory)]
        func isLink(_ name: String) -> Bool {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: (directory as NSString).appendingPathComponent(name))) != nil
        }
        for name in entries.filter({ !isLink($0) }) + entries.filter(isLink) where name != "truth.csv" {
            let sub = (directory as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: (sub as NSString).appendingPathComponent("truth.csv")),
               taken.insert(real(sub)).inserted {
                groups.append(name)
            }
        }
        guard !groups.isEmpty else {
            throw InputError(.fileNotFound, "\(directory): no truth.csv (columns video,hr_bpm) in the folder or its subfolders")
        }
        var out: [SkinEvaluation] = []
        func owner(of file: String, among videos: [String]) -> String? {
            let stem = (file as NSString).deletingPathExtension
            return videos.filter { stem == $0 || stem.hasPrefix($0 + "_") }.max { $0.count < $1.count }
        }
        for group in groups {
            let folder = group.isEmpty ? directory : (directory as NSString).appendingPathComponent(group)
            let files = try directoryEntries(folder).filter(VideoFile.hasVideoExtension)
            let truthCSV = try CSVFile(path: (folder as NSString).appendingPathComponent("truth.csv"))
            let videoColumn = try truthCSV.requireColumn("video")
            let rates = try truthCSV.numericColumns([try truthCSV.requireColumn("hr_bpm")])[0]
            let videos = try truthCSV.stringColumn(videoColumn).map { $0.trimmingCharacters(in: .whitespaces) }
            guard !rates.isEmpty else { throw InputError(.empty, "\(truthCSV.source): no videos listed") }
            if let row = videos.indices.dropFirst().first(where: { videos[..<$0].contains(videos[$0]) }) {
                throw InputError(.badOption, "\(truthCSV.source): line \(truthCSV.lineNumber(ofRow: row)): video \(videos[row]) is listed twice (it would be scored twice)")
            }
            // A file is the region of the longest video name it starts with (video "a" does not
            // take "a_b_cheek" when there is a video "a_b"); a file of no listed video is not scored.
            let filesByVideo = Dictionary(grouping: files) { owner(of: $0, among: videos) }
            for file in filesByVideo[String?.none] ?? [] {
                unscored?(group.isEmpty ? file : "\(group)/\(file)")
            }
            for row in rates.indices {
                let video = videos[row]
                // Named only for an error: finding a row's line walks the file (as eval wrist's truth).
                let line = { "\(truthCSV.source): line \(truthCSV.lineNumber(ofRow: row))" }
                guard !video.isEmpty else { throw InputError(.badOption, "\(line()): no video name") }
                try checkTruthHeartRate(rates[row], at: line())
                let regionFiles = filesByVideo[video] ?? []
                guard !regionFiles.isEmpty else {
                    throw InputError(.fileNotFound, "\(line()): no video \(video).EXT or \(video)_REGION.EXT in \(folder)")
                }
                progress?(group.isEmpty ? video : "\(group)/\(video)")
                out.append(try evaluate(group: group, video: video, truth: rates[row], folder: folder,
                                        files: regionFiles, method: method))
            }
        }
        return out
    }

    static func evaluate(group: String, video: String, truth: Double, folder: String, files: [String],
                         method: RemotePulse.Method) throws -> SkinEvaluation {
        let regions = try files.map { file -> (name: String, recording: PulseRecording) in
            let path = (folder as NSString).appendingPathComponent(file)
            let means = try VideoColorMeans(path: path, options: .init(maxDimension: 160))
            let stem = (file as NSString).deletingPathExtension
            let name = stem == video ? "whole frame" : String(stem.dropFirst(video.count + 1))
            return (name, try PulseRecording.colors(means.samples, source: path))
        }
        var pulse = RemotePulse.Settings()
        pulse.method = method
        let source = group.isEmpty ? video : "\(group)/\(video)"
        let recording = try SkinRecording(source: source, regions: regions)
        let together = try recording.analyse(pulse: pulse)
        // Each region alone (a video of one region is already that).
        let regionRates = regions.count == 1 ? [together.heartRate]
            : try regions.map { try SkinRecording(source: source, regions: [$0]).analyse(pulse: pulse).heartRate }
        return SkinEvaluation(
            group: group, video: video, truth: truth, regions: regions.map(\.name),
            regionRates: regionRates,
            heartRate: together.heartRate, windows: together.estimates.count,
            answeredWindows: together.estimates.filter { $0.bpm != nil }.count,
            rejectedFrames: together.rejectedFrames.reduce(0, +), frames: recording.colors[0].count,
            duration: recording.duration)
    }
}
