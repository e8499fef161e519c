import Foundation
import MotionAnalysis
import SignalProcessing

/// Accuracy measurements of the motion pipelines on recorded data sets (`vitals eval ...`).
/// Reading truth labels happens only here, never in a detector.
public enum MotionEvaluation {
    /// CSV files in `directory`, sorted by name.
    /// - Throws: `InputError.fileNotFound` when the directory is missing or holds no CSV.
    public static func csvFiles(in directory: String) throws -> [String] {
        let files = try directoryEntries(directory).filter { $0.lowercased().hasSuffix(".csv") }
        guard !files.isEmpty else { throw InputError(.fileNotFound, "\(directory): no .csv files") }
        return files.map { (directory as NSString).appendingPathComponent($0) }
    }

    /// The Exermote logs in `directory` (CSV files whose header names `exerciseType`, the label the
    /// evaluations score against) and the names of the other CSV files, which are not evaluated.
    /// - Throws: `InputError.fileNotFound` when the directory is missing, holds no CSV, or holds no
    ///   Exermote log (naming the files ignored).
    public static func exermoteFiles(in directory: String) throws -> (files: [String], ignored: [String]) {
        var files: [String] = [], ignored: [String] = []
        for path in try csvFiles(in: directory) {
            // The first 64 KiB, for the header line. A folder named *.csv is an error naming it, as
            // other inputs' are (FileHandle opened it and its read trapped in Foundation's `try!`).
            try checkInputPath(path)
            var head = ""
            if let file = FileBlocks(path: path, blockSize: 1 << 16) {
                _ = try file.readMore(1 << 16, source: path)
                head = String(decoding: file.bytes, as: UTF8.self)
            }
            let header = (try? CSVFile(bytes: Array(head.prefix { $0 != "\n" && $0 != "\r" }.utf8), source: path))?.header ?? []
            if header.contains(where: { $0.trimmingCharacters(in: .whitespaces) == "exerciseType" }) {
                files.append(path)
            } else {
                ignored.append((path as NSString).lastPathComponent)
            }
        }
        guard !files.isEmpty else {
            throw InputError(.fileNotFound, "\(directory): no Exermote log (a CSV whose header names exerciseType); ignored \(ignored.joined(separator: ", "))")
        }
        return (files, ignored)
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

    /// The columns the attitude evaluations compare: the log's gravity, user acceleration and rotation rate.
    /// - Throws: `InputError.missingColumn` when the log lacks one of them.
    static func attitudeColumns(_ log: MotionLog, file: String) throws -> (gravity: [Vector3], user: [Vector3], rate: [Vector3]) {
        guard let gravity = log.gravity, let user = log.userAcceleration, let rate = log.rotationRate else {
            throw InputError(.missingColumn, "\(file): needs gravity, user acceleration and rotation rate columns")
        }
        return (gravity, user, rate)
    }

    /// Feeds the filter the log's raw acceleration (gravity + user acceleration, g) and rotation
    /// rate, and compares the gravity it derives with the log's own.
    /// - Parameters:
    ///   - log: the log, read; it needs gravity, user acceleration and rotation rate columns.
    ///   - file: the log's path (named in the result and in errors).
    ///   - parameters: the attitude filter's parameters (correction gain, acceleration tolerance).
    /// - Throws: `InputError.missingColumn` when the log lacks gravity, user acceleration or rotation rate.
    public static func attitude(log: MotionLog, file: String, parameters: AttitudeFilter.Parameters) throws -> AttitudeResult {
        let (gravity, user, rate) = try attitudeColumns(log, file: file)
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

extension MotionEvaluation {
    // MARK: What limits the attitude filter on a log

    /// How far the inputs alone can carry gravity on logs with Core Motion's own gravity: how fast
    /// 10-Hz gyro integration drifts from Core Motion's gravity, and how far the accelerometer's
    /// direction is from it, by rotation rate.
    public struct AttitudeLimits: Sendable, Codable {
        /// Median angle (degrees) between Core Motion's gravity n samples later and its gravity
        /// now carried forward by the logged rotation rate alone (trapezoid rule), for n = 1, 10, 50.
        public var gyro_drift_deg: [String: Double]
        public struct RateBin: Sendable, Codable {
            /// Rotation-rate range, rad/s.
            public var rate_from: Double
            public var rate_to: Double?
            /// Fraction of all samples in the bin.
            public var fraction: Double
            /// Median angle between the accelerometer's direction and Core Motion's gravity, degrees.
            public var accelerometer_median_deg: Double
            /// Median angle between the filter's gravity and Core Motion's, degrees.
            public var filter_median_deg: Double
        }
        public var by_rotation_rate: [RateBin]
    }

    /// Pools every sample of `logs` (with gravity, user acceleration and rotation rate), each with its path.
    /// - Throws: `InputError.missingColumn` when a log lacks one of them.
    public static func attitudeLimits(logs: [(file: String, log: MotionLog)], parameters: AttitudeFilter.Parameters) throws -> AttitudeLimits {
        let steps = [1, 10, 50]
        var drift = [[Double]](repeating: [], count: steps.count)
        let edges = [0, 0.1, 0.3, 1, 2, 4, Double.infinity]
        var accelerometer = [[Double]](repeating: [], count: edges.count - 1)
        var filtered = [[Double]](repeating: [], count: edges.count - 1)
        for (file, log) in logs {
            let (gravity, user, rate) = try attitudeColumns(log, file: file)
            // Gravity in the device frame after each step: g ← exp(ω̄ dt)* g (as the filter predicts).
            var step: [Quaternion] = []
            for k in 1..<max(1, log.count) {
                let dt: Double = log.time[k] - log.time[k - 1]
                let mean: Vector3 = (rate[k] + rate[k - 1]) * 0.5
                step.append(Quaternion(rotationVector: mean * dt).conjugate)
            }
            for (i, n) in steps.enumerated() {
                for start in stride(from: 0, to: log.count - n, by: 1) {
                    var g = gravity[start]
                    for k in start..<(start + n) { g = step[k].rotate(g) }
                    drift[i].append(g.angle(to: gravity[start + n]) * 180 / .pi)
                }
            }
            var filter = AttitudeFilter(parameters: parameters)
            for k in 0..<log.count {
                let a = gravity[k] + user[k]
                let m = filter.process(IMUSample(time: log.time[k], acceleration: a, rotationRate: rate[k]))
                let r = rate[k].magnitude
                guard let bin = (0..<(edges.count - 1)).first(where: { r >= edges[$0] && r < edges[$0 + 1] }) else { continue }
                accelerometer[bin].append(a.angle(to: gravity[k]) * 180 / .pi)
                filtered[bin].append(m.gravity.angle(to: gravity[k]) * 180 / .pi)
            }
        }
        let total = Double(max(1, filtered.map(\.count).reduce(0, +)))
        var driftOut: [String: Double] = [:]
        for (i, n) in steps.enumerated() { driftOut["steps_\(n)"] = drift[i].isEmpty ? .nan : Statistics.median(drift[i]) }
        let bins = (0..<(edges.count - 1)).map { b in
            AttitudeLimits.RateBin(rate_from: edges[b], rate_to: edges[b + 1].isFinite ? edges[b + 1] : nil,
                                   fraction: Double(filtered[b].count) / total,
                                   accelerometer_median_deg: accelerometer[b].isEmpty ? .nan : Statistics.median(accelerometer[b]),
                                   filter_median_deg: filtered[b].isEmpty ? .nan : Statistics.median(filtered[b]))
        }
        return AttitudeLimits(gyro_drift_deg: driftOut, by_rotation_rate: bins)
    }
}

extension MotionEvaluation {
    // MARK: Swings

    /// Reference stroke count for a recording with one stroke type and no per-swing truth: peaks
    /// of |ω| above `rate` (rad/s) at least `separation` s apart. With the defaults (350 deg/s,
    /// i.e. at least two axes of a ±250 deg/s gyro near clipping, and 1.5 s) this finds 97, 98 and
    /// 100 strokes in the tennis-ace forehand, backhand and serve files ("about 100" each).
    public static func referenceStrokes(time: [Double], rotationRate: [Vector3], rate: Double = 350 * .pi / 180,
                                        separation: Double = 1.5) -> Int {
        var n = 0
        var last = -Double.infinity
        for k in time.indices where rotationRate[k].magnitude > rate && time[k] - last >= separation {
            n += 1
            last = time[k]
        }
        return n
    }

    /// Minutes of recording: intervals up to 1 s count (short batch gaps), longer breaks do not.
    public static func minutes(_ time: [Double]) -> Double {
        var s = 0.0
        for k in 1..<max(1, time.count) where time[k] - time[k - 1] <= 1 { s += time[k] - time[k - 1] }
        return s / 60
    }

    /// The stroke type a tennis-ace file holds, from its name.
    public static func strokeType(of path: String) -> String? {
        let name = (path as NSString).lastPathComponent.lowercased()
        for (key, kind) in [("forehand", "forehand"), ("backhand", "backhand"), ("serve", "serve"), ("idle", "idle")]
        where name.contains(key) { return kind }
        return nil
    }

    /// The tennis-ace files in `directory` whose names give their stroke type (`strokeType(of:)`), and
    /// the names of the CSV files that do not (no gate applies to them, so they are not evaluated).
    /// - Throws: `InputError.fileNotFound` when the directory is missing, holds no CSV, or holds no
    ///   file of a known type (naming the files ignored): a gate over no strokes would pass.
    public static func swingFiles(in directory: String) throws -> (files: [String], ignored: [String]) {
        let all = try csvFiles(in: directory)
        let files = all.filter { strokeType(of: $0) != nil }
        let ignored = all.filter { strokeType(of: $0) == nil }.map { ($0 as NSString).lastPathComponent }
        guard !files.isEmpty else {
            let shown = ignored.prefix(5).joined(separator: ", ") + (ignored.count > 5 ? " and \(ignored.count - 5) more" : "")
            throw InputError(.fileNotFound,
                             "\(directory): no tennis-ace stroke files (names containing forehand, backhand, serve or idle); ignored \(ignored.count) of unknown type: \(shown)")
        }
        return (files, ignored)
    }

    public struct SwingCounts: Sendable, Codable {
        public var events: Int
        public var forehands: Int
        public var backhands: Int
        public var serves: Int
        public var reference_strokes: Int
        public var minutes: Double
        public var events_per_minute: Double
        /// Events of the file's own kind over all events (nil for idle).
        public var correct_fraction: Double?
        /// Events over reference strokes (nil for idle).
        public var count_ratio: Double?
    }

    public struct SwingResult: Sendable, Codable {
        public var file: String
        public var type: String
        public var strokes: SwingCounts
        /// Per recording session (split at breaks over 60 s): tuning used the first session's numbers
        /// in choosing thresholds; later sessions are checks.
        public var sessions: [SwingCounts]
        public var swingwatch: SwingCounts
        /// SwingWatch mode vs its direct transcription on the trace decimated to 50 Hz, with the published
        /// defaults and with relaxed thresholds (1 rad, 3 rad/s): swings compared, and whether all matched.
        public var parity_events: Int
        public var parity: Bool
    }

    static func counts(_ events: [SwingEvent], type: String, time: [Double], rate: [Vector3]) -> SwingCounts {
        let f = events.filter { $0.kind == .forehand }.count
        let b = events.filter { $0.kind == .backhand }.count
        let s = events.filter { $0.kind == .serve }.count
        let ref = referenceStrokes(time: time, rotationRate: rate)
        let minutes = minutes(time)
        let own = type == "forehand" ? f : type == "backhand" ? b : type == "serve" ? s : 0
        return SwingCounts(events: events.count, forehands: f, backhands: b, serves: s, reference_strokes: ref,
                           minutes: minutes, events_per_minute: Double(events.count) / max(minutes, 1e-9),
                           correct_fraction: type == "idle" || events.isEmpty ? nil : Double(own) / Double(events.count),
                           count_ratio: type == "idle" || ref == 0 ? nil : Double(events.count) / Double(ref))
    }

    /// Runs the stroke detector and SwingWatch on one tennis-ace file and checks SwingWatch parity.
    /// - Parameters:
    ///   - file: the path of the tennis-ace log; its name gives the stroke type (forehand, backhand,
    ///     serve, idle) the swings are scored against.
    ///   - wrist: the wrist the watch was worn on (it decides forehand from backhand); right by default.
    ///   - options: how to read the log (column mapping, units), as `vitals swings` takes them.
    public static func swings(file: String, wrist: Wrist = .right, options: MotionLogOptions = .init()) throws -> SwingResult {
        let log = try MotionLog.read(path: file, options: options)
        let motion = try log.deviceMotion(filter: .responsive)
        let rate = motion.map(\.rotationRate)
        let type = strokeType(of: file) ?? "unknown"
        let strokes = SwingAnalysis.run(motion, mode: .strokes, wrist: wrist, sampleRate: log.sampleRate)
        let sw = SwingAnalysis.run(motion, mode: .swingwatch, wrist: wrist, sampleRate: log.sampleRate.rounded())
        // Sessions: split at breaks longer than 60 s.
        var sessions: [SwingCounts] = []
        var start = 0
        for k in 1...motion.count where k == motion.count || motion[k].time - motion[k - 1].time > 60 {
            let t0 = motion[start].time, t1 = motion[k - 1].time
            let ev = strokes.filter { $0.time >= t0 && $0.time <= t1 }
            sessions.append(counts(ev, type: type, time: Array(log.time[start..<k]), rate: Array(rate[start..<k])))
            start = k
        }
        // Parity at the published 50 Hz: every other sample of the 100-Hz trace.
        let step = max(1, Int((log.sampleRate / 50).rounded()))
        let decimated = stride(from: 0, to: motion.count, by: step).map { motion[$0] }
        // Published defaults, and relaxed thresholds (1 rad, 3 rad/s) so more swings exercise the comparison.
        var parity = true
        var parityEvents = 0
        for p in [SwingWatchDetector.Parameters(), SwingWatchDetector.Parameters(angleThreshold: 1, rateThreshold: 3)] {
            let fast = SwingAnalysis.run(decimated, mode: .swingwatch, wrist: wrist, sampleRate: 50, swingWatch: p)
            var literal = SwingWatchTranscription(parameters: p, wrist: wrist)
            var slow: [SwingEvent] = []
            var last = -Double.infinity
            for m in decimated {
                if m.time - last > 0.5 { literal.restart() }
                last = m.time
                if let e = literal.process(time: m.time, gravity: m.gravity, rotationRate: m.rotationRate) { slow.append(e) }
            }
            parity = parity && fast.count == slow.count && zip(fast, slow).allSatisfy {
                $0.time == $1.time && $0.kind == $1.kind && abs($0.angle - $1.angle) < 1e-9 && $0.peakRate == $1.peakRate
            }
            parityEvents += fast.count
        }
        return SwingResult(file: (file as NSString).lastPathComponent, type: type,
                           strokes: counts(strokes, type: type, time: log.time, rate: rate), sessions: sessions,
                           swingwatch: counts(sw, type: type, time: log.time, rate: rate),
                           parity_events: parityEvents, parity: parity)
    }
}

extension MotionEvaluation {
    // MARK: Reps

    /// A labelled set from Exermote's per-sample labels: consecutive repetitions of one exercise
    /// between `setBreak` rows; each run of an exercise label between `Break` rows is one repetition.
    public struct TruthSet: Sendable, Codable {
        public var exercise: String
        public var reps: Int
        public var start_s: Double
        public var end_s: Double
    }

    /// Reads Exermote's label columns (`exerciseType`, `timeStampSaved`); only the evaluation does.
    public static func exermoteTruth(file: String) throws -> [TruthSet] {
        let csv = try CSVFile(path: file)
        let typeIndex = try csv.requireColumn("exerciseType")
        let timeIndex = try csv.requireColumn("timeStampSaved")
        let types = try csv.stringColumn(typeIndex)
        let times = try csv.stringColumn(timeIndex).map { DateText.seconds($0) ?? .nan }
        // The log's time zero is its first complete row.
        let gx = try csv.numericColumns([try csv.requireColumn("Device: xGravity")])[0]
        guard let first = gx.indices.first(where: { gx[$0].isFinite && times[$0].isFinite }) else { return [] }
        let t0 = times[first]
        var sets: [TruthSet] = []
        var current: TruthSet?
        var previous = ""
        for (k, type) in types.enumerated() {
            defer { previous = type }
            let t = times[k] - t0
            if type == "setBreak" {
                if let c = current { sets.append(c) }
                current = nil
                continue
            }
            if type == "Break" || type.isEmpty { continue }
            if var c = current, c.exercise == type {
                if previous != type { c.reps += 1 }
                c.end_s = t
                current = c
            } else {
                if let c = current { sets.append(c) }
                current = TruthSet(exercise: type, reps: 1, start_s: t, end_s: t)
            }
        }
        if let c = current { sets.append(c) }
        return sets
    }

    public struct RepSetResult: Sendable, Codable {
        public var exercise: String
        public var truth_reps: Int
        public var counted_reps: Int
        public var start_s: Double
        public var end_s: Double
    }

    public struct RepFileResult: Sendable, Codable {
        public var file: String
        public var individual: Int?
        public var sets: [RepSetResult]
        /// Detected sets overlapping no labelled set.
        public var stray_sets: Int
    }

    /// Counts reps in one Exermote log (gravity only) and matches each detected set to the labelled
    /// set it overlaps most; a labelled set with no detection counts 0 reps.
    /// - Parameters:
    ///   - file: the path of the Exermote log; its `exerciseType` and `timeStampSaved` columns give
    ///     the labelled sets.
    ///   - parameters: the rep counter's parameters (its defaults unless given).
    ///   - options: how to read the log (column mapping, units), as `vitals reps` takes them.
    public static func reps(file: String, parameters: RepCounter.Parameters = .init(),
                            options: MotionLogOptions = .init()) throws -> RepFileResult {
        let log = try MotionLog.read(path: file, options: options)
        let motion = try log.deviceMotion()
        var counter = RepCounter(sampleRate: log.sampleRate, parameters: parameters)
        let found = counter.process(motion)
        let truth = try exermoteTruth(file: file)
        var counted = [Int](repeating: 0, count: truth.count)
        var stray = 0
        for s in found {
            var best: (overlap: Double, index: Int)?
            for (i, t) in truth.enumerated() {
                let overlap = min(s.end, t.end_s) - max(s.start, t.start_s)
                if overlap > 0 && (best == nil || overlap > best!.overlap) { best = (overlap, i) }
            }
            if let best { counted[best.index] += s.reps } else { stray += 1 }
        }
        let rows = truth.enumerated().map { i, t in
            RepSetResult(exercise: t.exercise, truth_reps: t.reps, counted_reps: counted[i], start_s: t.start_s, end_s: t.end_s)
        }
        return RepFileResult(file: (file as NSString).lastPathComponent, individual: individual(of: file), sets: rows,
                             stray_sets: stray)
    }
}
