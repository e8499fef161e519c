import Foundation

/// A PhysioNet (WFDB) record: its header (`NAME.hea`) and the signals in its data files, read
/// natively (no dependency), so PhysioNet's PPG and ECG records run through the toolkit as they are
/// published.
///
/// Read: single-segment records whose signals are stored in formats 16, 61, 80, 212, 24 or 32 (one
/// sample per signal per frame), with byte offsets, gains, baselines and units as the header gives
/// them (the WFDB Applications Guide, header(5) and signal(5)). Values are physical units, `(stored
/// − baseline) / gain`; a stored value WFDB reserves for "no sample" reads as not-a-number.
/// Refused with a clear error: multi-segment records, other formats, several samples per frame,
/// skew, and data files shorter than the header says.
public struct WFDBRecord: Sendable {
    public struct Signal: Sendable, Equatable {
        /// The data file, relative to the header's folder.
        public var file: String
        /// The storage format (16, 61, 80, 212, 24, 32).
        public var format: Int
        /// Analogue-to-digital units per physical unit, and the stored value of 0 physical units.
        public var gain: Double
        public var baseline: Int
        /// The physical unit ("mV", "NU"), "" when the header gives none.
        public var units: String
        /// What the signal is ("II", "PLETH", "ABP", ...), "" when the header gives none.
        public var description: String
        /// Bytes to skip at the start of the data file.
        var byteOffset: Int
    }

    /// The record's name, as its header gives it.
    public var name: String
    /// Samples per second per signal, Hz.
    public var sampleRate: Double
    /// Samples per signal; nil when the header leaves it out (then the data file's length says).
    public var sampleCount: Int?
    public var signals: [Signal]
    /// The header's folder, where the data files are.
    public var folder: String

    /// The formats this reader takes.
    public static let formats = [16, 61, 80, 212, 24, 32]

    /// Whether `path` names a WFDB header (`.hea`).
    public static func isHeader(_ path: String) -> Bool { path.lowercased().hasSuffix(".hea") }

    /// Reads and checks the header at `path` (the data files are read by ``values(of:)``).
    /// - Throws: `InputError` naming the problem: a missing or binary file, a line that is not a
    ///   WFDB header line, or what this reader does not take.
    public init(headerPath path: String) throws {
        let text = String(decoding: try readInputFile(path, text: true), as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        func bad(_ what: String) -> InputError { InputError(.corrupt, "\(path): \(what)") }
        guard let recordLine = lines.first else { throw InputError(.empty, "\(path): no record line (an empty WFDB header)") }
        let fields = recordLine.split(whereSeparator: Self.isFieldSeparator).map(String.init)
        guard fields.count >= 2 else { throw bad("the record line '\(recordLine)' needs a name and a number of signals") }
        if fields[0].contains("/") {
            throw InputError(.unsupportedFormat, "\(path): a multi-segment record (\(fields[0])); read its segments' headers one at a time")
        }
        guard let count = Int(fields[1]), count >= 1, count <= 4096 else {
            throw bad("'\(fields[1])' is not a number of signals (1...4096)")
        }
        // The frequency may carry a counter frequency and a base counter value: "250/1000(0)".
        let rateText = fields.count > 2 ? String(fields[2].prefix { $0 != "/" && $0 != "(" }) : "250"
        guard let rate = Double(rateText), rate.isFinite, rate > 0 else { throw bad("'\(fields[2])' is not a sampling frequency") }
        var sampleCount: Int?
        if fields.count > 3 {
            guard let n = Int(fields[3]), n >= 0 else { throw bad("'\(fields[3])' is not a number of samples") }
            sampleCount = n
        }
        guard lines.count >= 1 + count else {
            throw bad("the record line says \(count) signals, and \(lines.count - 1) signal lines follow")
        }
        name = fields[0]
        sampleRate = rate
        self.sampleCount = sampleCount
        folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        signals = try lines[1...count].map { try Self.signal($0, header: path) }
        // Signals in one file are interleaved frame by frame, in the order of their lines, which the
        // format wants consecutive: they must be, and share a format, to be read here.
        for file in Set(signals.map(\.file)) {
            let indices = signals.indices.filter { signals[$0].file == file }
            guard indices.last! - indices.first! == indices.count - 1 else {
                throw InputError(.corrupt, "\(path): \(file) holds the header's signals \(indices.map { String($0 + 1) }.joined(separator: ", ")), not listed together as the format has them")
            }
            let group = indices.map { signals[$0] }
            guard Set(group.map(\.format)).count == 1, Set(group.map(\.byteOffset)).count == 1 else {
                throw InputError(.unsupportedFormat, "\(path): the signals in \(file) mix formats or offsets, which this reader does not take")
            }
        }
    }

    /// Fields are separated by spaces or tabs (as the WFDB library and wfdb-python read them).
    static func isFieldSeparator(_ c: Character) -> Bool { c == " " || c == "\t" }

    /// One signal line: `file format[+offset] gain[(baseline)][/units] resolution zero initial checksum block description`.
    static func signal(_ line: String, header path: String) throws -> Signal {
        func bad(_ what: String) -> InputError { InputError(.corrupt, "\(path): signal line '\(line)': \(what)") }
        let fields = line.split(maxSplits: 8, omittingEmptySubsequences: true, whereSeparator: isFieldSeparator).map(String.init)
        guard fields.count >= 2 else { throw bad("needs a file name and a format") }
        let file = fields[0]
        guard !file.contains("/"), file != "-", file != "~" else {
            throw InputError(.unsupportedFormat, "\(path): signal file '\(file)' (standard input, a path or no file) is not read; keep the data file beside the header")
        }
        var formatText = Substring(fields[1])
        var offset = 0
        if let plus = formatText.firstIndex(of: "+") {
            guard let o = Int(formatText[formatText.index(after: plus)...]), o >= 0 else { throw bad("bad byte offset") }
            offset = o
            formatText = formatText[..<plus]
        }
        if formatText.hasSuffix("x1") { formatText = formatText.dropLast(2) }  // one sample per frame, said outright
        if formatText.contains("x") || formatText.contains(":") {
            throw InputError(.unsupportedFormat, "\(path): signal format '\(fields[1])' (several samples per frame or skew) is not read")
        }
        guard let format = Int(formatText) else { throw bad("'\(fields[1])' is not a format") }
        guard formats.contains(format) else {
            throw InputError(.unsupportedFormat, "\(path): signal format \(format) is not read (formats read: \(formats.map(String.init).joined(separator: ", ")))")
        }
        // Gain, with an optional baseline and units: "200(-12)/mV". 0 or absent means WFDB's default, 200.
        var gain = 200.0, baseline: Int?, units = ""
        if fields.count > 2 {
            var g = Substring(fields[2])
            if let slash = g.firstIndex(of: "/") {
                units = String(g[g.index(after: slash)...])
                g = g[..<slash]
            }
            if let open = g.firstIndex(of: "("), g.hasSuffix(")") {
                guard let b = Int(g[g.index(after: open)..<g.index(before: g.endIndex)]) else { throw bad("bad baseline") }
                baseline = b
                g = g[..<open]
            }
            guard let value = Double(g), value.isFinite else { throw bad("'\(fields[2])' is not a gain") }
            if value != 0 { gain = value }
        }
        // The ADC zero (field 5) is the baseline when none is given.
        let zero = fields.count > 4 ? Int(fields[4]) ?? 0 : 0
        return Signal(file: file, format: format, gain: gain, baseline: baseline ?? zero, units: units,
                      description: fields.count > 8 ? fields[8] : "", byteOffset: offset)
    }

    /// The index of the signal described `name` (case-insensitive), or of the only signal when
    /// `name` is nil and there is one, or of the one described `PLETH` (PhysioNet's name for a PPG).
    /// - Throws: `InputError.missingColumn` naming the signals there are.
    public func signalIndex(named name: String?) throws -> Int {
        let names = signals.map(\.description)
        // Some databases end descriptions with a comma ("PLETH," in BIDMC): compared without it.
        func matches(_ description: String, _ wanted: String) -> Bool {
            description.trimmingCharacters(in: CharacterSet(charactersIn: ",; ")).caseInsensitiveCompare(wanted) == .orderedSame
        }
        if let name {
            if let i = names.firstIndex(where: { matches($0, name) }) { return i }
            if let i = Int(name), signals.indices.contains(i) { return i }
        } else if signals.count == 1 {
            return 0
        } else if let i = names.firstIndex(where: { matches($0, "PLETH") }) {
            return i
        }
        let what = name.map { "no signal described '\($0)'" } ?? "no PLETH signal; name one with --column"
        throw InputError(.missingColumn, "\(self.name): \(what); the record's signals are \(names.enumerated().map { "\($0.offset): \($0.element.isEmpty ? "(no description)" : $0.element)" }.joined(separator: ", "))")
    }

    /// Signal `index`'s description, or "signal N" where the header gives none.
    public func displayName(ofSignal index: Int) -> String {
        signals[index].description.isEmpty ? "signal \(index)" : signals[index].description
    }

    /// Signal `index`'s samples in physical units (not-a-number where WFDB marks no sample).
    /// - Throws: `InputError` for a missing data file, or one shorter than the header's sample count.
    public func values(of index: Int) throws -> [Double] {
        let signal = signals[index]
        let group = signals.indices.filter { signals[$0].file == signal.file }
        let channels = group.count
        let channel = group.firstIndex(of: index)!
        let path = (folder as NSString).appendingPathComponent(signal.file)
        let bytes = try readInputFile(path)
        let data = bytes.count > signal.byteOffset ? bytes[signal.byteOffset...] : []
        let bitsPerSample = [16: 16, 61: 16, 80: 8, 212: 12, 24: 24, 32: 32][signal.format]!
        let frames = data.count * 8 / (bitsPerSample * channels)
        let n = sampleCount ?? frames
        guard frames >= n else {
            throw InputError(.corrupt, "\(path): holds \(frames) samples per signal, and the header says \(n)")
        }
        let invalid = -(1 << (bitsPerSample - 1))  // the "no sample" value of every format (format 80: after its shift)
        var out = [Double](repeating: 0, count: n)
        data.withUnsafeBufferPointer { raw in
            for frame in 0..<n {
                let k = frame * channels + channel  // the sample's place in the file's interleaved stream
                let stored: Int
                switch signal.format {
                case 16: stored = Int(Int16(bitPattern: UInt16(raw[2 * k]) | UInt16(raw[2 * k + 1]) << 8))
                case 61: stored = Int(Int16(bitPattern: UInt16(raw[2 * k]) << 8 | UInt16(raw[2 * k + 1])))
                case 80: stored = Int(raw[k]) - 128
                case 24:
                    let u = Int(raw[3 * k]) | Int(raw[3 * k + 1]) << 8 | Int(raw[3 * k + 2]) << 16
                    stored = u >= 1 << 23 ? u - (1 << 24) : u
                case 32:
                    stored = Int(Int32(bitPattern: UInt32(raw[4 * k]) | UInt32(raw[4 * k + 1]) << 8
                                       | UInt32(raw[4 * k + 2]) << 16 | UInt32(raw[4 * k + 3]) << 24))
                default:  // 212: two 12-bit samples in three bytes; the second's high nibble is the middle byte's top
                    let pair = 3 * (k / 2)
                    let u = k % 2 == 0
                        ? Int(raw[pair]) | (Int(raw[pair + 1]) & 0x0f) << 8
                        : Int(raw[pair + 2]) | (Int(raw[pair + 1]) & 0xf0) << 4
                    stored = u >= 1 << 11 ? u - (1 << 12) : u
                }
                // In Double: a header's baseline may be any Int, and `stored - baseline` in Int overflowed.
                out[frame] = stored == invalid ? .nan : (Double(stored) - Double(signal.baseline)) / signal.gain
            }
        }
        return out
    }
}

extension WFDBRecord {
    /// The signal `column` names (see ``signalIndex(named:)``: PLETH, or the only signal, when nil)
    /// as a recording; `source` names it in messages (the header's path, as it was given).
    public func recording(column: String?, source: String, polarity: PulseRecording.Polarity = .asRecorded) throws -> PulseRecording {
        let index = try signalIndex(named: column)
        return try PulseRecording.signal(values(of: index), rate: sampleRate, source: source,
                                         column: displayName(ofSignal: index), polarity: polarity)
    }
}
