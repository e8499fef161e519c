import Foundation
import PulseDetection
import VitalsIO

/// Reading a fingertip recording as `vitals heart-rate` and `vitals dashboard` take it: a CSV of
/// colour means or of a PPG column (`--column`, `--rate`, `--polarity`), a PhysioNet (WFDB) record's
/// signal (`NAME.hea`, `--column` naming the signal), or a video's frames.
enum FingertipInput {
    /// Loads the recording at `path`.
    /// - Returns: the recording, and for a video what its decoding met (zeros when nothing; nil for a CSV).
    /// - Throws: `InputError` for an unreadable file, or CSV options given with a video.
    static func load(path: String, column: String?, rate: Double?,
                     polarity: PulseRecording.Polarity) throws -> (recording: PulseRecording, decoding: VideoDecodingIssues?) {
        if VideoFile.hasVideoExtension(path) {
            // A video's times come from its frames and its signal is the frames' colour.
            if rate != nil || column != nil || polarity != .asRecorded {
                throw InputError(.badOption, "\(path): --rate, --column and --polarity apply to CSV recordings, not to videos")
            }
            let (recording, issues) = try videoColours(path)
            return (recording, issues ?? VideoDecodingIssues(errors: 0, damagedFrames: 0, undecodablePackets: 0))
        }
        if WFDBRecord.isHeader(path) {
            // A PhysioNet record: its header gives the rate, --column names a signal (default PLETH).
            if rate != nil { throw InputError(.badOption, "\(path): --rate applies to CSV recordings; a WFDB header gives the rate") }
            return (try WFDBRecord(headerPath: path).recording(column: column, source: path, polarity: polarity), nil)
        }
        return (try PulseRecording.load(path: path, column: column, rate: rate, polarity: polarity), nil)
    }

    /// Warns about what reading `recording` corrected or assumed, and about its gaps.
    static func warnAbout(_ recording: PulseRecording) {
        for note in recording.notes { warn(note) }
        for g in recording.gaps {
            warn(String(format: "gap in the recording from %.2f s to %.2f s: analysed either side", g.from, g.to))
        }
    }

    /// A video's frames as a recording of mean colours, with a progress bar on stderr and a warning
    /// for decoding damage (ffmpeg downscales with area averaging, which keeps the mean).
    static func videoColours(_ path: String) throws -> (recording: PulseRecording, issues: VideoDecodingIssues?) {
        let progress = ProgressBar(label: URL(fileURLWithPath: path).lastPathComponent)
        let means = try VideoColorMeans(path: path, options: .init(maxDimension: 160), progress: progress.update)
        progress.finish()
        if let issues = means.decodingIssues { warn(issues.warning(path: path)) }
        return (try PulseRecording.colors(means.samples, source: path), means.decodingIssues)
    }
}
