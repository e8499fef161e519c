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
        if let accelUnit {
            guard let u = AccelerationUnit(rawValue: accelUnit.replacingOccurrences(of: "^", with: "").replacingOccurrences(of: "²", with: "2")) else {
                throw InputError(.unsupportedFormat, "--accel-unit: '\(accelUnit)' is not g or m/s2")
            }
            o.accelerationUnit = u
        }
        if let gyroUnit {
            let key = gyroUnit.replacingOccurrences(of: "dps", with: "deg/s").replacingOccurrences(of: "°/s", with: "deg/s")
            guard let u = RotationUnit(rawValue: key) else {
                throw InputError(.unsupportedFormat, "--gyro-unit: '\(gyroUnit)' is not rad/s or deg/s")
            }
            o.rotationUnit = u
        }
        return o
    }

    /// Reads the log, printing the reader's notes on stderr.
    func read(_ path: String, quiet: Bool = false) throws -> MotionLog {
        let log = try MotionLog.read(path: path, options: options())
        if !quiet { for n in log.notes { warn(n) } }
        return log
    }
}

/// Prints an Encodable as one JSON document on stdout.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(value)
    print(String(decoding: data, as: UTF8.self))
}
