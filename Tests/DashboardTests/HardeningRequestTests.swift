import Dashboard
import Testing

/// What the reader says of `bytes` given at once.
private func read(_ bytes: [UInt8]) -> Result<RequestHead?, RequestHeadReader.Failure> {
    var reader = RequestHeadReader()
    reader.append(bytes)
    return Result { () throws(RequestHeadReader.Failure) in try reader.nextHead() }
}

/// Heads as a hostile client sends them (found by fuzzing the dashboard's server).
@Suite struct HardeningRequestTests {
    /// A control character in a request line, field name or value is a malformed head (the server
    /// answers 400). A bare CR in `Connection: keep-alive\rSet-Cookie: evil=1` was taken, and the
    /// server echoed the value in its response's `Connection` field: a header line of the client's.
    @Test(arguments: [
        "GET / HTTP/1.1\r\nConnection: keep-alive\rSet-Cookie: evil=1\r\n\r\n",
        "GET / HTTP/1.1\r\nX: a\0b\r\n\r\n",
        "GET / HTTP/1.1\r\nX\0: a\r\n\r\n",
        "GET / HTTP/1.1\r\nX: a\u{7F}\r\n\r\n",
        "GET / HTTP/1.1\r\nX: \u{1B}[31m\r\n\r\n",
        "GET / HTTP/1.1\0\r\n\r\n",
        "GET /%00\0 HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\r\n\r\n",
    ])
    func aControlCharacterIsMalformed(text: String) {
        #expect(read(Array(text.utf8)) == .failure(.malformed))
    }

    /// A tab in a value, and bytes past ASCII in UTF-8, are still taken.
    @Test func tabsAndUTF8AreTaken() throws {
        let head = try #require(try read(Array("GET /ü HTTP/1.1\r\nX: a\tb\r\nY: 😀\r\n\r\n".utf8)).get())
        #expect(head.value(of: "X") == "a\tb")
        #expect(head.value(of: "Y") == "😀")
        #expect(head.target == "/ü")
    }

    /// An HTTP version that is not "HTTP/" digit "." digit is malformed (400), and one of another
    /// major version is not supported (505). "GET / HTTP/", "HTTP/1.1.1" and "HTTP/9.9" were served.
    @Test(arguments: ["HTTP/", "HTTP/1", "HTTP/1.", "HTTP/1.1.1", "HTTP/11.1", "HTTP/1.x", "HTTP/+1.1", "HTTP/１.1"])
    func aVersionNotDigitDotDigitIsMalformed(version: String) {
        #expect(read(Array("GET / \(version)\r\n\r\n".utf8)) == .failure(.malformed))
    }

    @Test(arguments: ["HTTP/0.9", "HTTP/2.0", "HTTP/9.9"])
    func aVersionOtherThanOneIsNotSupported(version: String) {
        #expect(read(Array("GET / \(version)\r\n\r\n".utf8)) == .failure(.unsupportedVersion))
    }

    @Test(arguments: ["HTTP/1.0", "HTTP/1.1", "HTTP/1.9"])
    func versionOneIsTaken(version: String) throws {
        #expect(try read(Array("GET / \(version)\r\n\r\n".utf8)).get()?.version == version)
    }
}
