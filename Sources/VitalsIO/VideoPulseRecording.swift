import Foundation
import PulseDetection

extension VideoFile {
    /// File name extensions read as video (anything else is read as a CSV recording).
    public static let videoExtensions: Set<String> = ["y4m", "mp4", "m4v", "mov", "avi", "mkv", "webm", "3gp", "mts", "ts"]

    /// True when `path` names a video: a Y4M signature or a video file extension.
    public static func isVideo(path: String) -> Bool {
        videoExtensions.contains(URL(fileURLWithPath: path).pathExtension.lowercased()) || Y4MReader.hasSignature(path: path)
    }
}

extension PulseRecording {
    /// Reads a fingertip video as a recording of per-frame colour means, with the same checks as a
    /// CSV recording (increasing times, length, rate, flat signal, gaps).
    ///
    /// Frames are shrunk by ffmpeg to at most `maxDimension` pixels a side before their mean is taken
    /// (area averaging keeps the mean; 160 changes the means of the real fingertip videos by under
    /// 0.02 of 255 and halves the decode time of 1080p).
    /// - Parameter progress: fraction done, 0...1.
    /// - Throws: `InputError` from the video reader (`toolMissing`, `unsupportedFormat`, `corrupt`,
    ///   `empty`) or from the recording checks.
    public static func loadVideo(
        path: String, maxDimension: Int? = 160, sampler: FrameSampler = try! FrameSampler(),
        maximumGap: Double = 1, progress: ((Double) -> Void)? = nil
    ) throws -> PulseRecording {
        let means = try VideoColorMeans(
            path: path, sampler: sampler, options: .init(maxDimension: maxDimension), progress: progress)
        // The CSV form goes through the one set of recording checks (and keeps 1e-4 of a level).
        let csv = try CSVFile(bytes: Array(means.csv.utf8), source: path)
        var recording = try load(csv, maximumGap: maximumGap)
        recording.columns = "r,g,b (video \(means.info.codec) \(means.info.sourceWidth)x\(means.info.sourceHeight))"
        return recording
    }
}
