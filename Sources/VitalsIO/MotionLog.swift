import Foundation
import MotionAnalysis

/// Units an acceleration column can be recorded in.
public enum AccelerationUnit: String, Sendable, CaseIterable {
    /// Standard gravities (Core Motion's unit).
    case g
    /// Metres per second squared (Android, MPU-6050 exports); 1 g = 9.80665 m/s².
    case metersPerSecondSquared = "m/s2"

    /// Multiply a value in this unit by this factor to get g in Core Motion's sign convention.
    ///
    /// Logs in m/s² (Android's sensor API, raw MPU-6050 exports) report specific force, reading
    /// +1 g upward on a device at rest; Core Motion reads −1 g there (acceleration along gravity).
    /// The factor therefore also flips the sign.
    public var toG: Double { self == .g ? 1 : -1 / 9.80665 }
}

/// Units a rotation-rate column can be recorded in.
public enum RotationUnit: String, Sendable, CaseIterable {
    /// Radians per second (Core Motion's unit).
    case radiansPerSecond = "rad/s"
    /// Degrees per second (most raw gyroscope exports).
    case degreesPerSecond = "deg/s"

    /// Multiply a value in this unit by this factor to get rad/s.
    public var toRadiansPerSecond: Double { self == .radiansPerSecond ? 1 : Double.pi / 180 }
}

/// How to read a motion log: explicit column names and units override what the reader recognises.
public struct MotionLogOptions: Sendable {
    /// Role -> header name, e.g. `["time": "ts", "gyro.x": "Gx"]`. Roles: `time`, `gravity.x|y|z`,
    /// `user.x|y|z` (user acceleration), `accel.x|y|z` (total acceleration), `gyro.x|y|z`,
    /// `quat.w|x|y|z`, `roll`, `pitch`, `yaw`, `mag.x|y|z`, `altitude`, `pressure`.
    public var columns: [String: String]
    /// Unit of every acceleration column (total, user, gravity); nil: the layout's or inferred, and said so.
    public var accelerationUnit: AccelerationUnit?
    /// Unit of every rotation-rate column; nil: the layout's or inferred, and said so.
    public var rotationUnit: RotationUnit?

    public init(columns: [String: String] = [:], accelerationUnit: AccelerationUnit? = nil,
                rotationUnit: RotationUnit? = nil) {
        self.columns = columns
        self.accelerationUnit = accelerationUnit
        self.rotationUnit = rotationUnit
    }

    /// Parses a `--columns` mapping `role=name,role=name`.
    /// - Throws: `InputError.unsupportedFormat` naming an unknown role or a malformed pair.
    public static func parseColumns(_ text: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw InputError(.unsupportedFormat, "--columns: '\(pair)' is not role=column")
            }
            guard MotionLog.roles.contains(parts[0]) else {
                throw InputError(.unsupportedFormat,
                                 "--columns: unknown role '\(parts[0])'; roles are \(MotionLog.roles.joined(separator: ", "))")
            }
            if let given = out[parts[0]] {
                throw InputError(.unsupportedFormat, "--columns: role '\(parts[0])' is given twice ('\(given)' and '\(parts[1])')")
            }
            if let other = out.first(where: { $0.value.caseInsensitiveCompare(parts[1]) == .orderedSame }) {
                throw InputError(.unsupportedFormat, "--columns: column '\(parts[1])' is given for two roles ('\(other.key)' and '\(parts[0])')")
            }
            out[parts[0]] = parts[1]
        }
        return out
    }
}

/// A motion recording read from CSV, in Core Motion's units (g, rad/s, µT, m, kPa) with times in
/// seconds from the first sample. Channels the log does not have are nil.
///
/// Recognised layouts: Core Motion field names as iPhone logging apps write them (`motionGravityX`,
/// `motionRotationRateX`, `motionUserAccelerationX`, `motionQuaternionW`, `accelerometerAccelerationX`,
/// `gyroRotationX`, `loggingTime`, ...; a unit suffix like `(G)` is read), the Exermote layout
/// (`Device: xGravity`, `Device: xAcceleration`, `Device: pitch`, `Device: xRotationRate`,
/// `timeStampSaved` as `YYYY-MM-DD hh:mm:ss:mmm`), InfluxDB annotated CSV exports of raw IMUs
/// (`_time`, `Ax`, `Gx`, ...), and generic names (`time`, `acc_x`, `gyro_x`, ...). Unknown columns are
/// ignored. Label columns are never read.
public struct MotionLog: Sendable {
    /// Where the log came from.
    public var source: String
    /// Seconds from the first kept sample, strictly increasing.
    public var time: [Double]
    /// Gravity unit vectors in g (device frame), when the log has them.
    public var gravity: [Vector3]?
    /// User acceleration in g, gravity removed, when the log has it.
    public var userAcceleration: [Vector3]?
    /// Total acceleration in g (gravity included), when the log has raw accelerometer columns.
    public var acceleration: [Vector3]?
    /// Rotation rate in rad/s.
    public var rotationRate: [Vector3]?
    /// Attitude from quaternion or roll/pitch/yaw columns.
    public var attitude: [Attitude]?
    /// Magnetic field in µT (NaN in rows that have none: slow sensors report less often).
    public var magneticField: [Vector3]?
    /// Relative altitude in metres (NaN in rows that have none).
    public var relativeAltitude: [Double]?
    /// Pressure in kPa (NaN in rows that have none).
    public var pressure: [Double]?
    /// Corrections the reader made and assumptions it took, one sentence each (print them on stderr).
    public var notes: [String]
    /// Median sampling rate in Hz.
    public var sampleRate: Double
    /// Gaps longer than `gapFactor` median intervals: (index of the first sample after the gap, length s).
    public var gaps: [(index: Int, seconds: Double)]
    /// Whether the times were numbers taken as seconds for want of any other sign (no date-time text,
    /// no unit in the column name, no telling spacing): then a rate far too low may be milliseconds.
    var timesAssumedSeconds = false

    /// Every role a `--columns` mapping may name.
    public static let roles: [String] = [
        "time", "gravity.x", "gravity.y", "gravity.z", "user.x", "user.y", "user.z",
        "accel.x", "accel.y", "accel.z", "gyro.x", "gyro.y", "gyro.z",
        "quat.w", "quat.x", "quat.y", "quat.z", "roll", "pitch", "yaw",
        "mag.x", "mag.y", "mag.z", "altitude", "pressure",
    ]

    /// Fastest sampling a log can have, Hz. Phones and watches deliver motion at 100-800 Hz and IMU
    /// chips sample at up to a few kHz; a faster median rate means times in other units than read.
    public static let maximumSampleRate = 10_000.0

    /// Largest rotation rate a log can hold, rad/s: 70 rad/s is 4000 deg/s, the widest full scale of
    /// phone, watch and consumer IMU gyroscopes. A 99th percentile above it is not a rotation rate.
    public static let maximumRotationRate = 70.0

    /// Largest acceleration a sample can hold, g (total, user or gravity): twice the ±32 g full scale
    /// of the widest phone, watch and wearable accelerometers, the pedometer's own limit. A larger
    /// value is no acceleration (a corrupt field or a unit slip); its row is dropped like a NaN.
    public static let maximumAcceleration = Pedometer.maximumAcceleration

    /// A gap is an interval longer than this many median intervals.
    public static let gapFactor = 3.0

    /// Number of samples.
    public var count: Int { time.count }

    /// Checks that the log is sampled fast enough for a detector.
    /// - Parameters:
    ///   - minimum: the slowest rate the detector can use, Hz.
    ///   - purpose: what needs it, for the message (e.g. "the motion detectors").
    /// - Throws: `InputError.badRate` naming the log's rate and the rate needed.
    public func requireSampleRate(atLeast minimum: Double, for purpose: String) throws {
        guard sampleRate >= minimum else {
            // Milliseconds read as seconds give a rate a thousand times too low (samples 2 or more
            // "seconds" apart), as heart-rate input says for its time_s column.
            let hint = timesAssumedSeconds && sampleRate < 0.5 && sampleRate * 1000 >= minimum
                ? " (are the times in milliseconds? name the time column like 'time_ms' or 'time (ms)', or convert it to seconds)" : ""
            throw InputError(.badRate, String(format: "%@: %.3g Hz is too slow for %@ (need %g Hz or more)%@",
                                              source, sampleRate, purpose, minimum, hint))
        }
    }

    /// Reads a motion log from `path`.
    /// - Throws: `InputError` for a missing file, missing columns (the message lists what exists),
    ///   non-numeric fields, time that does not increase, or units that contradict the data.
    public static func read(path: String, options: MotionLogOptions = MotionLogOptions()) throws -> MotionLog {
        // A plain CSV is read from its file a block at a time (a day of 50-Hz samples is 140 MB of
        // text); an annotated one is rewritten in memory first.
        // (A pipe cannot be read twice: it is read into memory at once.)
        if try !isRegularFile(path) || InfluxAnnotatedCSV.isAnnotated(readInputHead(path)) {
            return try parse(bytes: try readInputFile(path, text: true), source: path, options: options)
        }
        return try parse(try CSVFile(path: path), notes: [], options: options)
    }

    /// Parses a motion log already in memory. See `read(path:options:)`.
    public static func parse(bytes input: [UInt8], source: String,
                             options: MotionLogOptions = MotionLogOptions()) throws -> MotionLog {
        var notes: [String] = []
        var bytes = input
        if InfluxAnnotatedCSV.isAnnotated(bytes) {
            bytes = InfluxAnnotatedCSV.plainCSV(bytes)
            notes.append("read as InfluxDB annotated CSV")
        }
        return try parse(try CSVFile(bytes: bytes, source: source), notes: notes, options: options)
    }

    /// Reads a motion log from CSV rows (see `read(path:options:)`); `notes` are the reader's so far.
    private static func parse(_ csv: CSVFile, notes: [String], options: MotionLogOptions) throws -> MotionLog {
        var notes = notes
        let columns = try Columns(csv, options: options)
        var time = try TimeColumn(csv, column: columns.time, notes: &notes)
        let values = try columns.values(in: csv, rowCount: time.values.count)
        var rows = try completeRows(csv, columns, values, time: time.values, notes: &notes)
        let (accelScale, gyroScale) = try unitScales(csv, columns, values, rows: rows, options: options, notes: &notes)
        rows = try rowsInRange(rows, csv, columns, values, accelScale: accelScale, gyroScale: gyroScale,
                               rowCount: time.values.count, notes: &notes)
        try checkGravity(rows, csv, columns, values, scale: accelScale.gravity)
        let seconds = try time.secondsFromStart(rows: rows, csv, notes: &notes)

        var log = MotionLog(source: csv.source, time: seconds, notes: notes, sampleRate: 0, gaps: [])
        log.timesAssumedSeconds = !time.scaled
        log.setChannels(columns, values, rows: rows, accelScale: accelScale, gyroScale: gyroScale)
        try log.measureRateAndGaps()
        return log
    }

    // MARK: - Steps of parse

    /// Where each role's columns are in a CSV's header; nil for a role the log does not have.
    private struct Columns {
        let time: Int
        /// x, y, z.
        let gravity: [Int]?, user: [Int]?, accel: [Int]?, gyro: [Int]?, mag: [Int]?
        /// w, x, y, z.
        let quaternion: [Int]?
        /// Roll, pitch, yaw.
        let euler: [Int]?
        let altitude: Int?, pressure: Int?

        /// Finds each role by the name `options.columns` gives it, else by its aliases.
        /// - Throws: `InputError` for a given name not in the header, part of a triple, a duplicated
        ///   name, no time column or no motion column.
        init(_ csv: CSVFile, options: MotionLogOptions) throws {
            let source = csv.source
            let header = csv.header
            let keys = header.map(MotionLog.key)

            func find(_ role: String) throws -> Int? {
                guard let i = try lookUp(role) else { return nil }
                try csv.refuseDuplicateNames(of: [i])
                return i
            }
            func lookUp(_ role: String) throws -> Int? {
                if let name = options.columns[role] {
                    guard let i = header.firstIndex(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) else {
                        throw InputError(.missingColumn,
                                         "\(source): column '\(name)' (for \(role)) not found in header: \(csv.headerDescription)")
                    }
                    return i
                }
                for alias in MotionLog.aliases[role] ?? [] {
                    if let i = keys.firstIndex(of: alias) { return i }
                }
                return nil
            }
            func triple(_ prefix: String) throws -> [Int]? {
                let found = try ["x", "y", "z"].map { try find("\(prefix).\($0)") }
                let present = found.compactMap { $0 }
                if present.isEmpty { return nil }
                guard present.count == 3 else {
                    let missing = zip(["x", "y", "z"], found).filter { $0.1 == nil }.map { "\(prefix).\($0.0)" }
                    throw InputError(.missingColumn,
                                     "\(source): \(missing.joined(separator: ", ")) missing (have \(present.map { header[$0] }.joined(separator: ", "))); header: \(csv.headerDescription)")
                }
                return present
            }

            guard let time = try find("time") else {
                throw InputError(.missingColumn,
                                 "\(source): no time column (looked for time, timestamp, loggingTime, timeStampSaved, _time; or pass --columns time=NAME); header: \(csv.headerDescription)")
            }
            self.time = time
            gravity = try triple("gravity")
            user = try triple("user")
            accel = try triple("accel")
            gyro = try triple("gyro")
            mag = try triple("mag")
            quaternion = try {
                let q = try ["w", "x", "y", "z"].map { try find("quat.\($0)") }
                return q.allSatisfy { $0 != nil } ? q.map { $0! } : nil
            }()
            euler = try {
                let e = try ["roll", "pitch", "yaw"].map { try find($0) }
                return e.allSatisfy { $0 != nil } ? e.map { $0! } : nil
            }()
            altitude = try find("altitude")
            pressure = try find("pressure")

            guard gravity != nil || user != nil || accel != nil || gyro != nil || quaternion != nil
                    || euler != nil || altitude != nil else {
                throw InputError(.missingColumn,
                                 "\(source): no motion columns recognised (want e.g. motionGravityX, Device: xRotationRate, accelerometerAccelerationX, Ax, gyro_x; or pass --columns); header: \(csv.headerDescription)")
            }
        }

        /// The motion fields' columns, which must all be present in a row for it to be kept; the slow
        /// sensors' fields (barometer, magnetometer) may be empty, as loggers write them only when they
        /// report (an altimeter about once a second beside a 50-100 Hz accelerometer).
        var required: [Int] { [gravity, user, accel, gyro, quaternion, euler].compactMap { $0 }.flatMap { $0 } }

        /// Every numeric channel's values (NaN where empty), by column index.
        /// - Throws: `InputError` for a field that is not a number or a file that changed.
        func values(in csv: CSVFile, rowCount: Int) throws -> [Int: [Double]] {
            let all: [Int] = required + (mag ?? []) + [altitude, pressure].compactMap { $0 }
            let columns = try csv.numericColumns(all)
            // Two passes over one file; a file that changed between them is refused by CSVFile.
            guard columns.allSatisfy({ $0.count == rowCount }) else { throw CSVFile.changed(csv.source) }
            var byIndex: [Int: [Double]] = [:]
            for (k, c) in all.enumerated() { byIndex[c] = columns[k] }
            return byIndex
        }
    }

    /// A log's time column: every row's time, in seconds once its unit is read.
    private struct TimeColumn {
        /// Index in the header.
        let column: Int
        /// Each data row's time (NaN where empty), not yet counted from the first sample.
        var values: [Double]
        /// Whether the times were date-time text.
        let isDate: Bool
        /// Whether a unit was read (date-time text, a unit in the column name, telling spacing);
        /// otherwise the numbers are taken as seconds.
        var scaled: Bool

        /// Reads the column `column` as numbers (seconds, or ms/ns by its name, said in a note) or date-time text.
        /// - Throws: `InputError.notANumber` for a field that is neither a number nor a date-time.
        init(_ csv: CSVFile, column: Int, notes: inout [String]) throws {
            let source = csv.source
            let header = csv.header
            // Time: numbers (seconds, or ms/ns by header or magnitude) or date-time text.
            var rawTime: [Double] = []
            var timeIsDate = false
            try csv.forEachText(ofColumn: column) { line, s in
                var value = Double.nan
                if s.isEmpty {
                } else if let v = CSVFile.number(s) {
                    value = v
                } else if let d = DateText.seconds(s) {
                    value = d
                    timeIsDate = true
                } else {
                    throw InputError(.notANumber,
                                     "\(source): line \(line), column '\(header[column])': '\(s.prefix(40))' is neither a number nor a date-time")
                }
                rawTime.append(value)
            }
            var timeScaled = timeIsDate
            if !timeIsDate {
                let name = header[column].lowercased()
                if name.contains("(ms)") || name.hasSuffix("_ms") || name.hasSuffix("ms") && !name.hasSuffix("ums") {
                    rawTime = rawTime.map { $0 / 1000 }
                    notes.append("time column '\(header[column])' read as milliseconds")
                    timeScaled = true
                } else if name.contains("ns") && (name.contains("(ns)") || name.hasSuffix("_ns")) {
                    rawTime = rawTime.map { $0 / 1e9 }
                    notes.append("time column '\(header[column])' read as nanoseconds")
                    timeScaled = true
                }
            }
            self.column = column
            values = rawTime
            isDate = timeIsDate
            scaled = timeScaled
        }

        /// The times of `rows` in seconds from the first: rescaled when their spacing tells another
        /// unit (said in a note), and checked to increase.
        /// - Throws: `InputError.badTimestamps` at the first time that does not increase.
        mutating func secondsFromStart(rows keep: [Int], _ csv: CSVFile, notes: inout [String]) throws -> [Double] {
            if !isDate, let scale = MotionLog.timeScaleFromSpacing(keep.map { values[$0] }) {
                values = values.map { $0 * scale.factor }
                notes.append(scale.note)
                scaled = true
            }
            for k in 1..<keep.count where !(values[keep[k]] > values[keep[k - 1]]) {
                throw InputError(.badTimestamps,
                                 "\(csv.source): time does not increase at line \(csv.lineNumber(ofRow: keep[k])) (\(csv.text(ofRow: keep[k], column: column)) after \(csv.text(ofRow: keep[k - 1], column: column))); sort the log or fix its clock")
            }
            let t0 = values[keep[0]]
            return keep.map { values[$0] - t0 }
        }
    }

    /// The rows whose time and motion fields are all present; a note says how many others were dropped.
    /// - Throws: `InputError.tooShort` for fewer than 2.
    private static func completeRows(_ csv: CSVFile, _ columns: Columns, _ byIndex: [Int: [Double]], time rawTime: [Double],
                                     notes: inout [String]) throws -> [Int] {
        let required = columns.required
        // Keep rows whose time and motion fields are all present (logs often start with empty rows).
        let n = rawTime.count
        var keep: [Int] = []
        keep.reserveCapacity(n)
        for r in 0..<n {
            if !rawTime[r].isFinite { continue }
            var ok = true
            for c in required where !(byIndex[c]![r].isFinite) { ok = false; break }
            if ok { keep.append(r) }
        }
        if keep.count < n {
            notes.append("dropped \(n - keep.count) of \(n) rows with an empty or non-finite time or motion field")
        }
        guard keep.count >= 2 else {
            throw InputError(.tooShort, "\(csv.source): fewer than 2 complete motion rows")
        }
        return keep
    }

    /// The vectors in columns `idx` (x, y, z) at `rows`, times `scale`; nil when the log has no such columns.
    private static func vectors(_ idx: [Int]?, _ byIndex: [Int: [Double]], rows keep: [Int], scale: Double) -> [Vector3]? {
        guard let idx else { return nil }
        let a = byIndex[idx[0]]!, b = byIndex[idx[1]]!, c = byIndex[idx[2]]!
        return keep.map { Vector3(x: a[$0] * scale, y: b[$0] * scale, z: c[$0] * scale) }
    }

    /// The factors that take the acceleration columns to g and the rotation-rate columns to rad/s.
    /// - Throws: `InputError.unsupportedFormat` when the units contradict each other or the data.
    private static func unitScales(_ csv: CSVFile, _ columns: Columns, _ byIndex: [Int: [Double]], rows: [Int],
                                   options: MotionLogOptions, notes: inout [String]) throws
        -> (acceleration: (total: Double, user: Double, gravity: Double), rotation: Double) {
        // Units: explicit options win; else a unit suffix in the header, the layout's convention, or
        // the data's own magnitude (said in a note). Contradictions are errors. Both are read from
        // robust statistics (median, 99th percentile), so a few corrupt samples do not sway them.
        let accelScale = try accelerationScale(
            total: vectors(columns.accel, byIndex, rows: rows, scale: 1), user: vectors(columns.user, byIndex, rows: rows, scale: 1),
            gravity: vectors(columns.gravity, byIndex, rows: rows, scale: 1), header: csv.header,
            columns: [columns.accel, columns.user, columns.gravity].compactMap { $0 }.flatMap { $0 },
            option: options.accelerationUnit, source: csv.source, notes: &notes)
        let gyroScale = try rotationScale(
            rate: vectors(columns.gyro, byIndex, rows: rows, scale: 1), header: csv.header, columns: columns.gyro ?? [],
            option: options.rotationUnit, source: csv.source, notes: &notes)
        return (accelScale, gyroScale)
    }

    /// `rows` without those holding a value beyond every motion sensor's range; a note says how many
    /// of the file's `rowCount` rows were dropped and where the first was.
    /// - Throws: `InputError.tooShort` when fewer than 2 are left.
    private static func rowsInRange(_ keep: [Int], _ csv: CSVFile, _ columns: Columns, _ byIndex: [Int: [Double]],
                                    accelScale: (total: Double, user: Double, gravity: Double), gyroScale: Double,
                                    rowCount n: Int, notes: inout [String]) throws -> [Int] {
        // Samples beyond every sensor's range are dropped like NaN ones: one value of 1e200 turned a
        // log's 6 reps into 0 and an impact into "inf g".
        let accelerationLimits: [(idx: [Int], scale: Double)] = [
            (columns.accel, accelScale.total), (columns.user, accelScale.user), (columns.gravity, accelScale.gravity),
        ].compactMap { i, s in i.map { ($0, abs(s)) } }
        func outOfRange(_ r: Int) -> (column: Int, value: Double)? {
            for (idx, scale) in accelerationLimits {
                let v = Vector3(x: byIndex[idx[0]]![r] * scale, y: byIndex[idx[1]]![r] * scale, z: byIndex[idx[2]]![r] * scale)
                // A magnitude that overflows reads as inf, beyond the limit as it should.
                if !(v.magnitude <= maximumAcceleration) {
                    let worst = idx.max { abs(byIndex[$0]![r]) < abs(byIndex[$1]![r]) }!
                    return (worst, byIndex[worst]![r])
                }
            }
            if let gyroIdx = columns.gyro {
                for c in gyroIdx where abs(byIndex[c]![r]) * gyroScale > maximumRotationRate { return (c, byIndex[c]![r]) }
            }
            return nil
        }
        var inRange: [Int] = []
        inRange.reserveCapacity(keep.count)
        var firstOut: (row: Int, column: Int, value: Double)?
        for r in keep {
            if let bad = outOfRange(r) {
                if firstOut == nil { firstOut = (r, bad.column, bad.value) }
            } else {
                inRange.append(r)
            }
        }
        if let firstOut {
            notes.append(String(format: "dropped %d of %d rows with a value beyond any motion sensor's range (|acceleration| over %g g or a rotation rate over %g rad/s), the first at line %d, column '%@' (%.3g)",
                                keep.count - inRange.count, n, maximumAcceleration, maximumRotationRate,
                                csv.lineNumber(ofRow: firstOut.row), csv.header[firstOut.column], firstOut.value))
            guard inRange.count >= 2 else {
                throw InputError(.tooShort, "\(csv.source): fewer than 2 motion rows within the sensors' range")
            }
        }
        return inRange
    }

    /// Checks that gravity, when the log has it, reads 0.5-2 g in every row of `rows`.
    /// - Throws: `InputError.unsupportedFormat` naming the first row that does not.
    private static func checkGravity(_ keep: [Int], _ csv: CSVFile, _ columns: Columns, _ byIndex: [Int: [Double]],
                                     scale gravityScale: Double) throws {
        // Core Motion's gravity is a unit vector: a row far from 1 g is in another unit (a logger that
        // switched to m/s² part way read 9.3 g of gravity and impacts of 3.65 g for 0.37 g).
        guard let g = columns.gravity else { return }
        let scale = abs(gravityScale)
        let off = keep.lazy.map { r in
            (row: r, g: Vector3(x: byIndex[g[0]]![r], y: byIndex[g[1]]![r], z: byIndex[g[2]]![r]).magnitude * scale)
        }.filter { !($0.g >= 0.5 && $0.g <= 2) }
        if let first = off.first {
            throw InputError(.unsupportedFormat, String(
                format: "%@: gravity is a unit vector, but it reads %.3g g at line %d (%d of %d rows are not within 0.5-2 g): rows in another unit? convert the log to one unit",
                csv.source, first.g, csv.lineNumber(ofRow: first.row), off.count, keep.count))
        }
    }

    /// Sets each channel the log has from `rows` of `byIndex`, in Core Motion's units.
    private mutating func setChannels(_ columns: Columns, _ byIndex: [Int: [Double]], rows keep: [Int],
                                      accelScale: (total: Double, user: Double, gravity: Double), gyroScale: Double) {
        gravity = Self.vectors(columns.gravity, byIndex, rows: keep, scale: accelScale.gravity)?.map { $0.normalized }
        userAcceleration = Self.vectors(columns.user, byIndex, rows: keep, scale: accelScale.user)
        acceleration = Self.vectors(columns.accel, byIndex, rows: keep, scale: accelScale.total)
        rotationRate = Self.vectors(columns.gyro, byIndex, rows: keep, scale: gyroScale)
        magneticField = Self.vectors(columns.mag, byIndex, rows: keep, scale: 1)
        if let q = columns.quaternion {
            let w = byIndex[q[0]]!, x = byIndex[q[1]]!, y = byIndex[q[2]]!, z = byIndex[q[3]]!
            attitude = keep.map { Attitude(quaternion: Quaternion(w: w[$0], x: x[$0], y: y[$0], z: z[$0])) }
        } else if let e = columns.euler {
            let r = byIndex[e[0]]!, p = byIndex[e[1]]!, y = byIndex[e[2]]!
            attitude = keep.map { Attitude(roll: r[$0], pitch: p[$0], yaw: y[$0]) }
        }
        if let a = columns.altitude { relativeAltitude = keep.map { byIndex[a]![$0] } }
        if let p = columns.pressure { pressure = keep.map { byIndex[p]![$0] } }
    }

    /// Sets the median sampling rate and the gaps (said in a note) from the times.
    /// - Throws: `InputError.badRate` for samples closer than any motion sensor delivers them.
    private mutating func measureRateAndGaps() throws {
        var dts = [Double](repeating: 0, count: time.count - 1)
        for k in 1..<time.count { dts[k - 1] = time[k] - time[k - 1] }
        let sortedDt = dts.sorted()
        let medianDt = sortedDt[sortedDt.count / 2]
        // (10000.000001 Hz from times 1e-4 s apart stopped `vitals motion`: its rep counter takes 10 kHz at most.)
        sampleRate = measuredRate(1 / medianDt, atMost: Self.maximumSampleRate)
        guard sampleRate <= Self.maximumSampleRate else {
            throw InputError(.badRate, String(format: "%@: samples %.3g s apart (%.3g Hz) are faster than any motion sensor (%g Hz at most); are the times in seconds?",
                                              source, medianDt, sampleRate, Self.maximumSampleRate))
        }
        for k in 1..<time.count where dts[k - 1] > Self.gapFactor * medianDt {
            gaps.append((index: k, seconds: dts[k - 1]))
        }
        if !gaps.isEmpty {
            let longest = gaps.map(\.seconds).max()!
            notes.append(String(format: "%d gaps longer than %.3f s (longest %.1f s); filters and detectors restart after gaps over their own limit (0.5-1 s; the pedometer fills gaps up to %g s)",
                                gaps.count, Self.gapFactor * medianDt, longest, Pedometer.maximumFilledGap))
        }
    }

    // MARK: - Names

    /// A header name reduced for matching: lower case, unit suffix in parentheses and spaces removed.
    static func key(_ name: String) -> String {
        var s = name.lowercased()
        if let p = s.firstIndex(of: "(") { s = String(s[..<p]) }
        return s.filter { !$0.isWhitespace }
    }

    static let aliases: [String: [String]] = {
        var a: [String: [String]] = [
            "time": ["time", "time_s", "t", "timestamp", "timestamp_s", "loggingtime", "timestampsaved", "_time",
                     "motiontimestamp_sincereboot", "accelerometertimestamp_sincereboot", "seconds_elapsed",
                     "timestamp_ns", "time_ms", "timestamp_ms"],
            "quat.w": ["motionquaternionw", "quaternionw", "quat_w", "qw"],
            "quat.x": ["motionquaternionx", "quaternionx", "quat_x", "qx"],
            "quat.y": ["motionquaterniony", "quaterniony", "quat_y", "qy"],
            "quat.z": ["motionquaternionz", "quaternionz", "quat_z", "qz"],
            "roll": ["motionroll", "device:roll", "roll"],
            "pitch": ["motionpitch", "device:pitch", "pitch"],
            "yaw": ["motionyaw", "device:yaw", "yaw"],
            "altitude": ["altimeterrelativealtitude", "relativealtitude", "relative_altitude", "altitude"],
            "pressure": ["altimeterpressure", "pressure"],
        ]
        for axis in ["x", "y", "z"] {
            a["gravity.\(axis)"] = ["motiongravity\(axis)", "device:\(axis)gravity", "gravity_\(axis)", "gravity\(axis)",
                                    "gravity.\(axis)", "grav_\(axis)"]
            a["user.\(axis)"] = ["motionuseracceleration\(axis)", "device:\(axis)acceleration", "useracceleration_\(axis)",
                                 "useracceleration\(axis)", "user_acc_\(axis)", "user.\(axis)"]
            a["accel.\(axis)"] = ["accelerometeracceleration\(axis)", "acceleration\(axis)", "acceleration_\(axis)",
                                  "accel_\(axis)", "acc_\(axis)", "acc\(axis)", "a\(axis)", "accel.\(axis)"]
            a["gyro.\(axis)"] = ["motionrotationrate\(axis)", "device:\(axis)rotationrate", "gyrorotation\(axis)",
                                 "rotationrate\(axis)", "rotationrate_\(axis)", "gyro_\(axis)", "gyr_\(axis)", "gyro\(axis)",
                                 "g\(axis)", "gyro.\(axis)"]
            a["mag.\(axis)"] = ["motionmagneticfield\(axis)", "magnetometer\(axis)", "mag_\(axis)", "magneticfield\(axis)",
                                "m\(axis)", "mag.\(axis)"]
        }
        return a
    }()

    /// Columns named by Core Motion or Exermote carry Core Motion's units by definition.
    static func isCoreMotionName(_ name: String) -> Bool {
        let k = key(name)
        return k.hasPrefix("motion") || k.hasPrefix("device:") || k.hasPrefix("accelerometeracceleration")
            || k.hasPrefix("gyrorotation")
    }

    /// A unit written in the header, as in `accelerometerAccelerationX(G)` or `gyro_x (deg/s)`.
    static func headerUnit(_ name: String) -> String? {
        guard let open = name.firstIndex(of: "("), let close = name.lastIndex(of: ")"), open < close else { return nil }
        return name[name.index(after: open)..<close].lowercased().replacingOccurrences(of: " ", with: "")
    }

    // MARK: - Units

    static func accelerationScale(total: [Vector3]?, user: [Vector3]?, gravity: [Vector3]?, header: [String],
                                  columns: [Int], option: AccelerationUnit?, source: String,
                                  notes: inout [String]) throws -> (total: Double, user: Double, gravity: Double) {
        // Median magnitude tells g (about 1 with gravity) from m/s² (about 9.8).
        func medianMagnitude(_ v: [Vector3]) -> Double {
            let m = v.map(\.magnitude).sorted()
            return m.isEmpty ? .nan : m[m.count / 2]
        }
        var declared: [Int: AccelerationUnit] = [:]
        for c in columns {
            if let u = headerUnit(header[c]) {
                if u == "g" { declared[c] = .g } else if u.hasPrefix("m/s") { declared[c] = .metersPerSecondSquared }
            } else if isCoreMotionName(header[c]) {
                declared[c] = .g
            }
        }
        if Set(declared.values).count > 1 {
            throw InputError(.unsupportedFormat, "\(source): acceleration columns mix units (\(declared.map { "\(header[$0.key]): \($0.value.rawValue)" }.sorted().joined(separator: ", "))); convert them to one unit")
        }
        let headerUnitValue = declared.values.first
        // The channel with gravity in it decides what the data say.
        let probe = total ?? gravity
        let probeMedian = probe.map(medianMagnitude) ?? .nan
        let looksLike: AccelerationUnit? = probeMedian.isFinite
            ? (probeMedian > 4 && probeMedian < 20 ? .metersPerSecondSquared : (probeMedian > 0.4 && probeMedian < 2 ? .g : nil))
            : nil
        let unit: AccelerationUnit
        if let option {
            if let looksLike, looksLike != option {
                throw InputError(.unsupportedFormat, String(format: "%@: --accel-unit %@ contradicts the data (median |a| = %.2f, which looks like %@)", source, option.rawValue, probeMedian, looksLike.rawValue))
            }
            unit = option
        } else if let headerUnitValue {
            if let looksLike, looksLike != headerUnitValue {
                throw InputError(.unsupportedFormat, String(format: "%@: acceleration columns are named as %@ but read a median |a| of %.2f (looks like %@); pass --accel-unit", source, headerUnitValue.rawValue, probeMedian, looksLike.rawValue))
            }
            unit = headerUnitValue
        } else if let looksLike {
            unit = looksLike
            if !columns.isEmpty {
                notes.append(String(format: "acceleration unit not stated: read as %@ (median |a| = %.2f); pass --accel-unit to override", unit.rawValue, probeMedian))
            }
            if unit == .metersPerSecondSquared {
                notes.append("m/s² read as specific force (+1 g up at rest, Android/IMU convention) and negated into Core Motion's convention")
            }
        } else {
            if total != nil || gravity != nil {
                throw InputError(.unsupportedFormat, String(format: "%@: cannot tell the acceleration unit (median |a| = %.3g is neither about 1 g nor 9.8 m/s²); pass --accel-unit g|m/s2", source, probeMedian))
            }
            unit = .g
        }
        let s = unit.toG
        return (s, s, s)
    }

    static func rotationScale(rate: [Vector3]?, header: [String], columns: [Int], option: RotationUnit?,
                              source: String, notes: inout [String]) throws -> Double {
        guard let rate else { return 1 }
        var declared: Set<RotationUnit> = []
        for c in columns {
            if let u = headerUnit(header[c]) {
                if u.hasPrefix("rad") { declared.insert(.radiansPerSecond) } else if u.hasPrefix("deg") || u == "°/s" { declared.insert(.degreesPerSecond) }
            } else if isCoreMotionName(header[c]) {
                declared.insert(.radiansPerSecond)
            }
        }
        if declared.count > 1 {
            throw InputError(.unsupportedFormat, "\(source): rotation-rate columns mix rad/s and deg/s; convert them to one unit")
        }
        // No gyroscope reads beyond `maximumRotationRate` (4000 deg/s); a 99th percentile above it
        // cannot be rad/s.
        let mags = rate.map { max(abs($0.x), abs($0.y), abs($0.z)) }.sorted()
        let p99 = mags[min(mags.count - 1, Int(Double(mags.count) * 0.99))]
        let impossibleForRadians = p99 > maximumRotationRate
        let unit: RotationUnit
        if let option {
            if option == .radiansPerSecond && impossibleForRadians {
                throw InputError(.unsupportedFormat, String(format: "%@: --gyro-unit rad/s contradicts the data (99th percentile %.3g rad/s is beyond any gyroscope; looks like deg/s)", source, p99))
            }
            unit = option
        } else if let u = declared.first {
            if u == .radiansPerSecond && impossibleForRadians {
                throw InputError(.unsupportedFormat, String(format: "%@: rotation-rate columns are named as rad/s but reach %.3g (99th percentile); pass --gyro-unit deg/s", source, p99))
            }
            unit = u
        } else {
            // Not stated anywhere: deg/s data at rest can look small, so lean on what moving data shows.
            unit = p99 > 12 ? .degreesPerSecond : .radiansPerSecond
        }
        // Whatever the unit, values beyond every gyroscope's range are not rotation rates.
        guard p99 * unit.toRadiansPerSecond <= maximumRotationRate else {
            throw InputError(.unsupportedFormat, String(format: "%@: rotation rate reaches %.3g %@ (99th percentile), beyond any gyroscope (%g rad/s = 4000 deg/s)",
                                                        source, p99, unit.rawValue, maximumRotationRate))
        }
        if option == nil && declared.isEmpty {
            notes.append(String(format: "rotation-rate unit not stated: read as %@ (99th percentile %.1f); pass --gyro-unit to override", unit.rawValue, p99))
        }
        return unit.toRadiansPerSecond
    }

    /// Numeric time in unusual units, recognised from its spacing: nanoseconds (median step
    /// above 10^5), or epoch microseconds / milliseconds (median step of at least 1 with values
    /// above 10^14 / 10^11: epoch milliseconds reach 10^14 only in the year 5138).
    static func timeScaleFromSpacing(_ t: [Double]) -> (factor: Double, note: String)? {
        guard t.count > 2 else { return nil }
        var d: [Double] = []
        for k in 1..<min(t.count, 2000) { d.append(t[k] - t[k - 1]) }
        d.sort()
        let step = d[d.count / 2]
        // The step as an integer when it is one a person reads (Int(step) traps beyond Int.max, as
        // for times near 1e300).
        let stepText = abs(step) < 1e15 ? "\(Int(step))" : String(format: "%.3g", step)
        if step > 1e5 { return (1e-9, "time column read as nanoseconds (median step \(stepText))") }
        if step >= 1 && t[0] > 1e14 { return (1e-6, "time column read as epoch microseconds (median step \(stepText))") }
        if step >= 1 && t[0] > 1e11 { return (1e-3, "time column read as epoch milliseconds (median step \(stepText))") }
        return nil
    }
}

/// InfluxDB's annotated CSV: `#group`/`#datatype`/`#default` lines, a header starting with an empty
/// field (`,result,table,_time,...`), tables separated by blank lines with the header repeated.
enum InfluxAnnotatedCSV {
    static func isAnnotated(_ bytes: [UInt8]) -> Bool {
        let prefixes = ["#group", "#datatype", "#default"].map { Array($0.utf8) }
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        return prefixes.contains { bytes[start...].starts(with: $0) }
    }

    /// The same rows as plain CSV with one header: the header first, then every later line of the
    /// input in place, annotations, blank lines and repeated headers left blank (so a data row keeps
    /// its line number for messages; the reader skips blank lines). A UTF-8 byte-order mark is dropped.
    static func plainCSV(_ bytes: [UInt8]) -> [UInt8] {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        // Lines as ranges without their CR LF / LF ending.
        var lines: [Range<Int>] = []
        var i = start
        while i < bytes.count {
            var end = i
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            var stop = end
            while stop > i && bytes[stop - 1] == 0x0D { stop -= 1 }
            lines.append(i..<stop)
            i = end + 1
        }
        func isRow(_ r: Range<Int>) -> Bool {
            let line = bytes[r]
            return !line.allSatisfy { $0 == 0x20 || $0 == 0x2C } && line.first != UInt8(ascii: "#")
        }
        guard let headerRange = lines.first(where: isRow) else { return [] }
        let header = bytes[headerRange]
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        out.append(contentsOf: header)
        out.append(0x0A)
        // The first line is an annotation (that is how the layout is recognised): the header takes its place.
        for r in lines.dropFirst() {
            if isRow(r) && !bytes[r].elementsEqual(header) { out.append(contentsOf: bytes[r]) }
            out.append(0x0A)
        }
        return out
    }
}

/// Date-time text as loggers write it, to seconds on a continuous scale (days since 1970 × 86400 +
/// seconds of day, minus a stated UTC offset). Accepts `YYYY-MM-DD hh:mm:ss`, a `T` instead of the
/// space, a fraction after `.` or `:` (Exermote's `ss:mmm`), and `Z`, `±hh:mm` or `±hhmm` offsets.
enum DateText {
    static func seconds(_ s: String) -> Double? {
        let b = Array(s.utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= b.count else { return nil }
            var v = 0
            for k in 0..<digits {
                let c = b[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += digits
            return v
        }
        func expect(_ set: [UInt8]) -> Bool {
            guard i < b.count, set.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect([45]), let month = number(2), expect([45]), let day = number(2),
              expect([32, 84]), let hour = number(2), expect([58]), let minute = number(2), expect([58]),
              let second = number(2) else { return nil }
        guard (1...12).contains(month), hour < 24, minute < 60, second < 61 else { return nil }
        // The month's own length: 30 February or 31 April is no date (it rolled into the next month).
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        guard day >= 1, day <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] else { return nil }
        var fraction = 0.0
        if i < b.count && (b[i] == 46 || b[i] == 58) {
            i += 1
            var scale = 0.1
            var any = false
            while i < b.count && b[i] >= 48 && b[i] <= 57 {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
                any = true
            }
            if !any { return nil }
        }
        while i < b.count && b[i] == 32 { i += 1 }
        var offset = 0
        if i < b.count {
            if b[i] == 90 { i += 1 } else if b[i] == 43 || b[i] == 45 {
                let sign = b[i] == 45 ? -1 : 1
                i += 1
                guard let oh = number(2) else { return nil }
                _ = expect([58])
                let om = number(2) ?? 0
                offset = sign * (oh * 3600 + om * 60)
            } else { return nil }
        }
        guard i == b.count else { return nil }
        // Days from civil (H. Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return Double(days * 86400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }
}
