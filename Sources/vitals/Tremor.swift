import ArgumentParser
import Foundation
import MotionAnalysis
import SignalProcessing
import VitalsIO

/// `vitals tremor FILE`: resting tremor, minute by minute, as Core Motion's movement-disorder results.
struct Tremor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Resting tremor in a wrist motion log: each minute's share of unknown, none, slight, mild, moderate and strong.",
        discussion: """
        Each second is judged from the last 4 s of acceleration (TremorDetector): unknown while the arm moves, \
        none, or a regular 3.5-12 Hz oscillation graded by its peak-to-peak displacement at the wrist \
        (slight < 1 cm, mild < 3, moderate < 10, strong). JSON: {"seconds_judged", "tremor_fraction", \
        "minutes": [{"start_s", "end_s", "judged_s", "percent_unknown", "percent_none", "percent_slight", "percent_mild", \
        "percent_moderate", "percent_strong"}], "episodes": [{"start_s", "end_s", "severity", "frequency_hz", \
        "amplitude_cm"}]}; times in seconds from the first sample; percentages as fractions summing to 1.
        """)

    @Argument(help: "Motion log with acceleration at 25 Hz or more (CSV with a header; Core Motion, Exermote or --columns).")
    var file: String
    @Flag(help: "Print one JSON document.") var json = false
    @OptionGroup var input: MotionLogArguments

    struct MinuteRow: Encodable {
        var start_s, end_s, judged_s: Double
        var percent_unknown, percent_none, percent_slight, percent_mild, percent_moderate, percent_strong: Double
    }

    struct EpisodeRow: Encodable {
        var start_s, end_s: Double
        var severity: String
        var frequency_hz, amplitude_cm: Double
    }

    struct Document: Encodable {
        var seconds_judged: Int
        /// Seconds with a likely tremor over the seconds that could be judged (not unknown); null when none could.
        @NullEncoded var tremor_fraction: Double?
        var minutes: [MinuteRow]
        var episodes: [EpisodeRow]
    }

    func run() throws {
        try CLIError.wrap {
            let log = try input.read(file)
            try log.requireSampleRate(atLeast: TremorDetector.minimumSampleRate, for: "judging tremor")
            let seconds = try Self.judge(log)
            if json { return try printJSON(Self.document(seconds)) }
            let minutes = TremorDetector.minutes(seconds)
            let episodes = TremorDetector.episodes(seconds)
            print(Self.summary(seconds: seconds, episodes: episodes))
            print("minute      judged  unknown  none  slight  mild  moderate  strong   (% of the minute's judged seconds)")
            for m in minutes {
                print(String(format: "%5.0f-%5.0f s  %4.0f s   %5.0f %5.0f %7.0f %5.0f %9.0f %7.0f", m.start, m.end, m.judgedSeconds,
                             100 * m.percentUnknown, 100 * m.percentNone, 100 * m.percentSlight, 100 * m.percentMild,
                             100 * m.percentModerate, 100 * m.percentStrong))
            }
            for e in episodes {
                print(String(format: "  tremor %7.1f-%7.1f s  %@  %.1f Hz, %.2f cm peak to peak", e.start, e.end, e.severity.rawValue,
                             e.frequency, e.amplitudeCentimetres))
            }
        }
    }

    /// The JSON document for the judged seconds.
    static func document(_ seconds: [TremorDetector.Second]) -> Document {
        let known = seconds.filter { $0.severity != .unknown }
        return Document(
            seconds_judged: seconds.count,
            tremor_fraction: known.isEmpty ? nil : Double(known.filter { $0.frequency != nil }.count) / Double(known.count),
            minutes: TremorDetector.minutes(seconds).map {
                MinuteRow(start_s: $0.start, end_s: $0.end, judged_s: $0.judgedSeconds, percent_unknown: $0.percentUnknown,
                          percent_none: $0.percentNone, percent_slight: $0.percentSlight, percent_mild: $0.percentMild,
                          percent_moderate: $0.percentModerate, percent_strong: $0.percentStrong)
            },
            episodes: TremorDetector.episodes(seconds).map {
                EpisodeRow(start_s: $0.start, end_s: $0.end, severity: $0.severity.rawValue, frequency_hz: $0.frequency,
                           amplitude_cm: $0.amplitudeCentimetres)
            })
    }

    /// Every second of the log judged by a `TremorDetector` (total acceleration: the log's
    /// accelerometer, or its gravity plus user acceleration).
    /// `motion`, when given, is the log's device motion already worked out (so it is not again).
    static func judge(_ log: MotionLog, motion: [DeviceMotion]? = nil) throws -> [TremorDetector.Second] {
        var detector: TremorDetector
        do {
            detector = try TremorDetector(sampleRate: log.sampleRate)
        } catch let error as TremorDetector.InvalidParameters {
            throw InputError(.badOption, error.description)
        }
        // The accelerometer alone is enough (the band-passes remove gravity): a log without a
        // gyroscope is judged too.
        guard let acceleration = log.acceleration else { return detector.process(try motion ?? log.deviceMotion()) }
        var seconds: [TremorDetector.Second] = []
        for k in 0..<log.count { seconds += detector.process(time: log.time[k], acceleration: acceleration[k]) }
        return seconds + detector.finish()
    }

    /// One line: how much of the log was judged and how much of that was tremor.
    static func summary(seconds: [TremorDetector.Second], episodes: [TremorDetector.Episode]) -> String {
        let known = seconds.filter { $0.severity != .unknown }.count
        let tremor = seconds.filter { $0.frequency != nil }.count
        guard known > 0 else { return "tremor: \(seconds.count) s, all unknown (the arm was moving, or too little data)" }
        return String(format: "tremor: %d of %d s at rest (%d s unknown), a likely tremor in %d (%.0f %%), %d episode%@",
                      known, seconds.count, seconds.count - known, tremor, 100 * Double(tremor) / Double(known), episodes.count,
                      episodes.count == 1 ? "" : "s")
    }
}
