import ArgumentParser
import Foundation
import MotionAnalysis
import VitalsIO

/// `vitals swings FILE`: racket swings (forehand, backhand, serve) in a wrist motion log.
struct Swings: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect racket swings in a wrist motion log (CSV).",
        discussion: """
        JSON: {"swings": [{"time_s", "kind", "angle_rad", "peak_rate_rad_s"}], "forehands", "backhands", "serves"}; \
        times in seconds from the first sample. Raw IMU logs go through the attitude filter first.
        """)

    @Argument(help: "Motion log (CSV with a header; Core Motion, Exermote, InfluxDB or --columns).")
    var file: String
    @Option(help: ArgumentHelp("Wrist the watch is on: left or right.",
        discussion: "left reverses the forehand/backhand sign (rotation about the device's y axis): correct for a device moved to the left wrist with its x axis (along the forearm) reversed. A device whose y axis is reversed instead (strapped the same way relative to the hand) keeps the right wrist's sign: give it --wrist right (see the README)."))
    var wrist: Wrist = .right
    @Option(help: "Detector: strokes (default; one event per stroke, serves) or swingwatch (the published algorithm).")
    var mode: SwingMode = .strokes
    @Option(help: "Lever from wrist to racket head in metres; adds head_speed_m_s.") var lever: Double?
    @Flag(help: "Print one JSON document.") var json = false
    @OptionGroup var input: MotionLogArguments

    struct Swing: Encodable {
        var time_s: Double
        var kind: String
        var angle_rad: Double
        var peak_rate_rad_s: Double
        var head_speed_m_s: Double?
    }

    struct Document: Encodable {
        var swings: [Swing]
        var forehands: Int
        var backhands: Int
        var serves: Int
    }

    func run() throws {
        try CLIError.wrap {
            if let lever, !(lever > 0 && lever < 5) {
                throw InputError(.unsupportedFormat, "--lever \(lever): give the wrist-to-head length in metres (0-5)")
            }
            let log = try input.read(file)
            // A swing lasts about 0.3 s.
            try log.requireSampleRate(atLeast: SwingAnalysis.minimumSampleRate, for: "swings")
            let motion = try log.deviceMotion(filter: .responsive)
            if !log.hasDeviceMotion { status("note: no gravity in the log; derived by the attitude filter from acceleration + rotation rate") }
            if mode == .swingwatch && abs(log.sampleRate - 50) > 1 {
                status(String(format: "note: SwingWatch's 1-s buffer sized for the log's %.0f Hz (published: 50 Hz)", log.sampleRate))
            }
            let events = SwingAnalysis.run(motion, mode: mode, wrist: wrist, sampleRate: log.sampleRate.rounded())
            let doc = Document(
                swings: events.map { Swing(time_s: $0.time, kind: $0.kind.rawValue, angle_rad: $0.angle, peak_rate_rad_s: $0.peakRate,
                                           head_speed_m_s: lever.map($0.headSpeed(leverLength:))) },
                forehands: events.filter { $0.kind == .forehand }.count,
                backhands: events.filter { $0.kind == .backhand }.count,
                serves: events.filter { $0.kind == .serve }.count)
            if json {
                try printJSON(doc)
            } else {
                print(String(format: "%d swings in %.1f min: %d forehands, %d backhands, %d serves (%@ detector, %@ wrist)",
                             events.count, MotionEvaluation.minutes(log.time), doc.forehands, doc.backhands, doc.serves,
                             mode.rawValue, wrist.rawValue))
                for s in doc.swings {
                    print(String(format: "  %8.2f s  %-8@ angle %5.2f rad  peak %5.2f rad/s", s.time_s, s.kind as NSString, s.angle_rad, s.peak_rate_rad_s)
                          + (s.head_speed_m_s.map { String(format: "  head %.1f m/s", $0) } ?? ""))
                }
            }
        }
    }
}

extension SwingMode: ExpressibleByArgument {}
