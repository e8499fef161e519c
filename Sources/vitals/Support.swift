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

/// The warning for a video shown turned (`degrees`, its display rotation) whose faces are looked for
/// in its frames as stored.
func rotationWarning(_ path: String, degrees: Int) -> String {
    "\(path): players turn this video by \(degrees)°; faces are looked for in its frames as stored, where an upright face lies \(degrees == 180 ? "upside down" : "on its side") and is not found"
}

/// Writes a line to stderr: progress, a display, an error (stdout stays clean for --json).
func status(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Writes `data` to the file at `path`, or throws one line naming the path and the system's reason
/// ("Is a directory", "No such file or directory"), not Foundation's error dump.
func writeFile(_ data: Data, to path: String) throws {
    guard let file = fopen(path, "wb") else {
        throw CLIError("\(path): cannot be written (\(String(cString: strerror(errno))))")
    }
    let written = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    let closed = fclose(file) == 0
    guard written == data.count, closed else {
        throw CLIError("\(path): writing failed (\(String(cString: strerror(errno))))")
    }
}

/// Says on stderr which `NAME` + `recordingSuffix` of `directory` (`NAME.csv`, `NAME_lb.txt`) an
/// evaluation skipped for want of its truth file `NAME` + `truthSuffix` (`_rpeaks.csv`, `.json`).
func warnUnscored(in directory: String, recordingSuffix: String = ".csv", truthSuffix: String) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    for file in names.sorted() where file.hasSuffix(recordingSuffix) && !file.hasSuffix(truthSuffix) {
        let name = file.dropLast(recordingSuffix.count)
        if !names.contains(name + truthSuffix) { warn("not scored: \(file) (no \(name)\(truthSuffix))") }
    }
}

/// An ``Agreement``'s fields for an evaluation's JSON `overall` (added to the fields it had).
func agreementJSON(_ a: Agreement) -> [(String, JSON)] {
    [("rmse_bpm", .num(a.rootMeanSquareError, digits: 3)), ("mape_percent", .num(a.meanAbsolutePercentageError, digits: 3)),
     ("pearson_r", .num(a.pearsonR, digits: 4)), ("bias_bpm", .num(a.bias, digits: 3)),
     ("loa_low_bpm", .num(a.limitsOfAgreement?.lowerBound, digits: 3)), ("loa_high_bpm", .num(a.limitsOfAgreement?.upperBound, digits: 3))]
}

/// An ``Agreement`` as one line of an evaluation's table: "agreement of WHAT: RMSE ..., bias ...".
func agreementLine(_ a: Agreement, of what: String) -> String {
    func figure(_ v: Double, _ format: String) -> String { v.isNaN ? "-" : String(format: format, v) }
    return "agreement of \(what): RMSE \(figure(a.rootMeanSquareError, "%.2f")) bpm, MAPE \(figure(a.meanAbsolutePercentageError, "%.2f")) %, "
        + "Pearson r \(figure(a.pearsonR, "%.3f")), bias \(figure(a.bias, "%+.2f")) bpm (95 % limits "
        + (a.limitsOfAgreement.map { String(format: "%+.1f to %+.1f", $0.lowerBound, $0.upperBound) } ?? "-") + ")"
}
