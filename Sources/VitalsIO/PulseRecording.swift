import Foundation
import PulseDetection
import SignalProcessing

/// A recording for the pulse pipeline read from a CSV file: mean colours of fingertip frames
/// (`r,g,b` columns) or one PPG column, with times from a `time_s` column or a stated rate.
///
/// A CSV file is checked in one pass and its samples are read again from the file each time they are
/// asked for (``Inputs``), so a day of 100-Hz PPG takes the memory of its results, not of its samples.
public struct PulseRecording: Sendable {
    public var source: String
    /// The samples, times from 0 (the first sample's time is ``startTime``).
    public var inputs: Inputs
    /// The nominal sample rate, Hz: the median of the sampling intervals, or the stated rate.
    public var sampleRate: Double
    /// Seconds from the first to the last sample.
    public var duration: Double
    /// Seconds the samples cover: `duration` plus one sampling interval (the last sample stands for
    /// the interval after it, as each frame does for its frame time). Windows are laid over this: a
    /// minute of 30-fps frames covers 0-60 s although its last frame is at 59.97 s.
    public var coveredDuration: Double { duration + 1 / sampleRate }
    /// The column(s) the signal came from, e.g. "r,g,b" or "ppg".
    public var columns: String
    /// Silences longer than `maximumGap` (seconds from the start): the pipeline analyses either side.
    public var gaps: [(from: Double, to: Double)]
    /// The first sample's time on the file's own clock, seconds: the inputs' times (and so the
    /// analysis's beats and windows) count from it, so a file time is `startTime` + an input time.
    public var startTime: Double = 0
    /// Corrections made while reading, one sentence each (for a warning).
    public var notes: [String] = []

    /// A recording's samples: held in memory (frames of a video), or read again from their CSV file
    /// on each pass, with the corrections the checks decided (times from 0, scale, sign).
    public struct Inputs: Sendable {
        /// How many samples there are.
        public let count: Int
        private let storage: Storage

        private enum Storage: Sendable {
            case memory([PulseInput])
            case csv(CSVFile, CSVReading)
            /// A CSV's rows as the check read them (the reading's columns, row after row): a
            /// recording short enough is not read twice.
            case rows([Double], CSVReading)
        }

        /// Samples held in memory.
        public init(_ inputs: [PulseInput]) {
            count = inputs.count
            storage = .memory(inputs)
        }

        fileprivate init(csv: CSVFile, reading: CSVReading, count: Int, rows: [Double]?) {
            self.count = count
            storage = rows.map { .rows($0, reading) } ?? .csv(csv, reading)
        }

        /// Inputs handed over at a time by ``forEachChunk(_:)``.
        public static let chunkLength = 4096

        /// Calls `body` with consecutive runs of the samples, in order (all of them at once when they
        /// are in memory).
        /// - Throws: what `body` throws; `InputError.unreadable` when the file no longer reads as it
        ///   did when it was checked (changed or removed since).
        public func forEachChunk(_ body: ([PulseInput]) throws -> Void) throws {
            switch storage {
            case .memory(let inputs):
                try body(inputs)
            case .rows(let values, let reading):
                let width = reading.columns.count
                var chunk: [PulseInput] = []
                chunk.reserveCapacity(min(count, Self.chunkLength))
                try values.withUnsafeBufferPointer { all in
                    for row in 0..<count {
                        chunk.append(reading.input(row: row, UnsafeBufferPointer(rebasing: all[(row * width)..<((row + 1) * width)])))
                        if chunk.count == Self.chunkLength || row == count - 1 {
                            try body(chunk)
                            chunk.removeAll(keepingCapacity: true)
                        }
                    }
                }
            case .csv(let csv, let reading):
                struct MoreRows: Error {}
                func changed(_ what: String) -> InputError {
                    InputError(.unreadable, "\(csv.source): the file changed after it was checked (\(what))")
                }
                var chunk: [PulseInput] = []
                chunk.reserveCapacity(min(count, Self.chunkLength))
                var row = 0
                do {
                    try csv.forEachNumericRow(reading.columns) { _, values in
                        guard row < count else { throw MoreRows() }
                        chunk.append(reading.input(row: row, values))
                        row += 1
                        if chunk.count == Self.chunkLength {
                            try body(chunk)
                            chunk.removeAll(keepingCapacity: true)
                        }
                    }
                } catch is MoreRows {
                    throw changed("more than its \(count) rows")
                } catch let error as InputError where error.code == .notANumber {
                    // The rows were checked: one that no longer reads was written since.
                    throw changed(error.message)
                }
                guard row == count else { throw changed("\(count) rows when checked, \(row) now") }
                if !chunk.isEmpty { try body(chunk) }
            }
        }

        /// Every sample, in order.
        /// - Throws: as ``forEachChunk(_:)``.
        public func array() throws -> [PulseInput] {
            if case .memory(let inputs) = storage { return inputs }
            var all: [PulseInput] = []
            all.reserveCapacity(count)
            try forEachChunk { all += $0 }
            return all
        }
    }

    /// Runs the pulse pipeline over the recording (PulseDetection's
    /// `PulseAnalysis.run(_:sampleRate:settings:observe:)` at ``sampleRate``), reading a CSV file's
    /// samples a run at a time.
    /// - Throws: as ``Inputs/forEachChunk(_:)``.
    public func analyse(settings: PulseAnalyzer.Settings = .init(),
                        observe: ((PulseEvent) -> Void)? = nil) throws -> PulseAnalysis {
        try PulseAnalysis.run(sampleRate: sampleRate, settings: settings, expectedCount: inputs.count,
                              observe: observe) { each in try inputs.forEachChunk(each) }
    }

    /// Loads and validates a recording.
    ///
    /// - Parameters:
    ///   - path: the CSV file to read.
    ///   - column: the signal column; nil looks for `r,g,b` (or `red,green,blue`) colour means.
    ///   - rate: the sample rate, Hz, when the file has no `time_s` (or `time_ms`) column.
    ///   - maximumGap: longer silences are reported as gaps, seconds.
    ///   - polarity: how to read a signal column's sign (colour means have a physical one).
    /// - Throws: `InputError` for a missing, empty or binary file, missing columns (naming those that
    ///   exist), values that are not finite numbers, times that repeat or go backwards, a rate outside
    ///   5 Hz...10 kHz, too little data, or a flat signal.
    public static func load(path: String, column: String? = nil, rate: Double? = nil,
                            maximumGap: Double = 1, polarity: Polarity = .asRecorded) throws -> PulseRecording {
        let csv = try CSVFile(path: path)
        return try load(csv, column: column, rate: rate, maximumGap: maximumGap, polarity: polarity)
    }

    public static func load(_ csv: CSVFile, column: String? = nil, rate: Double? = nil,
                            maximumGap: Double = 1, polarity: Polarity = .asRecorded) throws -> PulseRecording {
        try load(csv, column: column, rate: rate, maximumGap: maximumGap, polarity: polarity, keptValues: keptValues)
    }

    /// Most values of a CSV's rows the check keeps for the analysis (8 MB: an hour of 100-Hz PPG
    /// with its times), so a recording that short is parsed once; a longer one is read again from
    /// its file, and memory stays flat with length.
    static let keptValues = 1 << 20

    static func load(_ csv: CSVFile, column: String?, rate: Double?, maximumGap: Double, polarity: Polarity,
                     keptValues: Int) throws -> PulseRecording {
        let plan = try Plan(csv, column: column, rate: rate)
        // One pass over the rows checks them; the samples are read again when the analysis asks,
        // unless they were few enough to keep.
        var scan = SampleScan(channels: plan.signalColumns.count, maximumGap: maximumGap)
        let first = plan.reading.hasTimeColumn ? 1 : 0
        var kept: [Double]? = []
        try csv.forEachNumericRow(plan.reading.columns) { line, values in
            scan.add(time: plan.reading.time(row: scan.count, values.first), values: values[first...], place: line)
            if kept != nil {
                if kept!.count + values.count <= keptValues { kept!.append(contentsOf: values) } else { kept = nil }
            }
        }
        return try plan.recording(scan, polarity: polarity, keptRows: kept, place: { "line \($0)" })
    }

    /// Reads PPG columns of `csv` together with the columns named `alongside` (a wrist's
    /// accelerometer), in one pass over the file: each PPG column checked as
    /// ``load(_:column:rate:maximumGap:polarity:)`` checks it (polarity as recorded).
    /// - Returns: the first PPG column's recording (its times, rate, gaps and notes are every
    ///   column's; its samples stay in the file), the times from its first sample, each PPG
    ///   column's values and the `alongside` columns' values.
    static func load(_ csv: CSVFile, columns: [String], alongside: [String], rate: Double?, maximumGap: Double = 1) throws
    -> (recording: PulseRecording, times: [Double], signals: [[Double]], alongside: [[Double]]) {
        let plans = try columns.map { try Plan(csv, column: $0, rate: rate) }
        let time = plans[0].reading.hasTimeColumn ? [plans[0].reading.columns[0]] : []
        let others = try alongside.map { try csv.requireColumn($0) }
        var values = try csv.numericColumns(time + plans.map { $0.signalColumns[0] } + others)
        let fileTimes = time.isEmpty ? nil : values[0]
        let recordings = try plans.enumerated().map { k, plan in
            var scan = SampleScan(channels: 1, maximumGap: maximumGap)
            let signal = values[time.count + k]
            for i in signal.indices {
                scan.add(time: plan.reading.time(row: i, fileTimes?[i]), values: CollectionOfOne(signal[i]), place: i)
            }
            return try plan.recording(scan, polarity: .asRecorded, place: { "line \(csv.lineNumber(ofRow: $0))" })
        }
        let t0 = recordings[0].startTime, reading = plans[0].reading
        let times = (0..<values[time.count].count).map { reading.time(row: $0, fileTimes?[$0]) - t0 }
        if !time.isEmpty { values.removeFirst() }
        return (recordings[0], times, Array(values.prefix(columns.count)), Array(values.suffix(alongside.count)))
    }

    /// Which columns of a CSV make a recording and how they are read: what is known before a row.
    private struct Plan {
        let csv: CSVFile
        let column: String?
        let rate: Double?
        var reading: CSVReading
        let signalColumns: [Int]
        let names: String

        /// - Throws: `InputError` for a missing column (naming those that exist) or no time.
        init(_ csv: CSVFile, column: String?, rate: Double?) throws {
            let src = csv.source
            self.csv = csv
            self.column = column
            self.rate = rate
            if let column {
                signalColumns = [try csv.requireColumn(column)]
                names = csv.header[signalColumns[0]]
            } else if let r = csv.columnIndex("r", "red"), let g = csv.columnIndex("g", "green"),
                      let b = csv.columnIndex("b", "blue") {
                signalColumns = [r, g, b]
                names = "r,g,b"
            } else {
                throw InputError(.missingColumn,
                                 "\(src): no r,g,b colour columns; name the signal column with --column (columns: \(csv.headerDescription))")
            }
            // Times in seconds, or in milliseconds from a `time_ms` column.
            let secondsColumn = csv.columnIndex("time_s")
            let timeColumn = secondsColumn ?? csv.columnIndex("time_ms")
            if timeColumn == nil && rate == nil {
                throw InputError(.missingColumn,
                                 "\(src): no time_s (or time_ms) column; give the sample rate with --rate HZ (columns: \(csv.headerDescription))")
            }
            try csv.refuseDuplicateNames(of: (timeColumn.map { [$0] } ?? []) + signalColumns)
            reading = CSVReading(columns: (timeColumn.map { [$0] } ?? []) + signalColumns,
                                 hasTimeColumn: timeColumn != nil,
                                 millisecondTimes: timeColumn != nil && secondsColumn == nil, rate: rate)
        }

        /// The recording whose rows `scan` has seen (its samples left in the file, or `keptRows`:
        /// every row's values of the reading's columns), after the checks of values, rate and times.
        /// `place` names a place the scan recorded ("line 12").
        func recording(_ scan: SampleScan, polarity: Polarity, keptRows: [Double]? = nil,
                       place: (Int) -> String) throws -> PulseRecording {
            let src = csv.source
            var reading = self.reading
            var notes: [String] = []
            if reading.millisecondTimes { notes.append("\(src): times read from time_ms, in milliseconds") }
            let n = scan.count
            guard n >= 2 else { throw InputError(.tooShort, "\(src): only \(n) data row(s)") }
            for (k, bad) in scan.unusable.enumerated() {
                if let (at, value) = bad {
                    throw InputError(.nonFinite, "\(src): \(place(at)), column '\(csv.header[signalColumns[k]])' has \(SampleScan.describe(value))")
                }
            }
            if let rate, !(rate >= 5 && rate <= 10_000) {
                throw InputError(.badRate, "\(src): --rate \(rate) Hz is outside 5 Hz...10 kHz")
            }
            // Colour means scaled to 0...1 (float images, normalised exports) instead of the 0...255 the
            // pipeline's contact test and colour thresholds use: a fingertip read as a dark, unlit frame
            // and the rate was declined as "signal quality too low". The brightest channel's mean must
            // reach 0.3 (a torch-lit fingertip's red is 0.5-1 of full scale), so a black 0...255
            // recording, whose means stay near 0, is left as it is.
            let largest = scan.highest.max()!
            if column == nil, largest <= 1, scan.means.max()! >= 0.3, scan.lowest.allSatisfy({ $0 >= 0 }) {
                reading.scale = 255
                notes.append(String(format: "%@: r,g,b look like 0-1 values (none above %.3g): read as fractions of 255", src, largest))
            }
            // Deeper colour means (10-16-bit sensors and exports): the contact test and the channel-level
            // floor are in 0...255 units, and 16-bit means brought back near-black channels' ripple as
            // confident 60-bpm answers (MTHS subject 22, scaled x257). The smallest of 10, 12, 14 or 16
            // bits that holds the largest value is taken as the full scale. 8-bit means can pass 255:
            // `vitals frames` converts Y'CbCr plane means without clipping, and a saturated red reaches
            // about 434 (Y' 235, Cr 240), so only values above `deeperColourThreshold` count.
            else if column == nil, largest > PulseRecording.deeperColourThreshold,
                    let bits = [10, 12, 14, 16].first(where: { largest <= Double((1 << $0) - 1) }) {
                reading.scale = 255 / Double((1 << bits) - 1)
                notes.append(String(format: "%@: r,g,b reach %.6g, beyond 8 bits: read as %d-bit values (0-%d) and scaled to 0-255",
                                    src, largest, bits, (1 << bits) - 1))
            }
            reading.inverted = column != nil && polarity == .inverted
            let checked = try scan.checked(source: src, names: names, rate: rate, rateIsStatedBesideTimes: reading.hasTimeColumn,
                                           millisecondTimes: reading.millisecondTimes, scale: reading.scale ?? 1, place: place)
            reading.startTime = checked.startTime
            return PulseRecording(source: src, inputs: Inputs(csv: csv, reading: reading, count: n, rows: keptRows),
                                  sampleRate: checked.sampleRate,
                                  duration: checked.duration, columns: names, gaps: scan.gaps, startTime: checked.startTime, notes: notes)
        }
    }

    /// How to read a PPG column's sign. The pipeline takes larger as more blood and times each beat
    /// at its systolic upstroke; a sensor that records absorbance (or light with the other sign) gives
    /// the mirror image, whose steepest rise is the diastolic fall: the rate stays right, beat times
    /// and HRV do not (a103l inverted: RMSSD 7.0 -> 21.9 ms, IBI p90 error 12 -> 30 ms). The sign is
    /// not guessed: the slope asymmetry that tells it on a103l and v102s (the upstroke 1.3-1.6 times
    /// steeper than the fall) reads the other way on pulses whose rise and fall are alike, such as the
    /// simulated finger's at 50-120 bpm, so a guess would turn good recordings over.
    public enum Polarity: String, Sendable, CaseIterable {
        /// As recorded (larger is more blood).
        case asRecorded = "as-recorded"
        /// Negated (a sensor whose values fall as blood volume rises).
        case inverted
    }

    /// Colour means above this are read as deeper than 8 bits: past what an unclipped conversion of
    /// 8-bit Y'CbCr plane means reaches (about 434).
    public static let deeperColourThreshold = 511.0

    /// Slowest sampling the pipeline takes, Hz (a pulse up to 4 Hz needs more than 2 samples a beat).
    public static let minimumRate = 5.0

    /// Largest share of a recording's time (outside gaps) that may lie in intervals longer than
    /// 1 / ``minimumRate`` (0.2 s): one fifth, about two beats of every 10-s window, beyond which
    /// interpolation invents the pulse. A judgement, not a measured limit; dropped frames at 30 fps
    /// (2 % of 67-ms intervals) are far below it.
    public static let maximumSparseFraction = 0.2

    /// How far a stated rate may differ from the rate a time column measures, as a fraction (a
    /// nominal 30 Hz camera measures 29.97 Hz; a rate 5 % off is another rate).
    public static let statedRateTolerance = 0.05

    /// A recording of per-frame mean colours (from a video or a camera), validated like a CSV.
    public static func colors(_ samples: [ColorSample], source: String, maximumGap: Double = 1) throws -> PulseRecording {
        guard samples.count >= 2 else { throw InputError(.tooShort, "\(source): only \(samples.count) frame(s)") }
        var scan = SampleScan(channels: 3, maximumGap: maximumGap)
        for (i, c) in samples.enumerated() { scan.add(time: c.time, values: [c.red, c.green, c.blue], place: i + 1) }
        let checked = try scan.checked(source: source, names: "r,g,b", rate: nil, rateIsStatedBesideTimes: false, scale: 1,
                                       place: { "frame \($0)" })
        let t0 = checked.startTime
        let inputs = samples.map { c in
            PulseInput.color(ColorSample(time: c.time - t0, red: c.red, green: c.green, blue: c.blue))
        }
        return PulseRecording(source: source, inputs: Inputs(inputs), sampleRate: checked.sampleRate, duration: checked.duration,
                              columns: "r,g,b", gaps: scan.gaps, startTime: t0)
    }

    /// A recording of one signal sampled evenly at `rate` (a WFDB record's), validated like a CSV.
    /// Values that are not numbers (WFDB's "no sample") are left out, so a run of them longer than
    /// `maximumGap` is a gap, analysed either side.
    /// - Throws: `InputError` as ``load(path:column:rate:maximumGap:polarity:)``: infinite values or
    ///   ones beyond ±`PulseAnalyzer.maximumMagnitude` (PulseDetection; `nonFinite`), a rate outside 5 Hz...10 kHz,
    ///   too little data, a flat signal.
    public static func signal(_ values: [Double], rate: Double, source: String, column: String,
                              polarity: Polarity = .asRecorded, maximumGap: Double = 1) throws -> PulseRecording {
        var scan = SampleScan(channels: 1, maximumGap: maximumGap)
        var inputs: [PulseInput] = []
        inputs.reserveCapacity(values.count)
        let sign = polarity == .inverted ? -1.0 : 1.0
        // Times count from the first sample there is (the file's clock starts `first` samples earlier).
        let first = values.firstIndex { !$0.isNaN } ?? 0
        for i in first..<values.count where !values[i].isNaN {
            let t = Double(i - first) / rate
            scan.add(time: t, values: CollectionOfOne(values[i]), place: i + 1)
            inputs.append(.ppg(time: t, value: sign * values[i]))
        }
        guard inputs.count >= 2 else { throw InputError(.tooShort, "\(source): only \(inputs.count) sample(s) of \(column)") }
        // As a CSV's values: the analyzer would skip every such sample and report nothing, with no word why.
        if let (at, value) = scan.unusable[0] {
            throw InputError(.nonFinite, "\(source): sample \(at) of \(column) has \(SampleScan.describe(value))")
        }
        let checked = try scan.checked(source: source, names: column, rate: rate, rateIsStatedBesideTimes: false, scale: 1,
                                       place: { "sample \($0)" })
        return PulseRecording(source: source, inputs: Inputs(inputs), sampleRate: checked.sampleRate, duration: checked.duration,
                              columns: column, gaps: scan.gaps, startTime: Double(first) / rate)
    }
}

/// How a checked CSV's rows become inputs: which columns, and the corrections the checks decided.
struct CSVReading: Sendable {
    /// The time column (when there is one), then the signal's.
    var columns: [Int]
    var hasTimeColumn: Bool
    var millisecondTimes: Bool
    /// The stated rate, Hz: times for a file without a time column.
    var rate: Double?
    /// A factor for colour means not in 0...255; nil leaves them as written.
    var scale: Double?
    var inverted = false
    /// The first sample's time, subtracted from every time.
    var startTime = 0.0

    init(columns: [Int], hasTimeColumn: Bool, millisecondTimes: Bool, rate: Double?) {
        self.columns = columns
        self.hasTimeColumn = hasTimeColumn
        self.millisecondTimes = millisecondTimes
        self.rate = rate
    }

    /// Row `row`'s time on the file's clock, seconds, from the time column's `value`.
    @inline(__always)
    func time(row: Int, _ value: Double?) -> Double {
        guard hasTimeColumn, let value else { return Double(row) / rate! }
        return millisecondTimes ? value / 1000 : value
    }

    /// Row `row` as an input.
    @inline(__always)
    func input(row: Int, _ values: UnsafeBufferPointer<Double>) -> PulseInput {
        let t = time(row: row, values.first) - startTime
        let first = hasTimeColumn ? 1 : 0
        func value(_ k: Int) -> Double {
            var v = values[first + k]
            if let scale { v = v * scale }
            return inverted ? -v : v
        }
        if values.count - first == 3 {
            return .color(ColorSample(time: t, red: value(0), green: value(1), blue: value(2)))
        }
        return .ppg(time: t, value: value(0))
    }
}

/// What one pass over a recording's samples finds, for its checks: held in memory of the channels'
/// count, not the samples' (the sampling intervals are counted by value; see ``IntervalMedian``).
struct SampleScan {
    let maximumGap: Double
    private(set) var count = 0
    private var first = 0.0, previous = 0.0
    /// Where the first time that is not finite is.
    private var badTime: Int?
    /// The first time that does not increase, where it is and the time before it.
    private var stalled: (place: Int, time: Double, previous: Double)?
    private(set) var gaps: [(from: Double, to: Double)] = []
    private var intervals = IntervalMedian()
    /// Seconds between samples further apart than the minimum rate allows, outside and inside gaps.
    private var sparse = 0.0, gapTime = 0.0
    private(set) var lowest: [Double], highest: [Double]
    private var sums: [Double]
    /// Per channel, the first value the analysis cannot take, and where.
    private(set) var unusable: [(place: Int, value: Double)?]

    /// An unusable value as an error names it: "an infinite value", "the value -2e+300, beyond ±1e+100".
    static func describe(_ value: Double) -> String {
        value.isNaN ? "an empty, missing (a short line) or NaN value"
            : value.isInfinite ? "an infinite value"
            : String(format: "the value %g, beyond ±%g (no sensor reads that)", value, PulseAnalyzer.maximumMagnitude)
    }

    init(channels: Int, maximumGap: Double) {
        self.maximumGap = maximumGap
        lowest = Array(repeating: .infinity, count: channels)
        highest = Array(repeating: -.infinity, count: channels)
        sums = Array(repeating: 0, count: channels)
        unusable = Array(repeating: nil, count: channels)
    }

    /// Each channel's mean.
    var means: [Double] { sums.map { $0 / Double(count) } }

    /// Takes the next sample; `place` says where it is (a line, a frame) in messages.
    mutating func add<C: Collection>(time t: Double, values: C, place: Int) where C.Element == Double {
        for (k, v) in values.enumerated() {
            if unusable[k] == nil && !PulseAnalyzer.isUsable(v) { unusable[k] = (place, v) }
            if v < lowest[k] { lowest[k] = v }
            if v > highest[k] { highest[k] = v }
            sums[k] += v
        }
        defer { count += 1 }
        if badTime == nil && !t.isFinite { badTime = place }
        guard count > 0 else {
            first = t
            previous = t
            return
        }
        if badTime == nil && stalled == nil {
            let dt = t - previous
            if dt <= 0 { stalled = (place, t, previous) }
            if dt > maximumGap { gaps.append((previous - first, t - first)) }
            intervals.add(dt)
            // A hair of tolerance: times i / 5 Hz differ by 0.2 s plus or minus rounding, and a
            // recording at exactly the minimum rate was refused as irregular.
            if dt > (1 / PulseRecording.minimumRate) * (1 + 1e-9) {
                if dt > maximumGap { gapTime += dt } else { sparse += dt }
            }
        }
        previous = t
    }

    /// Checks times and values (in this order: times finite and increasing, a stated rate against
    /// the times, the rate's range, the sampling's regularity, the length, flatness) and measures the
    /// rate. `scale` is the factor the values will be read with; `place` names a sample's place;
    /// `millisecondTimes` says the times came from a `time_ms` column.
    func checked(source src: String, names: String, rate: Double?, rateIsStatedBesideTimes: Bool,
                 millisecondTimes: Bool = false, scale: Double,
                 place: (Int) -> String) throws -> (sampleRate: Double, duration: Double, startTime: Double) {
        if let badTime {
            throw InputError(.nonFinite, "\(src): \(place(badTime)), column 'time_s' is empty or not finite")
        }
        if let stalled {
            throw InputError(.badTimestamps,
                             "\(src): \(place(stalled.place)): time \(stalled.time) s does not increase (previous \(stalled.previous) s)")
        }
        let measured = 1 / intervals.median()
        if let rate, rateIsStatedBesideTimes, !(abs(measured - rate) <= PulseRecording.statedRateTolerance * rate) {
            // The pipeline would be set up for one rate and fed samples at another.
            throw InputError(.badRate, String(format: "%@: --rate %g Hz contradicts the time_s column (%.3g Hz); leave out --rate, the times are used",
                                              src, rate, measured))
        }
        let sampleRate = rate ?? measuredRate(measured, atMost: 10_000)
        guard sampleRate >= 5, sampleRate <= 10_000 else {
            // Times written in milliseconds read as a rate a thousand times too low (samples 2 or more
            // "seconds" apart are no physiological recording in seconds).
            // And seconds in a time_ms column read a thousand times too high.
            let hint = rate != nil ? ""
                : millisecondTimes ? (sampleRate > 10_000 && sampleRate / 1000 <= 10_000
                                      ? " (are the times in seconds? time_ms must be milliseconds)" : "")
                : sampleRate < 0.5 && sampleRate * 1000 >= 5 ? " (are the times in milliseconds? time_s must be seconds)" : ""
            throw InputError(.badRate, String(format: "%@: sample rate %.3g Hz is outside 5 Hz...10 kHz%@", src, sampleRate, hint))
        }
        let duration = previous - first
        // Holes shorter than a gap are interpolated across; when much of the recording is such holes
        // the pulse between the samples is invented (half the intervals 0.9 s long gave 44 bpm).
        let minimumRate = PulseRecording.minimumRate
        if sparse > PulseRecording.maximumSparseFraction * (duration - gapTime) {
            throw InputError(.badTimestamps, String(
                format: "%@: %.0f %% of the recording lies between samples more than %.1f s apart (the %g Hz minimum rate); the sampling is too irregular to find a pulse",
                src, 100 * sparse / (duration - gapTime), 1 / minimumRate, minimumRate))
        }
        guard duration >= 2 else {
            throw InputError(.tooShort, String(format: "%@: %.2f s of signal; at least 2 s are needed", src, duration))
        }
        // One flat colour channel (a clipped red) is normal; all flat is not. (Scaling keeps order,
        // so the scaled extremes are the extremes scaled.)
        if zip(lowest, highest).allSatisfy({ $0 * scale == $1 * scale }) {
            throw InputError(.flatSignal, "\(src): the signal (\(names)) is flat: no pulse to measure")
        }
        return (sampleRate, duration, first)
    }
}

/// The median of positive values seen one at a time, in memory of their distinct values: a time
/// column written at a fixed step has a handful of distinct intervals however long it is, and their
/// median is exact. Past `distinctLimit` distinct values (times with jitter) the values are counted
/// in bins instead: each bin holds the values that agree in all but the last bits of their
/// significand, with their count and sum, and when the bins pass the limit again they are merged by
/// one more bit. The median is then the mean of its bin's values: within one bin's width of the
/// exact median (a relative 2⁻¹⁶ or finer while the values lie within a factor of two), in memory
/// bounded however long the recording.
struct IntervalMedian {
    private struct Bin {
        var count = 0
        var sum = 0.0
        mutating func add(count n: Int, sum s: Double) {
            count += n
            sum += s
        }
    }
    /// Exact counts, by value, or, once `droppedBits > 0`, bins keyed by the value with its last
    /// `droppedBits` significand bits cleared.
    private var bins: [Double: Bin] = [:]
    private var droppedBits = 0
    private var count = 0
    /// The latest value and how many times it came in a row, not yet in `bins`.
    private var run: (value: Double, count: Int)?
    static let distinctLimit = 1 << 16
    /// Bits cleared at once when counting by value first passes the limit (bins of a relative 2⁻³²).
    private static let firstDroppedBits = 20

    /// How many values or bins are held.
    var storedBins: Int { bins.count }

    mutating func add(_ x: Double) {
        count += 1
        if run?.value == x {
            run!.count += 1
        } else {
            flushRun()
            run = (x, 1)
        }
    }

    private func key(_ x: Double) -> Double {
        droppedBits == 0 ? x : Double(bitPattern: x.bitPattern & ~((UInt64(1) << UInt64(droppedBits)) - 1))
    }

    private mutating func flushRun() {
        guard let r = run else { return }
        run = nil
        bins[key(r.value), default: Bin()].add(count: r.count, sum: r.value * Double(r.count))
        while bins.count > Self.distinctLimit && droppedBits < 52 {
            droppedBits = droppedBits == 0 ? Self.firstDroppedBits : droppedBits + 1
            var merged: [Double: Bin] = [:]
            merged.reserveCapacity(bins.count)
            for (value, bin) in bins { merged[key(value), default: Bin()].add(count: bin.count, sum: bin.sum) }
            bins = merged
        }
    }

    /// The median (the mean of the two middle values for an even count): exact, as
    /// `Statistics.selectMedian` gives it, while the values have at most `distinctLimit` distinct
    /// values; else within a bin's width of it. NaN with no values.
    func median() -> Double {
        var all = self
        all.flushRun()
        guard count > 0 else { return .nan }
        let sorted = all.bins.sorted { $0.key < $1.key }
        let exact = all.droppedBits == 0
        func value(at rank: Int) -> Double {
            var seen = 0
            for (v, bin) in sorted {
                seen += bin.count
                if seen > rank { return exact ? v : bin.sum / Double(bin.count) }
            }
            return .nan
        }
        let upper = value(at: count / 2)
        return count % 2 == 1 ? upper : (value(at: count / 2 - 1) + upper) / 2
    }
}
