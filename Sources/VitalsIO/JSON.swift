import Foundation

/// A JSON value with keys kept in the order they were written, so documents read the same every run.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool { a.serialized() == b.serialized() }

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
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
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
                v.write(into: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, (k, v)) in o.enumerated() {
                if i > 0 { out += ", " }
                JSON.quote(k, into: &out)
                out += ": "
                v.write(into: &out)
            }
            out += "}"
        }
    }

    private static func quote(_ s: String, into out: inout String) {
        out += "\""
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
