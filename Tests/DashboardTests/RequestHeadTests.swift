import Dashboard
import Testing

private let browserHead = """
    GET /events HTTP/1.1\r
    Host: 127.0.0.1:8080\r
    Accept: text/event-stream\r
    Cache-Control: no-cache\r
    \r

    """

/// Every head `bytes` holds, taken as the bytes come in pieces of `size`.
private func heads(_ bytes: [UInt8], in size: Int) throws -> [RequestHead] {
    var reader = RequestHeadReader()
    var heads: [RequestHead] = []
    for start in stride(from: 0, to: bytes.count, by: size) {
        reader.append(bytes[start..<min(start + size, bytes.count)])
        while let head = try reader.nextHead() { heads.append(head) }
    }
    return heads
}

/// What the reader says of `text` given at once.
private func read(_ text: String) -> Result<RequestHead?, RequestHeadReader.Failure> {
    var reader = RequestHeadReader()
    reader.append(text.utf8)
    return Result { () throws(RequestHeadReader.Failure) in try reader.nextHead() }
}

@Suite struct RequestHeadTests {
    @Test func readsABrowsersRequest() throws {
        let head = try #require(try read(browserHead).get())
        #expect(head == RequestHead(method: "GET", target: "/events", version: "HTTP/1.1", fields: [
            .init(name: "Host", value: "127.0.0.1:8080"),
            .init(name: "Accept", value: "text/event-stream"),
            .init(name: "Cache-Control", value: "no-cache"),
        ]))
        #expect(head.value(of: "cache-control") == "no-cache")
        #expect(head.value(of: "Cookie") == nil)
    }

    @Test(arguments: [1, 7, 100, 10_000])
    func headsAreTheSameWhateverPiecesTheyComeIn(size: Int) throws {
        // Two pipelined requests, the second with bare LF line ends and no fields.
        let bytes = Array((browserHead + "HEAD /dashboard.css?v=2 HTTP/1.0\n\n").utf8)
        let got = try heads(bytes, in: size)
        #expect(got.count == 2)
        #expect(got.first == (try read(browserHead).get()))
        #expect(got.last == RequestHead(method: "HEAD", target: "/dashboard.css?v=2", version: "HTTP/1.0"))
    }

    @Test func aHeadWithoutItsBlankLineIsNotTakenYet() throws {
        var reader = RequestHeadReader()
        #expect(!reader.hasPartialHead)
        reader.append("GET / HTTP/1.1\r\nHost: x\r\n".utf8)
        #expect(try reader.nextHead() == nil)
        #expect(reader.hasPartialHead)
        reader.append("\r\n".utf8)
        #expect(try reader.nextHead()?.target == "/")
        #expect(!reader.hasPartialHead)
    }

    /// A header line of a megabyte, read as a server reads it (4 KiB at a time), is refused once
    /// the limit has come, not read to its end.
    @Test func anEndlessHeaderLineIsRefusedAtTheLimit() {
        var reader = RequestHeadReader()
        reader.append("GET / HTTP/1.1\r\nX-Long: ".utf8)
        var appended = 0
        #expect(throws: RequestHeadReader.Failure.tooLarge) {
            while appended < 1 << 20 {
                reader.append(repeatElement(UInt8(ascii: "a"), count: 4096))
                appended += 4096
                _ = try reader.nextHead()
            }
        }
        #expect(appended <= RequestHeadReader.maximumSize)
    }

    @Test func endlessShortHeaderLinesAreRefusedAtTheLimit() {
        let lines = (0..<3000).map { "X-Field-\($0): value\r\n" }.joined()
        #expect(lines.utf8.count > RequestHeadReader.maximumSize)
        #expect(read("GET / HTTP/1.1\r\n" + lines) == .failure(.tooLarge))
        #expect(read("GET / HTTP/1.1\r\n" + lines + "\r\n") == .failure(.tooLarge))
    }

    @Test func aHeadOfExactlyTheLimitIsTaken() throws {
        let start = "GET / HTTP/1.1\r\nX-Pad: "
        let pad = String(repeating: "a", count: RequestHeadReader.maximumSize - start.utf8.count - 4)
        let head = try read(start + pad + "\r\n\r\n").get()
        #expect(head?.value(of: "X-Pad") == pad)
        #expect(read(start + pad + "a\r\n\r\n") == .failure(.tooLarge))
    }

    @Test(arguments: [
        "\r\n",                                         // no request line
        "GARBAGE\r\n\r\n",
        "GET /\r\n\r\n",                                // no version
        "GET / x HTTP/1.1\r\n\r\n",
        "GET / FTP/1.0\r\n\r\n",
        "GET / HTTP/1.1\r\nNo colon\r\n\r\n",
        "GET / HTTP/1.1\r\nHost : x\r\n\r\n",           // space before the colon
        "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", // obsolete line folding
        "GET / HTTP/1.1\r\n: x\r\n\r\n",                // no name
    ])
    func refusesWhatIsNotARequestHead(text: String) {
        #expect(read(text) == .failure(.malformed))
    }

    @Test func refusesAHeadThatIsNotUTF8() {
        var reader = RequestHeadReader()
        reader.append(Array("GET / HTTP/1.1\r\nX: ".utf8) + [0xFF, 0xFE] + Array("\r\n\r\n".utf8))
        #expect(throws: RequestHeadReader.Failure.malformed) { try reader.nextHead() }
    }

    @Test(arguments: [
        ("HTTP/1.1", nil, true), ("HTTP/1.1", "close", false), ("HTTP/1.1", "Keep-Alive, Close", false),
        ("HTTP/1.0", nil, false), ("HTTP/1.0", "keep-alive", true),
    ] as [(String, String?, Bool)])
    func keepsAliveAsHTTPSays(version: String, connection: String?, keepsAlive: Bool) {
        let head = RequestHead(method: "GET", target: "/", version: version,
                               fields: connection.map { [.init(name: "Connection", value: $0)] } ?? [])
        #expect(head.keepsAlive == keepsAlive)
    }

    @Test(arguments: [
        ([], false), ([("Content-Length", "0")], false), ([("content-length", "12")], true),
        ([("Content-Length", "twelve")], true), ([("Transfer-Encoding", "chunked")], true),
    ] as [([(String, String)], Bool)])
    func aBodyFollowsWhenTheFieldsSaySo(fields: [(String, String)], hasBody: Bool) {
        let head = RequestHead(method: "POST", target: "/", version: "HTTP/1.1",
                               fields: fields.map { .init(name: $0.0, value: $0.1) })
        #expect(head.hasBody == hasBody)
    }
}
