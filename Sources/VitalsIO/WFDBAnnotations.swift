import Foundation

/// One annotation of a PhysioNet (WFDB) annotation file: a beat, a rhythm change, a note, at a sample.
public struct WFDBAnnotation: Sendable, Equatable {
    /// The sample it marks (at the annotation file's frequency, or the record's).
    public var sample: Int
    /// The WFDB annotation code (1 = normal beat, 5 = premature ventricular contraction, 28 = rhythm
    /// change, ...).
    public var code: Int
    public var subtype: Int
    public var channel: Int
    public var number: Int
    /// The auxiliary text ("(AFIB" for a rhythm change), nil when there is none.
    public var aux: String?

    /// The code's mnemonic as PhysioNet writes it ("N", "V", "+", ...), "?" past the table.
    public var symbol: String { Self.symbols.indices.contains(code) ? Self.symbols[code] : "?" }

    /// Whether the annotation marks a heartbeat (a QRS complex): WFDB's `isqrs` codes, the beat
    /// labels N L R B A a J S V r F e j n E / f Q ?.
    public var isBeat: Bool { Self.beatCodes.contains(code) }

    static let beatCodes: Set<Int> = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 25, 30, 34, 35, 38, 41]
    /// WFDB's `ecgcodes.h` mnemonics, by code (0 and the unassigned ones blank).
    static let symbols = [" ", "N", "L", "R", "a", "V", "F", "J", "A", "S", "E", "j", "/", "Q", "~", " ", "|", " ", "s",
                          "T", "*", "D", "\"", "=", "p", "B", "^", "t", "+", "u", "?", "!", "[", "]", "e", "n", "@", "x",
                          "f", "(", ")", "r"]
}

/// A PhysioNet annotation file (MIT format: `NAME.atr`, `NAME.qrs`, ...), read natively.
///
/// Each annotation is a 16-bit little-endian word, its code in the top 6 bits and the samples since
/// the one before in the low 10; the codes 59-63 are not annotations but say more: SKIP (a 32-bit
/// interval, high half first), NUM, SUB and CHN (the annotation's number, subtype and channel; number
/// and channel carry over to the next ones), AUX (a text of so many bytes). A word of 0 ends the file.
/// A code-0 word with an interval only moves the time. The time resolution wfdb-python writes as a
/// first note ("## time resolution: 250") is read as ``frequency`` and not listed.
public struct WFDBAnnotations: Sendable {
    public var annotations: [WFDBAnnotation]
    /// Samples per second the annotation times count, when the file says; otherwise the record's.
    public var frequency: Double?

    /// The annotations in order; the times of the beats (``WFDBAnnotation/isBeat``) are R-peaks.
    /// - Throws: `InputError` for a missing or empty file, or one that ends inside an annotation.
    public init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw InputError(.fileNotFound, "\(path): no such file") }
        try self.init(bytes: try readInputFile(path), source: path)
    }

    public init(bytes: [UInt8], source: String) throws {
        guard !bytes.isEmpty else { throw InputError(.empty, "\(source): file is empty") }
        var list: [WFDBAnnotation] = []
        var frequency: Double?
        var i = 0, time = 0, number = 0, channel = 0
        func word() throws -> Int {
            guard i + 2 <= bytes.count else {
                throw InputError(.corrupt, "\(source): ends inside an annotation at byte \(i) (truncated, or not a WFDB annotation file)")
            }
            defer { i += 2 }
            return Int(bytes[i]) | Int(bytes[i + 1]) << 8
        }
        while i < bytes.count {
            let w = try word()
            let code = w >> 10, interval = w & 0x3FF
            switch code {
            case 0 where interval == 0:
                i = bytes.count  // the end
            case 59:  // SKIP: a 32-bit interval, high 16 bits first
                let high = try word(), low = try word()
                time += Int(Int32(bitPattern: UInt32(high << 16 | low)))
            case 60: if !list.isEmpty { list[list.count - 1].number = interval; number = interval }
            case 61: if !list.isEmpty { list[list.count - 1].subtype = interval }
            case 62: if !list.isEmpty { list[list.count - 1].channel = interval; channel = interval }
            case 63:  // AUX: `interval` bytes of text, padded to an even count
                guard i + interval <= bytes.count else {
                    throw InputError(.corrupt, "\(source): an annotation's text runs past the end of the file (byte \(i))")
                }
                let text = String(decoding: bytes[i..<(i + interval)], as: UTF8.self)
                i += interval + interval % 2
                guard !list.isEmpty else { continue }
                if list.count == 1, list[0].code == 22, list[0].sample == 0, text.hasPrefix("## time resolution: "),
                   let f = Double(text.dropFirst("## time resolution: ".count)), f > 0, f.isFinite {
                    frequency = f
                    list.removeAll()
                } else {
                    list[list.count - 1].aux = text
                }
            case 0:
                time += interval
            default:
                time += interval
                list.append(WFDBAnnotation(sample: time, code: code, subtype: 0, channel: channel, number: number, aux: nil))
            }
        }
        annotations = list
        self.frequency = frequency
    }
}
