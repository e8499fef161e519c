import ArgumentParser
import Foundation
import PulseDetection
import VitalsIO

/// A command failure with one line for the person at the terminal; exits with status 1.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }

    /// Runs `body`, turning library input errors into one-line command errors.
    static func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as InputError {
            throw CLIError(e.message)
        } catch let e as FrameError {
            throw CLIError(e.description)
        }
    }
}

extension CLIError: LocalizedError {
    var errorDescription: String? { description }
}

/// Writes a warning line to stderr (stdout stays clean for --json).
func warn(_ message: String) {
    FileHandle.standardError.write(Data(("warning: " + message + "\n").utf8))
}

/// Writes a progress or display line to stderr.
func status(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
