import Foundation

/// The head of an HTTP/1.1 request: its request line and header fields (RFC 9112 §2-5).
public struct RequestHead: Equatable, Sendable {
    /// A header field as sent.
    public struct Field: Equatable, Sendable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// "GET", "HEAD", ...
    public var method: String
    /// The request target as sent: "/events", "/dashboard.css?v=2".
    public var target: String
    /// "HTTP/1.1", "HTTP/1.0".
    public var version: String
    /// The header fields in the order sent.
    public var fields: [Field]

    public init(method: String, target: String, version: String, fields: [Field] = []) {
        self.method = method
        self.target = target
        self.version = version
        self.fields = fields
    }

    /// The value of the last field called `name` (names compare without case), nil if there is none.
    public func value(of name: String) -> String? {
        fields.last { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether the connection may carry another request after this one's response (RFC 9112 §9.3):
    /// in HTTP/1.1 unless `Connection: close`, in HTTP/1.0 only with `Connection: keep-alive`.
    public var keepsAlive: Bool {
        let options = (value(of: "Connection") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return version == "HTTP/1.1" ? !options.contains("close") : options.contains("keep-alive")
    }

    /// Whether a body follows the head (RFC 9112 §6.3): a `Transfer-Encoding`, or a
    /// `Content-Length` that is not 0.
    public var hasBody: Bool {
        value(of: "Transfer-Encoding") != nil || value(of: "Content-Length").map { Int($0) != 0 } == true
    }
}

/// Reads request heads from a connection's bytes as they arrive, refusing one longer than
/// ``maximumSize``: an endless header line, or endless header lines, cost a server at most that
/// much memory and time linear in it before the connection is refused.
///
/// Append what is read (``append(_:)``) and take heads (``nextHead()``) until it returns nil; the
/// bytes after a head stay for the next one. Lines end in CRLF or a bare LF (RFC 9112 §2.2).
public struct RequestHeadReader: Sendable {
    /// The largest head taken, bytes: request line, header fields and the blank line after them.
    /// A browser's head for this page is under 1 KiB (it has no cookies for an IP address and
    /// port); common servers stop at 8-16 KiB per line or head. Twice that, a client sending more
    /// is not a browser.
    public static let maximumSize = 32 * 1024

    /// Why a head was refused: a server answers 431 or 400 and closes the connection.
    public enum Failure: Error, Equatable, Sendable {
        /// No blank line within ``RequestHeadReader/maximumSize`` bytes.
        case tooLarge
        /// Not UTF-8, a control character (a CR not ending a line, NUL), not "METHOD TARGET HTTP/x.y"
        /// (x and y a digit each), or a header line that is not "name: value".
        case malformed
        /// An HTTP version other than 1.x ("HTTP/2.0", "HTTP/0.9"): a server answers 505.
        case unsupportedVersion
    }

    private var buffer: [UInt8] = []
    /// Where the search for the end of the head goes on: no line before it is empty.
    private var searched = 0

    public init() {}

    /// Whether bytes of a request have come that are not yet part of a head taken.
    public var hasPartialHead: Bool { !buffer.isEmpty }

    /// Adds bytes read from the connection.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete head, or nil while more bytes are needed.
    /// - Throws: ``Failure``; the reader is then of no further use (close the connection).
    /// - Complexity: O(*n*) over all calls, *n* the bytes appended: each byte is looked at once
    ///   while searching for the end of its head, and once when the head is taken.
    public mutating func nextHead() throws(Failure) -> RequestHead? {
        guard let end = headEnd() else {
            if buffer.count >= Self.maximumSize { throw .tooLarge }
            return nil
        }
        guard end <= Self.maximumSize else { throw .tooLarge }
        defer {
            buffer.removeFirst(end)
            searched = 0
        }
        return try Self.parse(buffer[..<end])
    }

    private static let lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")

    /// The index after the blank line that ends the head, if it has come.
    private mutating func headEnd() -> Int? {
        while searched < buffer.count {
            let index = searched
            searched += 1
            guard buffer[index] == Self.lf else { continue }
            let lineStart = index > 0 && buffer[index - 1] == Self.cr ? index - 1 : index
            if lineStart == 0 || buffer[lineStart - 1] == Self.lf { return index + 1 }
        }
        return nil
    }

    /// Whether `byte` is a control character other than a horizontal tab, which field values may hold.
    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    private static func parse(_ head: ArraySlice<UInt8>) throws(Failure) -> RequestHead {
        var lines = try head.split(separator: lf, omittingEmptySubsequences: false).dropLast(2).map { line throws(Failure) in
            let line = line.last == cr ? line.dropLast() : line
            // A control character (a CR not ending the line, NUL, ...) is in no request line, field
            // name or value (RFC 9110 §5.5, RFC 9112 §3): a bare CR in a value echoed in a response's
            // `Connection` field started a header line of the client's in it.
            guard !line.contains(where: isControl), let text = String(bytes: line, encoding: .utf8) else { throw .malformed }
            return text
        }[...]
        let request = (lines.popFirst() ?? "").split(separator: " ")
        guard request.count == 3 else { throw .malformed }
        // HTTP-version is "HTTP/" DIGIT "." DIGIT (RFC 9112 §2.3); "HTTP/", "HTTP/1.1.1" or
        // "HTTP/9.9" was served as if it were 1.x.
        let version = Array(request[2].utf8)
        guard version.count == 8, version.starts(with: "HTTP/".utf8), version[6] == UInt8(ascii: "."),
              [version[5], version[7]].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw .malformed
        }
        guard version[5] == UInt8(ascii: "1") else { throw .unsupportedVersion }
        let fields = try lines.map { line throws(Failure) in
            guard let colon = line.firstIndex(of: ":") else { throw .malformed }
            let name = line[..<colon]
            // No space before the colon (RFC 9112 §5.1), which also refuses obsolete folded lines.
            guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else { throw .malformed }
            return RequestHead.Field(name: String(name),
                                     value: line[line.index(after: colon)...].trimmingCharacters(in: .init(charactersIn: " \t")))
        }
        return RequestHead(method: String(request[0]), target: String(request[1]), version: String(request[2]), fields: fields)
    }
}
