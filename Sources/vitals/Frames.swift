import ArgumentParser
import Foundation
import PulseDetection
import VitalsIO

/// `vitals frames VIDEO`: decode a video and report (or dump) each frame's mean colour.
struct Frames: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mean colour of every frame of a video (Y4M natively, other formats through ffmpeg).",
        discussion: "With --csv, prints time_s,r,g,b for every frame (times are the video's presentation timestamps).")

    @Argument(help: "Video file: .y4m, or anything ffmpeg reads (mp4, mov, avi, mkv, webm).")
    var video: String

    @Flag(help: "Print time_s,r,g,b for every frame as CSV.")
    var csv = false

    @Flag(help: "Print one JSON summary document.")
    var json = false

    @Option(name: .customLong("max-size"), help: "Let ffmpeg shrink frames to at most this many pixels a side (area averaging keeps the mean); 0 = full size.")
    var maxSize = 160

    @Option(help: "Read every n-th row and column.")
    var stride = 1

    @Option(help: "Region as fractions of the frame: x,y,width,height (e.g. 0.25,0.25,0.5,0.5).")
    var region: String?

    @Option(name: .shortAndLong, help: "Write the CSV to this file instead of standard output.")
    var output: String?

    func validate() throws {
        if csv && json && output == nil { throw ValidationError("--csv and --json both print to standard output: add --output for the CSV") }
        if output != nil && !csv { throw ValidationError("--output writes the per-frame CSV: add --csv") }
        guard maxSize >= 0 else { throw ValidationError("--max-size must be 0 (full size) or positive") }
    }

    func run() throws {
        if let output {
            if json { try refuseStandardOutput(output, option: "--output", what: "the CSV") }
            try checkOutputTarget(output, what: "--output \(output)", inputs: [("the input video", video)])
        }
        try CLIError.wrap {
            var frameRegion = FrameRegion.full
            if let region {
                let parts = region.split(separator: ",", omittingEmptySubsequences: false)
                let v = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard parts.count == 4, v.count == 4, v.allSatisfy(\.isFinite) else {
                    throw ValidationError("--region must be four fractions x,y,width,height (got '\(region)')")
                }
                frameRegion = .fraction(x: v[0], y: v[1], width: v[2], height: v[3])
            }
            let sampler: FrameSampler
            do { sampler = try FrameSampler(region: frameRegion, stride: stride) } catch let e as FrameError {
                throw ValidationError(e.message)
            }
            let progress = ProgressBar(label: URL(fileURLWithPath: video).lastPathComponent)
            let start = Date()
            let means = try VideoColorMeans(
                path: video, sampler: sampler, options: .init(maxDimension: maxSize == 0 ? nil : maxSize),
                progress: progress.update)
            progress.finish()
            let elapsed = Date().timeIntervalSince(start)
            if let issues = means.decodingIssues { warn(issues.warning(path: video)) }
            if csv {
                if let output {
                    try writeFile(Data(means.csv.utf8), to: output)
                } else {
                    print(means.csv, terminator: "")
                }
            }
            let mean = means.meanColor
            if json {
                let doc: [String: Any] = [
                    "path": video, "codec": means.info.codec, "frames": means.samples.count,
                    "width": means.info.width, "height": means.info.height,
                    "source_width": means.info.sourceWidth, "source_height": means.info.sourceHeight,
                    "duration_s": means.duration, "frame_rate": means.measuredFrameRate as Any? ?? NSNull(),
                    "nominal_frame_rate": means.info.nominalFrameRate as Any? ?? NSNull(),
                    "variable_frame_rate": means.isVariableFrameRate,
                    "min_interval_s": means.intervals.min() as Any? ?? NSNull(),
                    "max_interval_s": means.intervals.max() as Any? ?? NSNull(),
                    "mean": ["r": mean.red, "g": mean.green, "b": mean.blue],
                    "decode_seconds": elapsed,
                    "decoding_errors": means.decodingIssues?.errors ?? 0,
                    "damaged_frames": means.decodingIssues?.damagedFrames ?? 0,
                    "undecodable_packets": means.decodingIssues?.undecodablePackets ?? 0,
                ]
                let data = try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys, .prettyPrinted])
                print(String(decoding: data, as: UTF8.self))
            } else if !csv || output != nil {
                let rate = means.measuredFrameRate.map { String(format: "%.3f fps", $0) } ?? "single frame"
                printSummary("""
                    \(video): \(means.samples.count) frames, \(String(format: "%.2f", means.duration)) s, \(rate)\
                    \(means.isVariableFrameRate ? " (variable)" : ""), \(means.info.codec) \(means.info.sourceWidth)x\(means.info.sourceHeight)\
                     read at \(means.info.width)x\(means.info.height)
                    mean colour R \(String(format: "%.2f", mean.red)) G \(String(format: "%.2f", mean.green)) B \(String(format: "%.2f", mean.blue)); \
                    decoded in \(String(format: "%.2f", elapsed)) s (\(String(format: "%.1f", means.duration / max(elapsed, 1e-9)))x real time)
                    """, besides: [output])
            }
        }
    }
}

/// A one-line progress bar on standard error, drawn only when it is a terminal and the work has
/// already taken a second (short inputs finish without one).
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let enabled = isatty(2) == 1
    private let start = Date()
    private var lastDrawn = -1

    init(label: String) { self.label = label }

    func update(_ fraction: Double) {
        guard enabled, Date().timeIntervalSince(start) > 1 else { return }
        // A frame time before the first or past the stated length (a damaged file) stays on the bar.
        let percent = fraction.isFinite ? Int(min(1, max(0, fraction)) * 100) : 0
        guard percent != lastDrawn else { return }
        lastDrawn = percent
        let width = 30
        let filled = width * percent / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(percent)%".utf8))
    }

    func finish() {
        guard enabled, lastDrawn >= 0 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
