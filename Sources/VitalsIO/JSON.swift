import Foundation

/// A JSON value with keys kept in the order they were written, so documents read the same every run.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])
    /// An array whose elements are made as it is written (`element(0)`, `element(1)`, ...): a day's
    /// hundred thousand beats written without a tree of them in memory.
    case lazyArray(count: Int, element: @Sendable (Int) -> JSON)

    public static func == (a: JSON, b: JSON) -> Bool { a.serialized() == b.serialized() }

    /// An array's elements (a lazy array's made now); nil for any other value.
    public var elements: [JSON]? {
        switch self {
        case .array(let a): a
        case .lazyArray(let count, let element): (0..<count).map(element)
        default: nil
        }
    }

    /// A number, or null when it is nil or not finite (JSON has no NaN or infinity).
    public static func num(_ v: Double?) -> JSON {
        guard let v, v.isFinite else { return .null }
        return .number(v)
    }

    /// A number rounded to `digits` decimals, or null. Numbers too large to scale by 10^digits keep
    /// their value (they have no decimals left to round).
    public static func num(_ v: Double?, digits: Int) -> JSON {
        guard let v, v.isFinite else { return .null }
        let p = pow(10.0, Double(digits))
        let rounded = (v * p).rounded() / p
        return .number(rounded.isFinite ? rounded : v)
    }

    /// Compact serialisation (one line).
    public func serialized() -> String {
        var out = ""
        write(into: &out, flush: nil)
        return out
    }

    /// Writes the serialisation and a line break a megabyte at a time through `output` (by default
    /// `print` to standard output), so a long document is never whole in memory: what `print` of
    /// ``serialized()`` writes, in pieces.
    public func writeLine(_ output: (String) -> Void = { print($0, terminator: "") }) {
        var out = ""
        withoutActuallyEscaping(output) { output in
            write(into: &out) { text in
                output(text)
                text.removeAll(keepingCapacity: true)
            }
        }
        output(out + "\n")
    }

    /// Appends the serialisation to `out`; `flush`, when given, is handed `out` between array
    /// elements once it holds a megabyte, and empties it.
    private func write(into out: inout String, flush: ((inout String) -> Void)?) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let v):
            if !v.isFinite {
                out += "null"  // JSON has no NaN or infinity
            } else if v == v.rounded(), abs(v) < 1e15 {
                out += String(Int64(v))
            } else {
                out += "\(v)"
            }
        case .string(let s): JSON.quote(s, into: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += ", " }
                v.write(into: &out, flush: flush)
            }
            out += "]"
        case .lazyArray(let count, let element):
            out += "["
            for i in 0..<count {
                if i > 0 { out += ", " }
                element(i).write(into: &out, flush: flush)
                if let flush, out.utf8.count >= 1 << 20 { flush(&out) }
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, (k, v)) in o.enumerated() {
                if i > 0 { out += ", " }
                JSON.quote(k, into: &out)
                out += ": "
                v.write(into: &out, flush: flush)
            }
            out += "}"
        }
    }

    private static func quote(_ s: String, into out: inout String) {
        out += "\""
        // Most strings (every key) need no escape: appended whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += s
            out += "\""
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    out += String(format: "\\u%04x", u.value)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }
}
