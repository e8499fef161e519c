import ArgumentParser
import Foundation
import MotionAnalysis
import VitalsIO

/// Options every motion command shares: how to read the log.
struct MotionLogArguments: ParsableArguments {
    @Option(help: "Column mapping role=name,... (roles: time, accel.x, gyro.x, gravity.x, user.x, quat.w, roll, mag.x, ...).")
    var columns: String?

    @Option(name: .customLong("accel-unit"), help: "Unit of acceleration columns: g or m/s2 (default: the layout's, or inferred and stated).")
    var accelUnit: String?

    @Option(name: .customLong("gyro-unit"), help: "Unit of rotation-rate columns: rad/s or deg/s (default: the layout's, or inferred and stated).")
    var gyroUnit: String?

    func options() throws -> MotionLogOptions {
        var o = MotionLogOptions()
        if let columns { o.columns = try MotionLogOptions.parseColumns(columns) }
        if let accelUnit { o.accelerationUnit = try Self.accelerationUnit(accelUnit) }
        if let gyroUnit {
            let key = gyroUnit.replacingOccurrences(of: "dps", with: "deg/s").replacingOccurrences(of: "°/s", with: "deg/s")
            guard let u = RotationUnit(rawValue: key) else {
                throw InputError(.unsupportedFormat, "--gyro-unit: '\(gyroUnit)' is not rad/s or deg/s")
            }
            o.rotationUnit = u
        }
        return o
    }

    /// The unit an `--accel-unit` value names (`g`, `m/s2`, `m/s^2`, `m/s²`).
    static func accelerationUnit(_ text: String) throws -> AccelerationUnit {
        guard let u = AccelerationUnit(rawValue: text.replacingOccurrences(of: "^", with: "").replacingOccurrences(of: "²", with: "2")) else {
            throw InputError(.unsupportedFormat, "--accel-unit: '\(text)' is not g or m/s2")
        }
        return u
    }

    /// Reads the log, printing the reader's notes on stderr.
    func read(_ path: String, quiet: Bool = false) throws -> MotionLog {
        let log = try MotionLog.read(path: path, options: options())
        if !quiet { for n in log.notes { warn(n) } }
        return log
    }
}

/// Prints an Encodable as one JSON document on stdout.
/// - Throws: `CLIError`, one line, when the value cannot be written as JSON (a non-finite number:
///   readers keep those out, so it is a defect), instead of Foundation's `EncodingError` dump.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data: Data
    do {
        data = try encoder.encode(value)
    } catch let EncodingError.invalidValue(value, context) {
        let path = context.codingPath.enumerated().map { i, key in
            key.intValue.map { "[\($0)]" } ?? (i == 0 ? key.stringValue : "." + key.stringValue)
        }.joined()
        throw CLIError("cannot write JSON: \(value) at \(path.isEmpty ? "the top level" : path) is not a finite number (a defect; please report it with the input)")
    } catch {
        throw CLIError("cannot write JSON: \(error.localizedDescription)")
    }
    print(String(decoding: data, as: UTF8.self))
}

/// An optional that a JSON document writes as `null` when absent: the synthesised encoding leaves
/// an absent optional's key out, and readers are promised the key.
@propertyWrapper
struct NullEncoded<Value: Encodable>: Encodable {
    var wrappedValue: Value?
    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let wrappedValue { try c.encode(wrappedValue) } else { try c.encodeNil() }
    }
}
