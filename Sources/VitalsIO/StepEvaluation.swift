import Foundation
import MotionAnalysis
import SignalProcessing

/// Scores the pedometer against the Oxford step-counter set (step counts) and the IPOL gait set
/// (step timing, pause and resume latency). Latencies use `PedometerEvent.reportedAt`: the time of the
/// sample at which the streaming detector emitted the event, not the (earlier) time it is dated at.
public enum StepEvaluation {
    /// One Oxford recording.
    public struct OxfordResult: Sendable {
        public var name: String
        public var truthSteps: Int
        public var detectedSteps: Int
        /// Signed count error, percent of the truth.
        public var errorPercent: Double
        /// First foot-switch step, seconds from the first accelerometer sample.
        public var firstTruthStep: Double
        /// Resume events reported before the first foot-switch step (minus `handlingTolerance`).
        public var resumesBeforeWalking: Int
    }

    /// A resume reported up to this long before the first foot-switch contact still counts as the
    /// walk's own (the switches are sampled at 10 Hz and sometimes miss the first contact), seconds.
    public static let handlingTolerance = 0.25

    /// Runs every usable recording under `directory` (folders holding `accelerometer.csv`,
    /// `stepcounter.csv`, `steps_truth.json`); `usable: false` folders are skipped.
    /// - Parameters:
    ///   - directory: the Oxford set's folder: one subfolder per recording.
    ///   - options: `accelerationUnit` overrides the layout's m/s² (`--accel-unit`).
    /// - Throws: `InputError` when the folder is missing or holds no recording.
    public static func oxford(directory: String, options: MotionLogOptions = .init()) throws -> [OxfordResult] {
        let fm = FileManager.default
        var results: [OxfordResult] = []
        for name in try directoryEntries(directory) {
            let dir = directory + "/" + name
            let truthPath = dir + "/steps_truth.json"
            guard fm.fileExists(atPath: dir + "/accelerometer.csv"), fm.fileExists(atPath: truthPath) else { continue }
            let truth = try readTruth(path: truthPath)
            if let usable = truth["usable"] as? Bool, !usable { continue }
            guard let clean = truth["clean_steps"] as? Int, clean > 0 else {
                throw InputError(.missingColumn, "\(truthPath): no positive whole-number 'clean_steps' (and not marked \"usable\": false)")
            }
            let accBytes = try readInputFile(dir + "/accelerometer.csv")
            let rec = try StepLogs.readOxford(bytes: accBytes, source: dir + "/accelerometer.csv",
                                              accelerationScale: StepLogs.fixedLayoutScale(options))
            let first = try firstSwitchStep(path: dir + "/stepcounter.csv", origin: rec.startTime)
            let events = StepDetector.detect(times: rec.time, accelerations: rec.acceleration)
            let steps = events.filter { $0.kind == .step }.count
            let early = events.filter { $0.kind == .resume && $0.reportedAt < first - handlingTolerance }.count
            results.append(OxfordResult(name: name, truthSteps: clean, detectedSteps: steps,
                                        errorPercent: 100 * Double(steps - clean) / Double(clean),
                                        firstTruthStep: first, resumesBeforeWalking: early))
        }
        guard !results.isEmpty else {
            throw InputError(.empty, "\(directory): no Oxford recordings (folders with accelerometer.csv and steps_truth.json)")
        }
        return results
    }

    /// A truth JSON object; the bare `NaN` some files hold for unknown values reads as null.
    static func readTruth(path: String) throws -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(.unreadable, "\(path): cannot be read")
        }
        let text = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "NaN", with: "null")
        guard let obj = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw InputError(.corrupt, "\(path): not a JSON object")
        }
        return obj
    }

    /// Whether the first line of `bytes` is a header (its first field not a number): the Oxford
    /// foot-switch files come without one, and may carry `timestamp_ns,left,right`.
    private static func startsWithHeader(_ bytes: [UInt8]) -> Bool {
        var first = bytes.prefix { $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "\n") }[...]
        if first.starts(with: [0xEF, 0xBB, 0xBF]) { first = first.dropFirst(3) }
        return Double(String(decoding: first, as: UTF8.self).trimmingCharacters(in: .whitespaces)) == nil
    }

    /// The first rising edge of either foot switch, seconds after `origin` (seconds on the same clock).
    private static func firstSwitchStep(path: String, origin: Double) throws -> Double {
        let bytes = try readInputFile(path)
        let csv = try CSVFile(bytes: bytes, source: path, hasHeader: startsWithHeader(bytes))
        let cols = try csv.numericColumns([0, 1, 2])
        for i in stride(from: 1, to: cols[0].count, by: 1) where (cols[1][i] == 1 && cols[1][i - 1] == 0) || (cols[2][i] == 1 && cols[2][i - 1] == 0) {
            return cols[0][i] * 1e-9 - origin
        }
        throw InputError(.empty, "\(path): no foot-switch step (no rising edge in either switch column)")
    }

    /// One IPOL trial.
    public struct GaitResult: Sendable {
        public var name: String
        public var subject: Int
        public var truePositives: Int
        public var falsePositives: Int
        public var falseNegatives: Int
        /// Detected minus true contact time for each matched step, seconds.
        public var timingErrors: [Double]
        /// Report time of the first resume after walking started, minus the start; nil when none came.
        public var resumeLatency: Double?
        /// Report time of the first pause after the last step, minus that step; nil when not scored
        /// (less than `standingNeeded` of standing follows) — see `pauseScored`.
        public var pauseLatency: Double?
        /// Whether this trial's stop is scored.
        public var pauseScored: Bool
        /// Pauses reported while walking (between the trial's first and last step).
        public var falsePauses: Int
        /// Resumes reported while standing before the trial.
        public var resumesBeforeWalking: Int
    }

    /// A detected step matches a heel strike within this many seconds.
    public static let matchTolerance = 0.15
    /// A stop is scored only when at least this much standing follows it, seconds.
    public static let standingNeeded = 3.0

    /// Runs every `NAME_lb.txt` with a `NAME.json` under `directory`.
    /// - Parameters:
    ///   - directory: the IPOL gait set's folder, each trial's `NAME_lb.txt` beside its `NAME.json`
    ///     (heel strikes and trial boundaries in samples).
    ///   - options: `accelerationUnit` overrides the layout's m/s² (`--accel-unit`).
    /// - Throws: `InputError` when the folder is missing or holds no trial.
    public static func gait(directory: String, options: MotionLogOptions = .init()) throws -> [GaitResult] {
        let fm = FileManager.default
        var results: [GaitResult] = []
        for file in try directoryEntries(directory) where file.hasSuffix("_lb.txt") {
            let name = String(file.dropLast("_lb.txt".count))
            guard fm.fileExists(atPath: directory + "/" + name + ".json") else { continue }
            let truth = try readTruth(path: directory + "/" + name + ".json")
            let rec = try StepLogs.read(path: directory + "/" + file, options: options)
            let rate = 100.0
            // Each foot's events are [start, end] pairs of samples, the heel strike second. A list that
            // is missing or holds anything else was skipped whole (one pair with a null dropped a
            // foot's strikes), and the trial was scored against the other foot's alone.
            var strikes: [Double] = []
            for key in ["LeftFootEvents", "RightFootEvents"] {
                guard let events = truth[key] as? [[Double]],
                      events.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isFinite && $0 >= 0 } }) else {
                    throw InputError(.missingColumn, "\(directory)/\(name).json: no '\(key)' [[start, end], ...] (samples, 0 or more)")
                }
                for ev in events { strikes.append(ev[1] / rate) }
            }
            strikes.sort()
            guard let bounds = truth["TrialBoundaries"] as? [Double], bounds.count >= 2, bounds[0] >= 0, bounds[1] > bounds[0] else {
                throw InputError(.missingColumn, "\(directory)/\(name).json: no 'TrialBoundaries' [start, end] (samples, 0 or more)")
            }
            let trial = bounds.map { $0 / rate }
            guard trial[1] <= rec.duration + 1 else {
                throw InputError(.tooShort, String(format: "%@/%@: the recording ends at %.2f s, before the trial it is scored on ends (%.2f s in %@.json): is the file cut short?",
                                                   directory, file, rec.duration, trial[1], name))
            }
            if let last = strikes.last, last > rec.duration + 1 {
                throw InputError(.tooShort, String(format: "%@/%@: the recording ends at %.2f s, before a heel strike in %@.json (%.2f s): is the file cut short?",
                                                   directory, file, rec.duration, name, last))
            }
            let subject = (truth["Subject"] as? Int) ?? Int(name.split(separator: "-").first ?? "") ?? 0
            let events = StepDetector.detect(times: rec.time, accelerations: rec.acceleration)
            let steps = events.filter { $0.kind == .step }.map(\.time)
            let m = match(detected: steps, truth: strikes, tolerance: matchTolerance)
            let resume = events.first { $0.kind == .resume && $0.reportedAt >= trial[0] }
            let early = events.filter { $0.kind == .resume && $0.reportedAt < trial[0] }.count
            let falsePauses = events.filter { $0.kind == .pause && $0.reportedAt > trial[0] && $0.reportedAt < trial[1] }.count
            let nextStep = strikes.first { $0 > trial[1] + 0.05 }
            let standingEnd = min(nextStep.map { $0 - 0.5 } ?? rec.duration, rec.duration)
            let scored = standingEnd - trial[1] >= standingNeeded
            var pauseLatency: Double?
            if scored, let p = events.first(where: { $0.kind == .pause && $0.reportedAt >= trial[1] }) {
                pauseLatency = p.reportedAt - trial[1]
            }
            results.append(GaitResult(name: name, subject: subject, truePositives: m.errors.count,
                                      falsePositives: steps.count - m.errors.count,
                                      falseNegatives: strikes.count - m.errors.count, timingErrors: m.errors,
                                      resumeLatency: resume.map { $0.reportedAt - trial[0] },
                                      pauseLatency: pauseLatency, pauseScored: scored,
                                      falsePauses: falsePauses, resumesBeforeWalking: early))
        }
        guard !results.isEmpty else {
            throw InputError(.empty, "\(directory): no IPOL trials (NAME_lb.txt with NAME.json)")
        }
        return results
    }

    /// One-to-one matching: each true time in order takes the nearest unused detection within
    /// `tolerance`. Returns the signed errors (detected − true) of the matches.
    /// - Complexity: O(truth × detected) worst case; O(n) for sorted inputs of similar density.
    public static func match(detected: [Double], truth: [Double], tolerance: Double) -> (errors: [Double], matched: Int) {
        var used = [Bool](repeating: false, count: detected.count)
        var errors: [Double] = []
        var lo = 0
        for h in truth {
            while lo < detected.count && detected[lo] < h - tolerance { lo += 1 }
            var best = -1
            var j = lo
            while j < detected.count && detected[j] <= h + tolerance {
                if !used[j] && (best < 0 || abs(detected[j] - h) < abs(detected[best] - h)) { best = j }
                j += 1
            }
            if best >= 0 {
                used[best] = true
                errors.append(detected[best] - h)
            }
        }
        return (errors, errors.count)
    }

    /// Summary of the gait trials.
    public struct GaitSummary: Sendable {
        public var trials: Int
        public var f1: Double
        public var precision: Double
        public var recall: Double
        /// Median absolute timing error of matched steps, seconds.
        public var medianTimingError: Double
        public var resumeMedian: Double
        public var resume95: Double
        /// Trials without a resume after walking started.
        public var resumesMissing: Int
        public var pausesScored: Int
        public var pauseMedian: Double
        public var pause95: Double
        /// Scored stops with no pause at all (counted as infinite latency in the percentiles).
        public var pausesMissing: Int
        /// Trials with at least one pause while walking.
        public var trialsWithFalsePause: Int
        public var trialsWithResumeBeforeWalking: Int
    }

    /// Issue 5's gates on pooled IPOL trials: (name, holds). Trials whose walk does not end inside
    /// the recording score no pause; with none at all the pause gates have nothing to judge and are
    /// left out (they had read NaN and failed).
    public static func gaitGates(_ s: GaitSummary) -> [(String, Bool)] {
        let falsePauseFraction = Double(s.trialsWithFalsePause) / Double(max(1, s.trials))
        let pauseGates: [(String, Bool)] = s.pausesScored == 0 ? [] : [
            ("pause median <= 1.5 s", s.pauseMedian <= 1.5),
            ("pause p95 <= 2.5 s", s.pause95 <= 2.5),
        ]
        return [
            ("step F1 >= 0.93 (150 ms)", s.f1 >= 0.93),
            ("median timing error <= 60 ms", s.medianTimingError <= 0.060),
        ] + pauseGates + [
            ("resume median <= 1.5 s", s.resumeMedian <= 1.5),
            ("resume p95 <= 2.0 s", s.resume95 <= 2.0),
            ("false pause in <= 2 % of trials", falsePauseFraction <= 0.02),
        ]
    }

    /// Pools the trials.
    public static func summarize(_ r: [GaitResult]) -> GaitSummary {
        let tp = Double(r.reduce(0) { $0 + $1.truePositives })
        let fp = Double(r.reduce(0) { $0 + $1.falsePositives })
        let fn = Double(r.reduce(0) { $0 + $1.falseNegatives })
        let precision = tp / max(1, tp + fp), recall = tp / max(1, tp + fn)
        let errors = r.flatMap { $0.timingErrors.map(abs) }
        let resumes = r.map { $0.resumeLatency ?? .infinity }
        let pauses = r.filter(\.pauseScored).map { $0.pauseLatency ?? .infinity }
        return GaitSummary(
            trials: r.count, f1: 2 * precision * recall / max(1e-12, precision + recall), precision: precision,
            recall: recall, medianTimingError: errors.isEmpty ? .nan : Statistics.median(errors),
            resumeMedian: percentile(resumes, 50), resume95: percentile(resumes, 95),
            resumesMissing: r.filter { $0.resumeLatency == nil }.count, pausesScored: pauses.count,
            pauseMedian: percentile(pauses, 50), pause95: percentile(pauses, 95),
            pausesMissing: pauses.filter { !$0.isFinite }.count,
            trialsWithFalsePause: r.filter { $0.falsePauses > 0 }.count,
            trialsWithResumeBeforeWalking: r.filter { $0.resumesBeforeWalking > 0 }.count)
    }

    /// Linear-interpolated percentile that keeps infinities (a missing event is worse than any latency).
    static func percentile(_ x: [Double], _ p: Double) -> Double {
        guard !x.isEmpty else { return .nan }
        let s = x.sorted()
        let pos = p / 100 * Double(s.count - 1)
        let i = Int(pos.rounded(.down)), f = pos - Double(i)
        if i + 1 >= s.count { return s[s.count - 1] }
        if !s[i + 1].isFinite { return f == 0 ? s[i] : .infinity }
        return s[i] + f * (s[i + 1] - s[i])
    }
}
