import Foundation
import PulseDetection
import SignalProcessing

/// A recording for the pulse pipeline read from a CSV file: mean colours of fingertip frames
/// (`r,g,b` columns) or one PPG column, with times from a `time_s` column or a stated rate.
public struct PulseRecording: Sendable {
    public var source: String
    public var inputs: [PulseInput]
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

    /// Loads and validates a recording.
    ///
    /// - Parameters:
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
        let src = csv.source
        var signalColumns: [Int]
        var names: String
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
        var cols = try csv.numericColumns((timeColumn.map { [$0] } ?? []) + signalColumns)
        var notes: [String] = []
        if timeColumn != nil && secondsColumn == nil {
            cols[0] = cols[0].map { $0 / 1000 }
            notes.append("\(src): times read from time_ms, in milliseconds")
        }
        var signal = timeColumn == nil ? cols : Array(cols.dropFirst())
        let n = signal[0].count
        guard n >= 2 else { throw InputError(.tooShort, "\(src): only \(n) data row(s)") }
        for (k, values) in signal.enumerated() {
            if let i = values.firstIndex(where: { !PulseAnalyzer.isUsable($0) }) {
                let what = values[i].isNaN ? "an empty, missing (a short line) or NaN value"
                    : values[i].isInfinite ? "an infinite value"
                    : String(format: "the value %g, beyond ±%g (no sensor reads that)", values[i], PulseAnalyzer.maximumMagnitude)
                throw InputError(.nonFinite, "\(src): line \(csv.lineNumber(ofRow: i)), column '\(csv.header[signalColumns[k]])' has \(what)")
            }
        }
        var times: [Double]
        if let rate {
            guard rate >= 5, rate <= 10_000 else {
                throw InputError(.badRate, "\(src): --rate \(rate) Hz is outside 5 Hz...10 kHz")
            }
            times = timeColumn != nil ? cols[0] : (0..<n).map { Double($0) / rate }
        } else {
            times = cols[0]
        }
        // Colour means scaled to 0...1 (float images, normalised exports) instead of the 0...255 the
        // pipeline's contact test and colour thresholds use: a fingertip read as a dark, unlit frame
        // and the rate was declined as "signal quality too low". The brightest channel's mean must
        // reach 0.3 (a torch-lit fingertip's red is 0.5-1 of full scale), so a black 0...255
        // recording, whose means stay near 0, is left as it is.
        if column == nil, let largest = signal.lazy.flatMap({ $0 }).max(), largest <= 1,
           signal.map(Statistics.mean).max()! >= 0.3,
           signal.allSatisfy({ $0.allSatisfy { $0 >= 0 } }) {
            signal = signal.map { $0.map { $0 * 255 } }
            notes.append(String(format: "%@: r,g,b look like 0-1 values (none above %.3g): read as fractions of 255", src, largest))
        }
        // Deeper colour means (10-16-bit sensors and exports): the contact test and the channel-level
        // floor are in 0...255 units, and 16-bit means brought back near-black channels' ripple as
        // confident 60-bpm answers (MTHS subject 22, scaled x257). The smallest of 10, 12, 14 or 16
        // bits that holds the largest value is taken as the full scale. 8-bit means can pass 255:
        // `vitals frames` converts Y'CbCr plane means without clipping, and a saturated red reaches
        // about 434 (Y' 235, Cr 240), so only values above `deeperColourThreshold` count.
        if column == nil, let largest = signal.lazy.flatMap({ $0 }).max(), largest > Self.deeperColourThreshold,
           let bits = [10, 12, 14, 16].first(where: { largest <= Double((1 << $0) - 1) }) {
            let scale = 255 / Double((1 << bits) - 1)
            signal = signal.map { $0.map { $0 * scale } }
            notes.append(String(format: "%@: r,g,b reach %.6g, beyond 8 bits: read as %d-bit values (0-%d) and scaled to 0-255",
                                src, largest, bits, (1 << bits) - 1))
        }
        if column != nil && polarity == .inverted { signal = signal.map { $0.map { -$0 } } }
        var recording = try validated(source: src, times: times, signal: signal, names: names, rate: rate, maximumGap: maximumGap,
                                      rateIsStatedBesideTimes: timeColumn != nil, place: { "line \(csv.lineNumber(ofRow: $0))" })
        recording.notes = notes
        return recording
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
        return try validated(source: source, times: samples.map(\.time),
                             signal: [samples.map(\.red), samples.map(\.green), samples.map(\.blue)],
                             names: "r,g,b", rate: nil, maximumGap: maximumGap, place: { "frame \($0 + 1)" })
    }

    /// Checks times and signal, measures the rate, finds gaps and builds the inputs (times from 0).
    /// `place` names sample i in messages ("line 12" of a CSV, "frame 11" of a video).
    static func validated(source src: String, times: [Double], signal: [[Double]], names: String, rate: Double?,
                          maximumGap: Double, rateIsStatedBesideTimes: Bool = false,
                          place: (Int) -> String) throws -> PulseRecording {
        let n = times.count
        if let i = times.firstIndex(where: { !$0.isFinite }) {
            throw InputError(.nonFinite, "\(src): \(place(i)), column 'time_s' is empty or not finite")
        }
        var gaps: [(Double, Double)] = []
        var intervals: [Double] = []
        intervals.reserveCapacity(n)
        for i in 1..<n {
            let dt = times[i] - times[i - 1]
            if dt <= 0 {
                throw InputError(.badTimestamps,
                                 "\(src): \(place(i)): time \(times[i]) s does not increase (previous \(times[i - 1]) s)")
            }
            if dt > maximumGap { gaps.append((times[i - 1] - times[0], times[i] - times[0])) }
            intervals.append(dt)
        }
        let measured = 1 / intervals.withUnsafeMutableBufferPointer { Statistics.selectMedian($0) }
        if let rate, rateIsStatedBesideTimes, !(abs(measured - rate) <= statedRateTolerance * rate) {
            // The pipeline would be set up for one rate and fed samples at another.
            throw InputError(.badRate, String(format: "%@: --rate %g Hz contradicts the time_s column (%.3g Hz); leave out --rate, the times are used",
                                              src, rate, measured))
        }
        let sampleRate = rate ?? measured
        guard sampleRate >= 5, sampleRate <= 10_000 else {
            // Times written in milliseconds read as a rate a thousand times too low (samples 2 or more
            // "seconds" apart are no physiological recording in seconds).
            let hint = rate == nil && sampleRate < 0.5 && sampleRate * 1000 >= 5
                ? " (are the times in milliseconds? time_s must be seconds)" : ""
            throw InputError(.badRate, String(format: "%@: sample rate %.3g Hz is outside 5 Hz...10 kHz%@", src, sampleRate, hint))
        }
        let duration = times[n - 1] - times[0]
        // Holes shorter than a gap are interpolated across; when much of the recording is such holes
        // the pulse between the samples is invented (half the intervals 0.9 s long gave 44 bpm).
        var sparse = 0.0, gapTime = 0.0
        // A hair of tolerance: times i / 5 Hz differ by 0.2 s plus or minus rounding, and a recording at
        // exactly the minimum rate was refused as irregular.
        for dt in intervals where dt > (1 / minimumRate) * (1 + 1e-9) {
            if dt > maximumGap { gapTime += dt } else { sparse += dt }
        }
        if sparse > maximumSparseFraction * (duration - gapTime) {
            throw InputError(.badTimestamps, String(
                format: "%@: %.0f %% of the recording lies between samples more than %.1f s apart (the %g Hz minimum rate); the sampling is too irregular to find a pulse",
                src, 100 * sparse / (duration - gapTime), 1 / minimumRate, minimumRate))
        }
        guard duration >= 2 else {
            throw InputError(.tooShort, String(format: "%@: %.2f s of signal; at least 2 s are needed", src, duration))
        }
        for (k, values) in signal.enumerated() {
            let lo = values.min()!, hi = values.max()!
            if signal.count == 1 || k == 0 {
                // One flat colour channel (a clipped red) is normal; all flat is not.
                let allFlat = signal.allSatisfy { $0.min()! == $0.max()! }
                if lo == hi && allFlat {
                    throw InputError(.flatSignal, "\(src): the signal (\(names)) is flat: no pulse to measure")
                }
            }
        }
        let t0 = times[0]
        var inputs: [PulseInput] = []
        inputs.reserveCapacity(n)
        if signal.count == 3 {
            for i in 0..<n {
                inputs.append(.color(ColorSample(time: times[i] - t0, red: signal[0][i], green: signal[1][i], blue: signal[2][i])))
            }
        } else {
            for i in 0..<n { inputs.append(.ppg(time: times[i] - t0, value: signal[0][i])) }
        }
        return PulseRecording(source: src, inputs: inputs, sampleRate: sampleRate, duration: duration,
                              columns: names, gaps: gaps, startTime: t0)
    }
}

