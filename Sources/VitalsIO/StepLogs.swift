import Foundation
import MotionAnalysis
import SignalProcessing

/// An accelerometer recording for the pedometer: times in seconds from the first sample, acceleration
/// in g with gravity included, and relative altitude when the log has it.
public struct AccelerationRecording: Sendable {
    /// Which layout the file was read as: "oxford", "ipol" or "motion-log".
    public var format: String
    /// Where it came from.
    public var source: String
    /// Seconds from the first sample, non-decreasing.
    public var time: [Double]
    /// The first sample's time on the file's own clock, seconds (0 for a motion log, whose clock is
    /// not kept): a file time is `startTime` + a `time`.
    public var startTime: Double = 0
    /// Acceleration in g, gravity included, device frame.
    public var acceleration: [Vector3]
    /// Relative altitude samples (metres), when present.
    public var altitude: [AltitudeSample]?
    /// Corrections and assumptions, one sentence each (print on stderr).
    public var notes: [String] = []
    /// Gaps longer than `StepLogs.minimumReportedGap` (1 s): (index of the first sample after the gap,
    /// length s).
    public var gaps: [(index: Int, seconds: Double)] = []

    /// The samples as `AccelerometerSample`s.
    public var samples: [AccelerometerSample] {
        zip(time, acceleration).map { AccelerometerSample(time: $0, acceleration: $1) }
    }

    /// Duration in seconds.
    public var duration: Double { (time.last ?? 0) - (time.first ?? 0) }
}

/// Readers for the step-counting layouts: the Oxford step counter set, IPOL lower-back gait files,
/// and the motion CSV logs of `MotionLog`.
public enum StepLogs {
    /// One g in m/s² (standard gravity).
    public static let standardGravity = 9.80665

    /// Slowest sampling the pedometer can count steps from, Hz: twice the 3.5 Hz upper edge of the
    /// step band it filters (a slower log aliases the steps away and would read as 0 steps).
    public static let minimumSampleRate = 7.0

    /// Median |acceleration| a real accelerometer log has, g: gravity dominates it (the same range
    /// `MotionLog` reads a unit from). Outside it the numbers are not accelerations in the stated unit.
    public static let plausibleMedianMagnitude = 0.4...2.0

    /// Checks the sampling rate (median interval) and the size of the acceleration.
    /// - Throws: `InputError.badRate` for a rate below ``minimumSampleRate`` or above
    ///   `MotionLog.maximumSampleRate`, `InputError.unsupportedFormat` for a median |a| outside
    ///   ``plausibleMedianMagnitude``.
    static func checkPlausible(_ r: AccelerationRecording) throws {
        var intervals = [Double](repeating: 0, count: r.time.count - 1)
        for i in intervals.indices { intervals[i] = r.time[i + 1] - r.time[i] }
        let rate = measuredRate(1 / intervals.withUnsafeMutableBufferPointer { Statistics.selectMedian($0) },
                                atMost: MotionLog.maximumSampleRate)
        guard rate >= minimumSampleRate, rate <= MotionLog.maximumSampleRate else {
            throw InputError(.badRate, String(format: "%@: sample rate %.3g Hz is outside %g Hz...%g kHz (steps need %g Hz or more; check the time unit or the stated frequency)",
                                              r.source, rate, minimumSampleRate, MotionLog.maximumSampleRate / 1000, minimumSampleRate))
        }
        var magnitudes = r.acceleration.map(\.magnitude)
        let median = magnitudes.withUnsafeMutableBufferPointer { Statistics.selectMedian($0) }
        guard plausibleMedianMagnitude.contains(median) else {
            // In g, the numbers would read 9.8 times larger: say so when that is where 1 g lies.
            let hint = r.format != "motion-log" && plausibleMedianMagnitude.contains(median * standardGravity)
                ? " (they look like g: pass --accel-unit g)" : ""
            throw InputError(.unsupportedFormat, String(format: "%@: median |acceleration| is %.3g g; an accelerometer reads about 1 g (gravity), so these are not accelerations in the %@ unit%@",
                                                        r.source, median, r.format == "motion-log" ? "stated" : "layout's (m/s²)", hint))
        }
    }

    /// g per unit of a fixed layout's (Oxford's, IPOL's) x, y, z columns: m/s² unless
    /// `options.accelerationUnit` (`--accel-unit`) says otherwise.
    static func fixedLayoutScale(_ options: MotionLogOptions) -> Double {
        options.accelerationUnit.map { abs($0.toG) } ?? 1 / standardGravity
    }

    /// The Oxford layout's column names, which its files may carry as a header line.
    static let oxfordHeader = ["timestamp_ns", "sensor_type", "x", "y", "z"]

    /// Whether `line` is the Oxford header `timestamp_ns,sensor_type,x,y,z` (any case, spaces, BOM).
    static func isOxfordHeader<S: StringProtocol>(_ line: S) -> Bool {
        var names = line.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\"\u{FEFF}")).lowercased() }
        while names.last == "" { names.removeLast() }  // a trailing separator (spreadsheet exports)
        return names == oxfordHeader
    }

    /// Reads an accelerometer recording, recognising the layout by content: Oxford
    /// (`timestamp_ns,sensor_type,x,y,z` in m/s², with or without that header line), IPOL
    /// (`Acquisition frequency: N Hz` then a tab-separated `PacketCounter Acc_X Acc_Y Acc_Z ...`
    /// header, m/s²), otherwise a motion CSV log read with `options` (columns and units; the other
    /// layouts have fixed ones, and a note says the options were not used).
    /// - Throws: `InputError` for missing files, unknown layouts, non-numbers, time going backwards,
    ///   or fewer than 2 samples.
    public static func read(path: String, options: MotionLogOptions = MotionLogOptions()) throws -> AccelerationRecording {
        // The layout is told from the head; only the fixed layouts are read whole here (a pipe is read
        // whole at once, as it cannot be read again).
        let pipe = !isRegularFile(path)
        let bytes = pipe ? try readInputFile(path, text: true) : try readInputHead(path, count: 512)
        // A UTF-8 byte-order mark (a spreadsheet's "CSV UTF-8") is not part of the first field: with
        // it, a headerless Oxford file's first timestamp was no number and the file a motion log.
        let head = String(decoding: bytes.prefix(512).dropFirst(bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0), as: UTF8.self)
        let whole = { pipe ? bytes : try readInputFile(path) }
        // The fixed layouts' columns are their own; their unit (m/s²) gives way to --accel-unit.
        let unusedGiven = !options.columns.isEmpty || options.rotationUnit != nil
        let scale = fixedLayoutScale(options)
        func fixedLayout(_ r: AccelerationRecording) -> AccelerationRecording {
            var r = r
            if unusedGiven {
                r.notes.append("--columns and --gyro-unit apply to motion CSV logs; not used for the \(r.format) layout (fixed columns)")
            }
            if let unit = options.accelerationUnit {
                r.notes.append("acceleration read in \(unit.rawValue) as --accel-unit says (the \(r.format) layout's own unit is m/s²)")
            }
            return r
        }
        if head.contains("PacketCounter") || head.hasPrefix("Acquisition frequency") {
            return fixedLayout(try readIPOL(bytes: try whole(), source: path, accelerationScale: scale))
        }
        let firstLine = head.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let fields = firstLine.split(separator: ",")
        let numeric = !fields.isEmpty && fields.allSatisfy({ Double($0.trimmingCharacters(in: .whitespaces)) != nil })
        if numeric && fields.count == 5 || isOxfordHeader(firstLine) {
            return fixedLayout(try readOxford(bytes: try whole(), source: path, accelerationScale: scale))
        }
        if numeric {
            throw InputError(.unsupportedFormat, "\(path): line 1 is \(fields.count) numbers and no header; the headerless layout this reads is Oxford's 5 columns timestamp_ns,sensor_type,x,y,z (a motion CSV log needs a header line)")
        }
        if pipe { return try recording(from: try MotionLog.parse(bytes: bytes, source: path, options: options), path: path) }
        return try readMotionLog(path: path, options: options)
    }

    /// Reads the Oxford step-counter layout: `timestamp_ns,sensor_type,x,y,z` (the data set's files
    /// have no header; a first line naming those columns is read as one), acceleration in m/s² with
    /// gravity. The set logs one sensor per file (its type code differs between phones: 2 or 3), so
    /// every row is taken as an accelerometer row, and a file mixing sensor types is refused rather
    /// than read as one sensor.
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - source: the file's name, used in error messages and kept as the recording's source.
    ///   - accelerationScale: g per unit of the x, y, z columns (m/s² by default).
    /// - Throws: `InputError` (non-numeric field, mixed sensor types, time going backwards, too few rows).
    public static func readOxford(bytes: [UInt8], source: String,
                                  accelerationScale: Double = 1 / standardGravity) throws -> AccelerationRecording {
        let firstLine = bytes.prefix { $0 != 0x0A }
        let hasHeader = isOxfordHeader(String(decoding: firstLine, as: UTF8.self))
        let csv = try CSVFile(bytes: bytes, source: source, hasHeader: hasHeader)
        guard csv.header.count >= 5 else {
            throw InputError(.unsupportedFormat, "\(source): expected 5 columns timestamp_ns,sensor_type,x,y,z, found \(csv.header.count)")
        }
        let cols = try csv.numericColumns([0, 1, 2, 3, 4])
        // A row cut short (a truncated file) is a missing value, not another sensor.
        if let i = cols[1].indices.first(where: { r in cols.contains { !$0[r].isFinite } }) {
            throw InputError(.nonFinite, "\(source): line \(csv.lineNumber(ofRow: i)) has an empty or non-finite value")
        }
        if let first = cols[1].first, let other = cols[1].firstIndex(where: { $0 != first }) {
            throw InputError(.unsupportedFormat,
                             "\(source): rows of more than one sensor type (\(String(format: "%g", first)) and \(String(format: "%g", cols[1][other])) at line \(csv.lineNumber(ofRow: other))); keep the accelerometer's rows only")
        }
        return try assemble(format: "oxford", source: source, rawTime: cols[0], timeScale: 1e-9,
                            x: cols[2], y: cols[3], z: cols[4], scale: accelerationScale, line: csv.lineNumber(ofRow:))
    }

    /// Reads an IPOL gait file (`*_lb.txt`): header lines, then tab-separated `PacketCounter, Acc_X,
    /// Acc_Y, Acc_Z, ...` in m/s² at the stated acquisition frequency (100 Hz when not stated).
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - source: the file's name, used in error messages and kept as the recording's source.
    ///   - accelerationScale: g per unit of the Acc columns (m/s² by default).
    /// - Throws: `InputError` (no header row, missing columns, non-numbers).
    public static func readIPOL(bytes: [UInt8], source: String,
                                accelerationScale: Double = 1 / standardGravity) throws -> AccelerationRecording {
        var rate = 100.0
        var notes: [String] = []
        var offset = 0
        var found = false
        while offset < bytes.count {
            let end = bytes[offset...].firstIndex(of: 0x0A) ?? bytes.count
            let line = String(decoding: bytes[offset..<end], as: UTF8.self)
            if line.hasPrefix("PacketCounter") || line.contains("Acc_X") {
                found = true
                break
            }
            if line.hasPrefix("Acquisition frequency") {
                // "Acquisition frequency: 100 Hz": one number, then Hz and nothing else (a digit filter
                // read "1e2 Hz" as 12 Hz and "100 Hz (v2.0)" as 1002 Hz).
                let words = line.split(separator: ":", maxSplits: 1).last?.split(whereSeparator: \.isWhitespace) ?? []
                guard words.count == 2, words[1].lowercased() == "hz", let r = Double(words[0]), r > 0, r.isFinite else {
                    throw InputError(.badRate, "\(source): '\(line.prefix(60))' does not state a sample rate as 'N Hz'")
                }
                // Times are sample counts over this rate: a rate like 5e-324 Hz made them inf * 0 = NaN,
                // and the message that followed named a rate of "-nan Hz".
                guard r >= minimumSampleRate, r <= MotionLog.maximumSampleRate else {
                    throw InputError(.badRate, String(format: "%@: the stated acquisition frequency %.3g Hz is outside %g Hz...%g kHz (steps need %g Hz or more)",
                                                      source, r, minimumSampleRate, MotionLog.maximumSampleRate / 1000, minimumSampleRate))
                }
                rate = r
            }
            offset = end + 1
        }
        guard found else {
            throw InputError(.missingColumn, "\(source): no 'PacketCounter Acc_X Acc_Y Acc_Z' header line")
        }
        if !String(decoding: bytes.prefix(offset), as: UTF8.self).contains("Acquisition frequency") {
            notes.append("no acquisition frequency stated; assumed 100 Hz")
        }
        // The header line first, then a blank line for each line above it, so that CSVFile's line
        // numbers (in its own and our messages) are the file's.
        let headerEnd = bytes[offset...].firstIndex(of: 0x0A) ?? bytes.count
        let linesAbove = bytes[..<offset].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        var table = Array(bytes[offset..<headerEnd])
        table.append(contentsOf: [UInt8](repeating: 0x0A, count: linesAbove + 1))
        if headerEnd < bytes.count { table.append(contentsOf: bytes[(headerEnd + 1)...]) }
        let csv = try CSVFile(bytes: table, source: source)
        let counter = try csv.requireColumn("PacketCounter")
        let ax = try csv.requireColumn("Acc_X"), ay = try csv.requireColumn("Acc_Y"), az = try csv.requireColumn("Acc_Z")
        let cols = try csv.numericColumns([counter, ax, ay, az])
        var rec = try assemble(format: "ipol", source: source, rawTime: unwrapSampleCounter(cols[0]), timeScale: 1 / rate,
                               x: cols[1], y: cols[2], z: cols[3], scale: accelerationScale, line: csv.lineNumber(ofRow:))
        rec.notes += notes
        return rec
    }

    /// Xsens' PacketCounter is a 16-bit sample counter: it wraps to 0 after 65535 (655 s at 100 Hz).
    /// Each drop by more than half its range is a wrap, undone by adding 65536; other drops are left
    /// for the time check to report.
    static func unwrapSampleCounter(_ counter: [Double]) -> [Double] {
        var out = counter
        var offset = 0.0
        for i in 1..<max(1, counter.count) {
            if counter[i - 1] - counter[i] > 32_768 { offset += 65_536 }
            out[i] = counter[i] + offset
        }
        return out
    }

    /// Reads a motion CSV log (see `MotionLog`, read with `options`): total acceleration if present,
    /// else gravity + user acceleration; relative altitude when present.
    /// - Throws: `InputError` from `MotionLog`, or when the log has no acceleration.
    public static func readMotionLog(path: String, options: MotionLogOptions = MotionLogOptions()) throws -> AccelerationRecording {
        try recording(from: try MotionLog.read(path: path, options: options), path: path)
    }

    private static func recording(from log: MotionLog, path: String) throws -> AccelerationRecording {
        var acc: [Vector3]
        if let a = log.acceleration {
            acc = a
        } else if let g = log.gravity, let u = log.userAcceleration {
            acc = zip(g, u).map { $0 + $1 }
        } else {
            throw InputError(.missingColumn, "\(path): the log has no accelerometer (total, or gravity + user acceleration) columns")
        }
        var altitude: [AltitudeSample]?
        if let h = log.relativeAltitude {
            let p = log.pressure ?? [Double](repeating: .nan, count: h.count)
            altitude = []
            for i in h.indices where h[i].isFinite {
                altitude!.append(AltitudeSample(time: log.time[i], relativeAltitude: h[i], pressure: p[i]))
            }
        }
        guard log.count >= 2 else { throw InputError(.tooShort, "\(path): fewer than 2 samples") }
        // MotionLog's notes already state its gaps (over 3 median intervals); `gaps` counts those over
        // 1 s, as for the other layouts.
        let recording = AccelerationRecording(format: "motion-log", source: path, time: log.time, acceleration: acc,
                                              altitude: altitude, notes: log.notes, gaps: gaps(log.time))
        try checkPlausible(recording)
        return recording
    }

    /// The recording from raw columns; `line` gives the file line of data row i for messages.
    private static func assemble(format: String, source: String, rawTime: [Double], timeScale: Double,
                                 x: [Double], y: [Double], z: [Double], scale: Double,
                                 line: (Int) -> Int) throws -> AccelerationRecording {
        guard rawTime.count >= 2 else { throw InputError(.tooShort, "\(source): fewer than 2 samples") }
        var time = [Double](repeating: 0, count: rawTime.count)
        var acc = [Vector3](repeating: .zero, count: rawTime.count)
        let t0 = rawTime[0]
        for i in rawTime.indices {
            guard rawTime[i].isFinite, x[i].isFinite, y[i].isFinite, z[i].isFinite else {
                throw InputError(.nonFinite, "\(source): line \(line(i)) has an empty or non-finite value")
            }
            let t = (rawTime[i] - t0) * timeScale
            if i > 0 && t < time[i - 1] {
                throw InputError(.badTimestamps, "\(source): time goes backwards at line \(line(i))")
            }
            time[i] = t
            acc[i] = Vector3(x: x[i] * scale, y: y[i] * scale, z: z[i] * scale)
        }
        guard time[time.count - 1] > 0 else {
            throw InputError(.badTimestamps, "\(source): every sample has the same time")
        }
        var recording = AccelerationRecording(format: format, source: source, time: time, acceleration: acc)
        recording.startTime = t0 * timeScale
        try checkPlausible(recording)
        // The pedometer skips samples beyond any accelerometer's range; say so rather than let a
        // corrupt value pass unmentioned.
        let beyond = acc.indices.filter { !(acc[$0].magnitude <= Pedometer.maximumAcceleration) }
        if let first = beyond.first {
            recording.notes.append(String(format: "%d %@ with |acceleration| over %g g (beyond any accelerometer) skipped, the first at line %d (an axis at %.3g g)",
                                          beyond.count, beyond.count == 1 ? "sample" : "samples", Pedometer.maximumAcceleration,
                                          line(first), max(abs(acc[first].x), abs(acc[first].y), abs(acc[first].z))))
        }
        recording.gaps = gaps(time)
        if let note = gapNote(recording) { recording.notes.append(note) }
        return recording
    }

    /// Shortest gap reported, s: the slowest walk's steps are about 1 s apart, so a longer hole in the
    /// samples can hide steps. Shorter ones (the dropped 0.1-s packets of IPOL files, Android's
    /// irregular timing) cannot and are not worth a warning.
    public static let minimumReportedGap = 1.0

    /// Intervals longer than ``minimumReportedGap`` (dropped packets, a logger paused):
    /// (index of the first sample after the gap, length s).
    static func gaps(_ time: [Double]) -> [(index: Int, seconds: Double)] {
        var out: [(index: Int, seconds: Double)] = []
        for k in time.indices.dropFirst() where time[k] - time[k - 1] > minimumReportedGap {
            out.append((k, time[k] - time[k - 1]))
        }
        return out
    }

    /// One line on the recording's gaps, nil when it has none: steps in them are not counted.
    static func gapNote(_ r: AccelerationRecording) -> String? {
        guard let longest = r.gaps.max(by: { $0.seconds < $1.seconds }) else { return nil }
        let total = r.gaps.reduce(0) { $0 + $1.seconds }
        return String(format: "%d %@ longer than %g s in the recording (%.1f s in all; longest %.1f s, from %.2f s): steps in them are not counted; the pedometer fills gaps up to %g s and restarts after longer ones",
                      r.gaps.count, r.gaps.count == 1 ? "gap" : "gaps", minimumReportedGap, total, longest.seconds,
                      r.time[longest.index - 1], Pedometer.maximumFilledGap)
    }
}

/// Everything `vitals steps` reports about one recording.
public struct StepAnalysis: Sendable {
    /// Step contact times, seconds from the first sample.
    public var stepTimes: [Double]
    /// Pause and resume events in report order.
    public var events: [PedometerEvent]
    /// Totals over the whole recording.
    public var data: PedometerData
    /// Number of gaps over 1 s in the recording (`AccelerationRecording.gaps`).
    public var gaps: Int

    /// Runs the pedometer over `recording` (the streaming code, sample by sample).
    public init(recording: AccelerationRecording, strideModel: StrideModel = StrideModel()) {
        var pedometer = Pedometer(strideModel: strideModel)
        var steps: [Double] = []
        var events: [PedometerEvent] = []
        func take(_ e: PedometerEvent) {
            if e.kind == .step { steps.append(e.time) } else { events.append(e) }
        }
        // Altitude and acceleration in time order, as they arrive live: floors count while walking.
        let altitude = recording.altitude ?? []
        var next = 0
        for i in recording.time.indices {
            while next < altitude.count && altitude[next].time <= recording.time[i] {
                pedometer.process(altitude[next])
                next += 1
            }
            for e in pedometer.process(AccelerometerSample(time: recording.time[i], acceleration: recording.acceleration[i])) {
                take(e)
            }
        }
        for a in altitude[next...] { pedometer.process(a) }
        for e in pedometer.finish() { take(e) }
        stepTimes = steps.sorted()
        self.events = events
        data = pedometer.data
        gaps = recording.gaps.count
    }

    /// The `vitals steps --json` document (fields fixed by issue 5; later fields are additions).
    public var json: JSON {
        .object([
            ("steps", .number(Double(data.numberOfSteps))),
            ("distance_m", .num(data.distance, digits: 2)),
            ("cadence_steps_per_s", .num(data.averageCadence, digits: 3)),
            ("floors_ascended", data.floorsAscended.map { .number(Double($0)) } ?? .null),
            ("step_times_s", .array(stepTimes.map { .num($0, digits: 3) })),
            ("events", .array(events.map {
                .object([("type", .string($0.kind.rawValue)), ("time_s", .num($0.time, digits: 3)),
                         ("reported_at_s", .num($0.reportedAt, digits: 3))])
            })),
            ("active_s", .num(data.activeTime, digits: 2)),
            ("average_active_pace_s_per_m", .num(data.averageActivePace, digits: 3)),
            ("floors_descended", data.floorsDescended.map { .number(Double($0)) } ?? .null),
            ("duration_s", .num(data.endDate - data.startDate, digits: 2)),
            ("gaps", .number(Double(gaps))),
        ])
    }
}
