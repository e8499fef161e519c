import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// `vitals dashboard --port 0` running, with the port it printed. With `fileLimit` it runs under
/// `ulimit -n`. Killed when the test is done with it, and after `lifetime` seconds whatever happens.
private final class RunningDashboard {
    let process = Process()
    private(set) var port: UInt16 = 0

    init(fileLimit: Int? = nil, arguments: [String] = [], lifetime: Double = 60) throws {
        let binary = try #require(vitalsBinary)
        if let fileLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(fileLimit) && exec \"$0\" dashboard --port 0 \"$@\"", binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["dashboard", "--port", "0"] + arguments
        }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let process = process
        DispatchQueue.global().asyncAfter(deadline: .now() + lifetime) { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let url = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        port = try #require(UInt16(url.split(separator: ":").last?.trimmingCharacters(in: .init(charactersIn: "/")) ?? ""), "printed \(url)")
    }

    /// Sends SIGTERM and waits up to `seconds` for the program to end: its status, nil if it did not.
    func terminate(within seconds: Double) -> Int32? {
        process.terminate()
        for _ in 0..<Int(seconds * 20) where process.isRunning { Thread.sleep(forTimeInterval: 0.05) }
        return process.isRunning ? nil : process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// A TCP connection to the dashboard on 127.0.0.1 for what no HTTP library sends: endless or
/// trickled heads. Blocking; each call waits at most the time it is given.
private final class RawClient: @unchecked Sendable {
    private let file: Int32

    /// - Parameter receiveBuffer: the socket's receive buffer, bytes (small: the server's writes
    ///   stop sooner once nothing is read).
    init?(port: UInt16, receiveBuffer: Int32? = nil) {
        #if os(Linux)
        file = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        file = socket(AF_INET, SOCK_STREAM, 0)
        var on: Int32 = 1
        setsockopt(file, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        if var size = receiveBuffer { setsockopt(file, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(file, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard file >= 0, status == 0 else { return nil }
    }

    deinit { close(file) }

    /// Sends `text`, waiting at most `timeout` seconds for room; whether it all went (not once the
    /// server has closed the connection).
    @discardableResult
    func send(_ text: String, timeout: Int = 5) -> Bool {
        set(SO_SNDTIMEO, timeout)
        #if os(Linux)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { Foundation.send(file, $0.baseAddress, $0.count, flags) }
            guard sent > 0 else { return false }
            bytes = bytes.dropFirst(sent)
        }
        return true
    }

    /// What comes within `timeout` seconds: "" when the server closed the connection, nil when
    /// nothing came (or the connection was reset).
    func receive(timeout: Int = 5) -> String? {
        set(SO_RCVTIMEO, timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(file, &buffer, buffer.count, 0)
        return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Reads for up to `seconds`: whether the server closed the connection (all read, then the end,
    /// or a reset), and the bytes read.
    func readToEnd(within seconds: Double) -> (closed: Bool, bytes: Int) {
        set(SO_RCVTIMEO, 1)
        let deadline = Date() + seconds
        var buffer = [UInt8](repeating: 0, count: 65536)
        var bytes = 0
        while Date() < deadline {
            let count = recv(file, &buffer, buffer.count, 0)
            if count == 0 || (count < 0 && errno == ECONNRESET) { return (true, bytes) }
            bytes += max(0, count)
        }
        return (false, bytes)
    }

    /// Reads what has come so far, without waiting.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while recv(file, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
    }

    private func set(_ option: Int32, _ seconds: Int) {
        var time = timeval()
        time.tv_sec = seconds
        setsockopt(file, SOL_SOCKET, option, &time, socklen_t(MemoryLayout<timeval>.size))
    }
}

/// `body(i)` for each `i` in `0..<count`, each on a thread of its own, all at once.
private func inParallel(_ count: Int, _ body: @escaping @Sendable (Int) -> String?) -> [String?] {
    final class Results: @unchecked Sendable {
        let lock = NSLock()
        var values: [String?]
        init(_ count: Int) { values = Array(repeating: nil, count: count) }
    }
    let results = Results(count), done = DispatchGroup()
    for i in 0..<count {
        done.enter()
        Thread {
            let value = body(i)
            results.lock.withLock { results.values[i] = value }
            done.leave()
        }.start()
    }
    done.wait()
    return results.values
}

private let pageRequest = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

/// Clients that send what no browser sends, as the dashboard meets them when it serves a network
/// (`--host 0.0.0.0`): the program answers them, serves on and stops when told.
@Suite(.enabled(if: vitalsBinary != nil))
struct DashboardClientsCLITests {
    /// A head of a 1-MB line, or of 20,000 lines, is refused (431) when 32 KiB have come. FlyingFox's
    /// reader took time quadratic in the line's length (13 s for 32 KB in a debug build): the first
    /// two held both of the runtime's threads, no page was served and SIGTERM went unanswered.
    @Test func endlessHeadsAreRefusedAndThePageIsStillServed() throws {
        let dashboard = try RunningDashboard()
        let port = dashboard.port
        let heads = [
            "GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 1 << 20) + "\r\n\r\n",
            "GET / HTTP/1.1\r\nX-Long: " + String(repeating: "b", count: 1 << 20) + "\r\n\r\n",
            "GET / HTTP/1.1\r\n" + (0..<20_000).map { "X-Field-\($0): value\r\n" }.joined() + "\r\n",
        ]
        let answers = inParallel(heads.count) { i -> String? in
            guard let client = RawClient(port: port) else { return nil }
            client.send(heads[i])  // the server closes the connection before it has all
            return client.receive()
        }
        for answer in answers { #expect(answer?.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n") == true) }

        let client = try #require(RawClient(port: port))
        client.send(pageRequest)
        #expect(client.receive()?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
        #expect(dashboard.terminate(within: 5) == 0)
    }

    /// A head must come within 10 s: a client that sends a field a second is answered 408 and
    /// closed, one that sends nothing is closed. SIGTERM ends the program while a request is half sent.
    @Test func aHeadThatTricklesIsCutOffAfterTenSeconds() throws {
        let dashboard = try RunningDashboard()
        let trickler = try #require(RawClient(port: dashboard.port))
        let idle = try #require(RawClient(port: dashboard.port))
        let start = Date()
        trickler.send("GET / HTTP/1.1\r\n")
        var answer: String?
        for i in 0..<25 where answer == nil {
            trickler.send("X-Field-\(i): value\r\n")
            answer = trickler.receive(timeout: 1)
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(answer?.hasPrefix("HTTP/1.1 408 Request Timeout\r\n") == true)
        #expect(elapsed > 9 && elapsed < 20, "closed after \(elapsed) s")
        #expect(idle.receive(timeout: 10) == "")

        let halfSent = try #require(RawClient(port: dashboard.port))
        halfSent.send("GET / HTTP/1.1\r\nHost: 127")
        #expect(dashboard.terminate(within: 5) == 0)
    }

    /// A viewer that stops reading is closed once a write has waited --write-timeout for it (its
    /// socket's buffers full), and a new viewer is served. It was served for as long as it stayed
    /// connected, holding one of the connections' places and up to 4 MiB of kernel buffer.
    @Test func aViewerThatStopsReadingIsClosed() throws {
        // At 100x the simulated finger's messages fill a stalled socket's buffers within a second or two.
        let dashboard = try RunningDashboard(arguments: ["--speed", "100", "--write-timeout", "1"])
        let stalled = try #require(RawClient(port: dashboard.port, receiveBuffer: 2048))
        stalled.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        Thread.sleep(forTimeInterval: 5)
        let drained = stalled.readToEnd(within: 8)
        #expect(drained.closed && drained.bytes > 0, "\(drained)")
        let viewer = try #require(RawClient(port: dashboard.port))
        viewer.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(viewer.receive()?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
        #expect(dashboard.terminate(within: 5) == 0)
    }

    /// HEAD of the event stream is its head, as GET's, with no events after it; the connection then
    /// carries the next request (it was 404, as if there were no stream).
    @Test func headOfTheEventStreamIsItsHead() throws {
        let dashboard = try RunningDashboard()
        let client = try #require(RawClient(port: dashboard.port))
        client.send("HEAD /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let head = try #require(client.receive())
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.contains("Content-Type: text/event-stream\r\n"), "\(head)")
        #expect(head.hasSuffix("\r\n\r\n") && !head.contains("data: "), "\(head)")
        #expect(client.receive(timeout: 2) == nil)   // no body: nothing more comes
        client.send(pageRequest)
        #expect(client.receive()?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
        #expect(dashboard.terminate(within: 5) == 0)
    }

    /// An HTTP/1.0 client asking for the event stream gets one clear refusal (505) instead of a
    /// chunked stream it cannot read; the page itself is served to it as before.
    @Test func anHTTP10ClientIsToldTheStreamNeedsHTTP11() throws {
        let dashboard = try RunningDashboard()
        let client = try #require(RawClient(port: dashboard.port))
        client.send("GET /events HTTP/1.0\r\n\r\n")
        var answer = try #require(client.receive())
        if answer.hasSuffix("\r\n\r\n") { answer += client.receive(timeout: 2) ?? "" }  // the body came apart from the head
        #expect(answer.hasPrefix("HTTP/1.1 505 HTTP Version Not Supported\r\n"), "\(answer)")
        #expect(answer.hasSuffix("the event stream needs HTTP/1.1 (it is sent in chunks); this request was HTTP/1.0\n"), "\(answer)")
        #expect(!answer.contains("Transfer-Encoding"), "\(answer)")
        let page = try #require(RawClient(port: dashboard.port))
        page.send("GET / HTTP/1.0\r\n\r\n")
        #expect(page.receive()?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
        #expect(dashboard.terminate(within: 5) == 0)
    }

    /// With 64 files (`ulimit -n 64`) and 100 clients connecting, connections past the limit are
    /// refused (503) while a viewer's stream goes on, and once the clients leave the page is served
    /// again. FlyingFox's accept loop failed with EMFILE and the program ended (status 1).
    @Test func runningOutOfFilesRefusesConnectionsAndServesOn() throws {
        let dashboard = try RunningDashboard(fileLimit: 64)
        let viewer = try #require(RawClient(port: dashboard.port))
        viewer.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(viewer.receive()?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)

        var crowd = (0..<100).compactMap { _ in RawClient(port: dashboard.port) }
        #expect(crowd.count == 100)
        let lastAnswers = crowd.suffix(10).map { $0.receive(timeout: 5) }
        #expect(lastAnswers.contains { $0?.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n") == true }, "\(lastAnswers)")
        #expect(dashboard.process.isRunning)
        viewer.drain()
        #expect(viewer.receive(timeout: 5)?.contains("data: ") == true)

        crowd.removeAll()  // closes them; the server sees it as soon as it reads
        var page: String?
        for _ in 0..<10 where page?.hasPrefix("HTTP/1.1 200 OK\r\n") != true {
            Thread.sleep(forTimeInterval: 0.5)
            let client = RawClient(port: dashboard.port)
            client?.send(pageRequest)
            page = client?.receive()
        }
        #expect(page?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
        #expect(dashboard.terminate(within: 5) == 0)
    }
}
