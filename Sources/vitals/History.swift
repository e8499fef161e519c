import ArgumentParser
import Foundation
import MotionAnalysis
import VitalsIO
import VitalsStore

/// `vitals history`: a durable accelerometer history in a folder (`AccelerometerHistory`), as Core
/// Motion's sensor recorder keeps one: add recordings to it, read any stretch back as CSV.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A durable accelerometer history in a folder: add motion logs, export any stretch as CSV, summarise.",
        discussion: """
            Times are seconds since 1970 (UTC); --start, --from and --to also take ISO 8601 dates \
            (2026-11-24T10:00:00Z). The history keeps --retention-hours before its newest sample and \
            drops older samples an hour's segment at a time. An export is a CSV (time_s,acc_x(g),acc_y(g),acc_z(g) \
            in g) that `vitals tremor`, `steps` and `motion` read.
            """,
        subcommands: [Add.self, Export.self, Info.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Append a motion log's total acceleration (gravity included, g) to the history.")

        @Argument(help: "History folder (made if missing).") var folder: String
        @Argument(help: "Motion log (CSV with a header; Core Motion, Exermote, generic acc_x/y/z or --columns).") var file: String
        @Option(help: "When the log's first sample was taken: seconds since 1970 or an ISO 8601 date. Required: logs give times from their first sample.")
        var start: String
        @Option(name: .customLong("retention-hours"), help: "Hours of samples kept before the newest.")
        var retentionHours: Double = 36
        @OptionGroup var input: MotionLogArguments

        func validate() throws {
            guard retentionHours > 0, retentionHours <= 24 * 365 else {
                throw ValidationError("--retention-hours must be more than 0 and at most a year")
            }
        }

        func run() throws {
            let origin = try History.time(start, option: "--start")
            let history = try AccelerometerHistory(folder: folder, settings: .init(retention: retentionHours * 3600))
            let log = try CLIError.wrap { try input.read(file) }
            guard let acceleration = log.acceleration ?? log.gravity.flatMap({ g in log.userAcceleration.map { zip(g, $0).map { $0 + $1 } } }) else {
                throw CLIError("\(file): no acceleration (raw accelerometer columns, or gravity and user acceleration)")
            }
            let samples = zip(log.time, acceleration).map { AccelerometerSample(time: origin + $0, acceleration: $1) }
            if let last = history.lastTime, let first = samples.first, first.time <= last {
                throw CLIError("\(folder) already holds samples up to \(History.date(last)): the log must start after that (--start)")
            }
            // Retention drops what is older than --retention-hours before the newest sample: a log
            // that ends that long after everything held (a mistyped --start) would drop it all.
            if let last = history.lastTime, let newest = samples.last?.time, last < newest - retentionHours * 3600 {
                let held = try history.summary().samples
                throw CLIError("\(folder): the log ends at \(History.date(newest)), more than \(String(format: "%g", retentionHours)) h (--retention-hours) after the newest of the \(held) samples held (\(History.date(last))), so adding it would drop them all; check --start, or add it to another folder")
            }
            try history.append(samples)
            try history.synchronize()
            let summary = try history.summary()
            print(String(format: "%@: added %d samples (%.1f s from %@); the history holds %d samples, %@ to %@",
                         folder, samples.count, log.time.last ?? 0, History.date(origin), summary.samples,
                         summary.firstTime.map(History.date) ?? "-", summary.lastTime.map(History.date) ?? "-"))
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the samples from --from through --to (both included) as CSV: time_s,acc_x(g),acc_y(g),acc_z(g).")

        @Argument(help: "History folder.") var folder: String
        @Option(help: "First time (seconds since 1970 or ISO 8601); default: the oldest sample.") var from: String?
        @Option(help: "Last time (seconds since 1970 or ISO 8601); default: the newest sample.") var to: String?

        func run() throws {
            let history = try History.open(folder)
            let first = try from.map { try History.time($0, option: "--from") } ?? -.infinity
            let last = try to.map { try History.time($0, option: "--to") } ?? .infinity
            guard first <= last else { throw CLIError("--from comes after --to") }
            print("time_s,acc_x(g),acc_y(g),acc_z(g)")
            try history.read(from: first, through: last) { batch in
                var text = ""
                for s in batch {
                    let a = s.acceleration
                    text += "\(s.time),\(a.x),\(a.y),\(a.z)\n"
                }
                print(text, terminator: "")
            }
        }
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What the history holds: samples, time span, segments, bytes.")

        @Argument(help: "History folder.") var folder: String
        @Flag(help: "Print one JSON document.") var json = false

        struct Document: Encodable {
            var folder: String
            var samples, segments, bytes: Int
            @NullEncoded var first_time_s: Double?
            @NullEncoded var last_time_s: Double?
            var recovered_bytes: Int
        }

        func run() throws {
            let history = try History.open(folder)
            let s = try history.summary()
            if json {
                return try printJSON(Document(folder: folder, samples: s.samples, segments: s.segments, bytes: s.bytes,
                                              first_time_s: s.firstTime, last_time_s: s.lastTime,
                                              recovered_bytes: history.recoveredBytes))
            }
            print("\(folder): \(s.samples) samples in \(s.segments) segment file\(s.segments == 1 ? "" : "s") (\(s.bytes) bytes)")
            if let first = s.firstTime, let last = s.lastTime {
                print(String(format: "  %@ to %@ (%.1f h)", History.date(first), History.date(last), (last - first) / 3600))
            }
            if history.recoveredBytes > 0 {
                print("  \(history.recoveredBytes) bytes left by an interrupted write are not read (the next add cuts them)")
            }
        }
    }

    /// Opens an existing history (export and info never make a folder).
    static func open(_ folder: String) throws -> AccelerometerHistory {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw CLIError("\(folder): no such history folder")
        }
        guard isFolder.boolValue else { throw CLIError("\(folder): not a folder (a history is a folder of segment files)") }
        let history = try AccelerometerHistory(folder: folder)
        // Else any folder reads as a history with nothing in it.
        guard try history.summary().segments > 0 else {
            throw CLIError("\(folder): holds no accelerometer history (no \(AccelerometerHistory.segmentFilePattern) segment files; `vitals history add` writes them)")
        }
        return history
    }

    /// Seconds since 1970 from a number or an ISO 8601 date. A date's fraction of a second is read
    /// with its whole seconds as one decimal number, the nearest Double to the time written (as for a
    /// number: export prints each time so that it reads back as itself). The formatter's own
    /// fractional seconds keep milliseconds in a Date (…40.060Z came back as 100000.05999994278,
    /// …00.123456Z as ….1229999), so an export bounded at a sample's time left that sample out.
    static func time(_ text: String, option: String) throws -> Double {
        if let seconds = Double(text), seconds.isFinite { return seconds }
        var whole = text
        var digits: Substring = ""
        if let t = text.firstIndex(of: "T"), let dot = text[t...].firstIndex(of: ".") {
            digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
            whole = String(text[..<dot] + text[digits.endIndex...])
        }
        if !digits.isEmpty, let date = ISO8601DateFormatter().date(from: whole),
           let seconds = Int64(exactly: date.timeIntervalSince1970) {
            let fraction = Double("0." + digits)!
            return seconds >= 0 ? Double("\(seconds).\(digits)")! : Double(seconds) + fraction
        }
        if let date = ISO8601DateFormatter().date(from: text) { return date.timeIntervalSince1970 }
        throw CLIError("\(option): '\(text)' is neither seconds since 1970 nor an ISO 8601 date such as 2026-11-24T10:00:00Z")
    }

    static func date(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions.insert(.withFractionalSeconds)
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
