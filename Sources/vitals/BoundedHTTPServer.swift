import Dashboard
import FlyingFox
import FlyingSocks
import Foundation

/// HTTP/1.1 for FlyingFox routes, with the bounds a server facing any client needs and FlyingFox
/// 0.27.1's `HTTPServer` has no setting for (its configuration holds the address, the handler's
/// timeout, body buffering, the socket pool and the logger; its reader and accept loop are private):
/// - a request's head is read by `RequestHeadReader`: at most 32 KiB, in linear time. FlyingFox's
///   reader takes time quadratic in a header line's length (a 32 KB line took 13 s, debug build)
///   and reads headers without end; two clients sending a 1-MB line held both of the runtime's
///   threads, and SIGTERM went unanswered.
/// - The head must come within ``headTimeout``: a client that trickles it, or holds a connection
///   idle, is closed.
/// - At most ``connectionLimit()`` connections are served at once, fewer than the process may
///   open files; past it a new one is answered 503 and closed. FlyingFox's accept loop rethrows
///   the failure to accept when files run out (EMFILE), which ended the server and the program.
/// - A write the client does not take within the server's write timeout (a viewer that stopped
///   reading, a laptop gone to sleep: its socket's buffers are full) closes the connection, so such
///   viewers do not hold the connections' places for as long as they stay connected.
/// - A failure to accept all the same (files taken by something else) is waited out. A process
///   out of files may still be ended by libdispatch: its worker monitor opens /proc/TID/stat
///   every second and traps when it cannot. Hence the files kept free.
///
/// Request bodies are not read (the dashboard takes none): after a request with one the
/// connection is closed. HEAD is answered without the body.
struct BoundedHTTPServer: Sendable {
    /// Seconds a request's head may take to come, from the connection's start or the previous
    /// response. A browser sends its head at once; a connection left idle this long is closed, and
    /// a browser opens a new one when it needs one.
    static let headTimeout = Duration.seconds(10)
    /// The most connections served at once: a viewer holds one or two (the page's, the events').
    static let maximumConnections = 256
    /// Files left for the program itself past those open when serving starts: the runtime opens
    /// a few more later (Dispatch's timers, and its worker monitor's reads of /proc), and refusing
    /// a connection takes one.
    static let reservedDescriptors = 8
    /// Pause before accepting again after a failure to accept.
    static let acceptRetryDelay = Duration.milliseconds(100)
    /// Bytes asked of the socket in one read.
    private static let readSize = 4096

    /// Each connection's send buffer, bytes (the system may double it): the page's largest file
    /// goes in a few writes, and a viewer's events, a few kB a second, in one.
    static let sendBufferBytes: Int32 = 64 * 1024
    /// The default ``writeTimeout``, seconds.
    static let defaultWriteTimeout = 30.0

    private let socket: Socket
    private let pool: any AsyncSocketPool
    private let handler: any HTTPHandler
    /// How long one write may wait for the client to take it before the connection is closed.
    let writeTimeout: Duration

    /// Opens the listening socket.
    /// - Throws: `SocketError` when the address cannot be bound (a port in use, say).
    init(address: some SocketAddress, handler: some HTTPHandler, writeTimeout: Duration = .seconds(defaultWriteTimeout)) throws {
        self.writeTimeout = writeTimeout
        socket = try Socket(domain: Int32(type(of: address).family))
        do {
            try socket.setValue(true, for: .localAddressReuse)
            #if canImport(Darwin)
            try socket.setValue(true, for: .noSIGPIPE)
            #endif
            try socket.bind(to: address)
        } catch {
            try? socket.close()
            throw error
        }
        try socket.listen()
        pool = HTTPServer.defaultPool()
        self.handler = handler
    }

    /// The address listened on (with the port chosen for port 0).
    var listeningAddress: Socket.Address? { try? socket.sockname() }

    /// The connections served at once: ``maximumConnections``, or fewer when the process may open
    /// fewer files than that beyond those open now and ``reservedDescriptors``.
    static func connectionLimit() -> Int {
        var limit = rlimit()
        #if os(Linux)
        let status = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #else
        let status = getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        guard status == 0, let open = try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd").count else {
            return maximumConnections
        }
        return max(1, min(maximumConnections, Int(clamping: limit.rlim_cur) - open - reservedDescriptors))
    }

    /// Serves until the task is cancelled (then throws `CancellationError`) and closes the socket.
    /// - Throws: `SocketError` when the listening socket fails.
    func run() async throws {
        defer { try? socket.close() }
        try await pool.prepare()
        let listener = try AsyncSocket(socket: socket, pool: pool)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            group.addTask { try await serveConnections(from: listener) }
            try await group.next()
        }
    }

    private enum Event: Sendable {
        case accepted(AsyncSocket)
        case closed
    }

    /// Accepts connections and serves each in a task of its own, at most `connectionLimit()`.
    private func serveConnections(from listener: AsyncSocket) async throws {
        let limit = Self.connectionLimit()
        try await withThrowingTaskGroup(of: Event.self) { group in
            group.addTask { try await accept(from: listener) }
            var open = 0
            while let event = try await group.next() {
                switch event {
                case .accepted(let client):
                    group.addTask { try await accept(from: listener) }
                    if open < limit {
                        open += 1
                        // Bounds the kernel's memory for a viewer that stops reading (the system
                        // grows a send buffer to 4 MiB here); a viewer reading along needs far less.
                        try? client.socket.setValue(Self.sendBufferBytes, for: .sendBufferSize)
                        group.addTask {
                            await serve(client)
                            return .closed
                        }
                    } else {
                        // A fresh connection's send buffer is empty: this write does not wait.
                        try? await send(Self.refusal(.serviceUnavailable), to: client, withBody: true)
                        try? client.close()
                    }
                case .closed:
                    open -= 1
                }
            }
        }
    }

    /// The next connection. Failing to accept one (out of file descriptors, or a connection reset
    /// before it was taken) is waited out; only a broken listening socket ends the server.
    private func accept(from listener: AsyncSocket) async throws -> Event {
        while true {
            do {
                return .accepted(try await listener.accept())
            } catch SocketError.failed(_, let code, _) where ![EBADF, EINVAL, ENOTSOCK].contains(code) {
                try await Task.sleep(for: Self.acceptRetryDelay)
            }
        }
    }

    /// A request refused before it reached the routes: answered with `status`, then the connection
    /// is closed.
    private struct Refusal: Error {
        var status: HTTPStatusCode
    }

    /// Serves one connection's requests until it closes, a request asks it to, or the server stops.
    private func serve(_ client: AsyncSocket) async {
        defer { try? client.close() }
        var reader = RequestHeadReader()
        do {
            while let head = try await nextHead(from: client, into: &reader) {
                let response = await respond(to: head)
                try await send(response, to: client, withBody: head.method != "HEAD")
                guard head.keepsAlive, !head.hasBody else { return }
            }
        } catch let refusal as Refusal {
            try? await send(Self.refusal(refusal.status), to: client, withBody: true)
        } catch {
            // The client went away, or the server is stopping.
        }
    }

    /// The next request's head; nil when the client closes the connection, or sends nothing of a
    /// request within ``headTimeout``.
    /// - Throws: `Refusal` for a head too large (431), malformed (400), of an HTTP version other than
    ///   1.x (505) or not complete in time (408).
    private func nextHead(from client: AsyncSocket, into reader: inout RequestHeadReader) async throws -> RequestHead? {
        let deadline = ContinuousClock.now + Self.headTimeout
        while true {
            do {
                if let head = try reader.nextHead() { return head }
            } catch {
                switch error {
                case .tooLarge: throw Refusal(status: .requestHeaderFieldsTooLarge)
                case .unsupportedVersion: throw Refusal(status: .httpVersionNotSupported)
                case .malformed: throw Refusal(status: .badRequest)
                }
            }
            guard let bytes = try await read(client, before: deadline) else {
                if reader.hasPartialHead { throw Refusal(status: .requestTimeout) }
                return nil
            }
            reader.append(bytes)
        }
    }

    /// The next bytes from `client`, or nil if none come before `deadline`.
    private func read(_ client: AsyncSocket, before deadline: ContinuousClock.Instant) async throws -> [UInt8]? {
        try await Self.result(before: deadline) { try await client.read(atMost: Self.readSize) }
    }

    /// A write the client did not take within ``writeTimeout``.
    private struct WriteTimedOut: Error {}

    /// Writes `data` to `client`, or throws `WriteTimedOut` when it has not all gone within ``writeTimeout``.
    private func write(_ data: Data, to client: AsyncSocket) async throws {
        guard try await Self.result(before: .now + writeTimeout, of: { try await client.write(data) }) != nil else {
            throw WriteTimedOut()
        }
    }

    /// What `operation` returns, or nil when it has not finished by `deadline` (it is then cancelled).
    private static func result<T: Sendable>(before deadline: ContinuousClock.Instant,
                                            of operation: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// The routes' response to a request, as FlyingFox's `HTTPServer` makes it: 404 when no route
    /// takes it, 500 when its handler throws, and a keep-alive request's `Connection` echoed.
    private func respond(to head: RequestHead) async -> HTTPResponse {
        var headers = HTTPHeaders()
        for field in head.fields { headers[HTTPHeader(field.name)] = field.value }
        let target = head.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let request = HTTPRequest(method: HTTPMethod(head.method), version: HTTPVersion(head.version),
                                  target: .init(path: String(target[0]), query: target.count > 1 ? String(target[1]) : ""),
                                  headers: headers, body: HTTPBodySequence())
        var response: HTTPResponse
        do {
            response = try await handler.handleRequest(request)
        } catch is HTTPUnhandledError {
            response = HTTPResponse(statusCode: .notFound)
        } catch {
            response = HTTPResponse(statusCode: .internalServerError)
        }
        if head.hasBody {
            response.headers[.connection] = "close"
        } else if head.keepsAlive, response.headers[.connection] == nil {
            response.headers[.connection] = head.value(of: "Connection")
        }
        return response
    }

    /// A response with no body that tells the client the connection closes.
    private static func refusal(_ status: HTTPStatusCode) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.connection: "close"])
    }

    /// Writes `response` as FlyingFox does (header fields sorted by name; `Content-Length`, or
    /// chunks when the body's length is not known), its body only `withBody`.
    private func send(_ response: HTTPResponse, to client: AsyncSocket, withBody: Bool) async throws {
        guard case .httpBody(let body) = response.payload else { return }  // no WebSocket routes here
        var headers = response.headers
        if let count = body.count {
            if headers[.contentLength] == nil { headers[.contentLength] = String(count) }
        } else {
            headers.addValue("chunked", for: .transferEncoding)
        }
        let status = "\(response.version.rawValue) \(response.statusCode.code) \(response.statusCode.phrase)"
        let fields = headers.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue): \($0.value)" }
        try await write(Data(([status] + fields).map { $0 + "\r\n" }.joined().appending("\r\n").utf8), to: client)
        guard withBody else { return }
        for try await chunk in body { try await write(chunk, to: client) }
    }
}
