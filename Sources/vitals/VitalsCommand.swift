import ArgumentParser
import Foundation
import VitalsIO
// `stdout`, a C global, named in `main` (Glibc declares it in SwiftGlibc).
#if canImport(SwiftGlibc)
@preconcurrency import SwiftGlibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// `vitals`: every Vitals pipeline on recordings. Subcommands each live in their own file.
@main
struct VitalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vitals",
        abstract: "Heart rate, HRV and fitness events from phone and watch sensor recordings.",
        subcommands: [
            HeartRate.self,
            HRVCommand.self,
            DashboardCommand.self,
            Eval.self,
            Bench.self,
            Swings.self, Reps.self, Tremor.self, Motion.self,
            Steps.self,
            History.self,
            Frames.self,
            Faces.self,
            Simulate.self,
        ]
    )

    /// Parses and runs the command like ArgumentParser's own `main`, but a failure is one line on
    /// stderr ("Error: ..."): the parser's full message adds the usage (for an error thrown from
    /// `run()`, the root's "Usage: vitals <subcommand>") and an option's help, 3-4 lines in all.
    /// Help and `--help` print as usual.
    static func main() async {
        // An input that is a named pipe nothing writes into waits, as `cat` does, but says why.
        inputWaitNotice = { status($0) }
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            let full = fullMessage(for: error)
            if let misread = negativeValue(CommandLine.arguments, parserMessage: full) {
                fail(ValidationError(misread), hint: helpHint(full))  // a usage error (status 64), as the parser's
            }
            fail(error, hint: helpHint(full))
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            fail(error, hint: nil)
        }
        // Output that could not be written (a full disk, a closed descriptor) is a failure: the
        // results are lost, and an exit status of 0 would say they were delivered.
        // (A write that failed while the results were printed leaves only the stream's error flag.)
        if fflush(stdout) != 0 || ferror(stdout) != 0 {
            let reason = String(cString: strerror(errno))
            fail(CLIError("standard output: the results could not be written (\(reason))"), hint: nil)
        }
    }

    /// Exits on `error`: help and clean exits as ArgumentParser prints them; anything else as one
    /// line on stderr, with `hint` (where to read the usage) after it.
    static func fail(_ error: any Error, hint: String?) -> Never {
        let code = exitCode(for: error)
        // Help, a clean exit, or a bare exit status (an eval's --check that failed, which has said
        // what it had to on stdout): as ArgumentParser prints them.
        if code == .success || error is ExitCode { exit(withError: error) }
        let line = "Error: " + oneLine(message(for: error)) + (hint.map { " (\($0))" } ?? "")
        status(line)
        exit(withError: ExitCode(code.rawValue))
    }

    /// The parser reads a value that starts with "-" as an option, so `--rate -1` was "Missing value
    /// for '--rate <rate>'". When that is what happened, what to say instead (no option takes a
    /// negative value; a name such as a column '-g' is written `--column=-g`); else nil.
    static func negativeValue(_ arguments: [String], parserMessage: String) -> String? {
        guard let r = parserMessage.range(of: "Missing value for '") else { return nil }
        let option = parserMessage[r.upperBound...].prefix { $0 != " " && $0 != "'" }
        guard let i = arguments.firstIndex(of: String(option)), i + 1 < arguments.count else { return nil }
        let value = arguments[i + 1]
        let number = value.split(separator: "x").first.map(String.init) ?? value  // --size -4x4
        guard value.hasPrefix("-") else { return nil }
        guard Double(number) != nil else {
            // A name that starts with one '-' (a column '-g'): the parser needs it attached. A value
            // starting '--' is more likely the next option after a value left out.
            guard !value.hasPrefix("--") else { return nil }
            return "\(option) \(value): a value that starts with '-' is written \(option)=\(value)"
        }
        return "\(option) \(value): negative values are not accepted"
    }

    /// "see 'vitals frames --help'" from the parser's full message, when it names the help to see.
    static func helpHint(_ fullMessage: String) -> String? {
        guard let r = fullMessage.range(of: "See '"), let end = fullMessage[r.upperBound...].firstIndex(of: "'")
        else { return nil }
        return "see '\(fullMessage[r.upperBound..<end])'"
    }

    /// `message` on one line: its lines joined with "; " (blank lines and surrounding spaces dropped).
    static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: "; ")
    }
}
