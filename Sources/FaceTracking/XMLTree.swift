import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML element as OpenCV's `FileStorage` files use them: a name, attributes, the text directly
/// inside it (whitespace kept), and child elements in order. Comments are dropped.
struct XMLTree: Sendable {
    var name: String
    var attributes: [String: String]
    var text: String
    var children: [XMLTree]
    /// Line of the start tag, 1-based, for messages.
    var line: Int

    /// The first child named `name`.
    func child(_ name: String) -> XMLTree? { children.first { $0.name == name } }

    /// The whitespace-separated words of the element's text.
    var words: [Substring] { text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }) }

    /// The document element of `bytes`.
    /// - Throws: ``FaceTrackingError`` `.malformedXML` with the parser's reason and line.
    static func parse(_ bytes: [UInt8]) throws(FaceTrackingError) -> XMLTree {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw FaceTrackingError(.malformedXML, "cascade is empty")
        }
        if let line = invalidUTF8Line(bytes) {
            throw FaceTrackingError(.malformedXML, "cascade is not UTF-8 text (a byte that is not UTF-8 on line \(line)): an OpenCV cascade is UTF-8 XML")
        }
        let builder = Builder()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = builder
        let ok = parser.parse()
        if builder.tooDeep {
            throw FaceTrackingError(.malformedXML, "cascade nests elements deeper than \(maximumDepth) (line \(max(parser.lineNumber, 1))): not an OpenCV cascade, which nests about 6")
        }
        guard ok, let root = builder.root else {
            let reason = builder.failure ?? parser.parserError.map(Builder.describe)
                ?? builder.stack.last.map { "the document ends inside <\($0.name)>" } ?? "no document element"
            throw FaceTrackingError(.malformedXML, "cascade is not well-formed XML (line \(max(parser.lineNumber, 1)): \(reason))")
        }
        return root
    }

    /// The line of the first byte that is not UTF-8, in a document read as UTF-8 (no other encoding
    /// declared, no UTF-16 byte-order mark); nil when every byte is. libxml2 hands a comment's bytes
    /// to Foundation as they are, and Foundation's XMLParser traps on one that is not UTF-8 (a crash,
    /// not an error); elsewhere such a byte read as "characterRefAtEOF".
    static func invalidUTF8Line(_ bytes: [UInt8]) -> Int? {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) { return nil }
        // `<?xml version="1.0" encoding="ISO-8859-1"?>`: libxml2 converts the document to UTF-8 first.
        if bytes.starts(with: Array("<?xml".utf8)), let end = bytes.prefix(256).firstIndex(of: UInt8(ascii: ">")) {
            let declaration = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
            if let at = declaration.range(of: "encoding") {
                let value = declaration[at.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
                    .prefix { $0 != "\"" && $0 != "'" && $0 != " " && $0 != "?" }
                if value != "utf-8" && value != "utf8" { return nil }
            }
        }
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var line = 1
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): if scalar.count == 1 && scalar.first == 0x0A { line += 1 }
            case .emptyInput: return nil
            case .error: return line
            }
        }
    }

    /// Deepest nesting read. A tree is freed recursively, one stack frame per level: 70 000 levels
    /// overflowed the stack (a crash, not an error).
    static let maximumDepth = 256

    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [XMLTree] = []
        var root: XMLTree?
        var failure: String?
        var tooDeep = false

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            guard stack.count < XMLTree.maximumDepth else {
                tooDeep = true
                parser.abortParsing()
                return
            }
            stack.append(XMLTree(name: elementName, attributes: attributeDict, text: "", children: [], line: parser.lineNumber))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            if failure == nil { failure = Self.describe(parseError) }
        }

        /// The parser's error as a short reason (its code name where Foundation gives one).
        static func describe(_ error: any Error) -> String {
            let ns = error as NSError
            if let reason = ns.userInfo[NSLocalizedDescriptionKey] as? String, !reason.isEmpty { return reason }
            if let code = XMLParser.ErrorCode(rawValue: ns.code) { return "\(code)".replacingOccurrences(of: "Error", with: "") }
            return "XML parser error \(ns.code)"
        }
    }
}
