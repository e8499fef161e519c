import Foundation
import MotionAnalysis
import SignalProcessing

/// Accuracy measurements of the motion pipelines on recorded data sets (`vitals eval ...`).
/// Reading truth labels happens only here, never in a detector.
public enum MotionEvaluation {
    /// CSV files in `directory`, sorted by name.
    /// - Throws: `InputError.fileNotFound` when the directory is missing or holds no CSV.
    public static func csvFiles(in directory: String) throws -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw InputError(.fileNotFound, "\(directory): no such directory")
        }
        let files = names.filter { $0.lowercased().hasSuffix(".csv") }.sorted()
        guard !files.isEmpty else { throw InputError(.fileNotFound, "\(directory): no .csv files") }
        return files.map { (directory as NSString).appendingPathComponent($0) }
    }

    /// The `Individual_N` a file name carries (Exermote's naming), for tune/check splits.
    public static func individual(of path: String) -> Int? {
        let name = (path as NSString).lastPathComponent
        guard let r = name.range(of: "Individual_") else { return nil }
        return Int(name[r.upperBound...].prefix { $0.isNumber })
    }

    // MARK: Attitude

    /// Gravity from `AttitudeFilter` against the log's own (Core Motion) gravity, for one file.
    public struct AttitudeResult: Sendable, Codable {
        public var file: String
        public var individual: Int?
        public var samples: Int
        /// Median angle between filter gravity and Core Motion gravity, degrees.
        public var medianDegrees: Double
        /// 90th percentile of that angle, degrees.
        public var p90Degrees: Double
        enum CodingKeys: String, CodingKey {
            case file, individual, samples
            case medianDegrees = "median_deg"
            case p90Degrees = "p90_deg"
        }
    }

    /// Feeds the filter the log's raw acceleration (gravity + user acceleration, g) and rotation
    /// rate, and compares the gravity it derives with the log's own.
    /// - Throws: `InputError.missingColumn` when the log lacks gravity, user acceleration or rotation rate.
    public static func attitude(file: String, parameters: AttitudeFilter.Parameters) throws -> AttitudeResult {
        let log = try MotionLog.read(path: file)
        guard let gravity = log.gravity, let user = log.userAcceleration, let rate = log.rotationRate else {
            throw InputError(.missingColumn, "\(file): needs gravity, user acceleration and rotation rate columns")
        }
        var filter = AttitudeFilter(parameters: parameters)
        var errors: [Double] = []
        errors.reserveCapacity(log.count)
        for k in 0..<log.count {
            let m = filter.process(IMUSample(time: log.time[k], acceleration: gravity[k] + user[k], rotationRate: rate[k]))
            errors.append(m.gravity.angle(to: gravity[k]) * 180 / .pi)
        }
        return AttitudeResult(file: (file as NSString).lastPathComponent, individual: individual(of: file),
                              samples: log.count, medianDegrees: Statistics.median(errors),
                              p90Degrees: Statistics.percentile(errors, 90))
    }
}
