import Dashboard
import FlyingFox
import FlyingSocks
import Foundation

/// The dashboard's HTTP side, FlyingFox routes served by `BoundedHTTPServer`: the page's files, and
/// at ``DashboardPage/eventsPath`` each viewer's stream of Server-Sent Events from the hub. What the
/// messages say and what a late viewer gets is the Dashboard module's; this file only serves it.
struct DashboardServer {
    private let server: BoundedHTTPServer
    private let hub: DashboardHub
    /// "HOST:PORT" as asked, for messages.
    private let requested: String

    /// Listens on `host`:`port` at once (serving starts with ``serve(onListening:feed:)``).
    /// - Throws: `CLIError` for a host that is not an IP address, an address that cannot be served
    ///   (a port in use, say) or a build without the page.
    init(host: String, port: UInt16, hub: DashboardHub, writeTimeout: Double = BoundedHTTPServer.defaultWriteTimeout) throws {
        self.hub = hub
        let ip = host == "localhost" ? "127.0.0.1" : host
        requested = ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
        let assets: [DashboardPage.Asset]
        do {
            assets = try DashboardPage.assets()
        } catch {
            throw CLIError("the dashboard page is missing from this build (\(error.localizedDescription))")
        }
        var routes = RoutedHTTPHandler()
        for asset in assets {
            routes.appendRoute(HTTPRoute(methods: [.GET, .HEAD], path: asset.path)) { _ in
                HTTPResponse(statusCode: .ok, headers: [.contentType: asset.contentType], body: asset.data)
            }
        }
        let streamHeaders: HTTPHeaders = [.contentType: "text/event-stream", HTTPHeader("Cache-Control"): "no-cache"]
        routes.appendRoute(HTTPRoute(method: .GET, path: DashboardPage.eventsPath)) { request in
            // The stream has no length, so it goes out chunked, which an HTTP/1.0 client cannot read
            // (RFC 9112 §7.1: never sent to one); it got the chunk sizes among its events.
            guard request.version == .http11 else {
                return HTTPResponse(statusCode: .httpVersionNotSupported, headers: [.contentType: "text/plain; charset=utf-8"],
                                    body: Data("the event stream needs HTTP/1.1 (it is sent in chunks); this request was \(request.version.rawValue)\n".utf8))
            }
            return HTTPResponse(statusCode: .ok, headers: streamHeaders,
                                body: HTTPBodySequence(from: EventStreamBody(frames: await hub.subscribe())))
        }
        // HEAD gets the stream's head, as GET does, without joining the viewers (its body is never
        // read); it was 404, as if there were no stream.
        routes.appendRoute(HTTPRoute(method: .HEAD, path: DashboardPage.eventsPath)) { _ in
            HTTPResponse(statusCode: .ok, headers: streamHeaders,
                         body: HTTPBodySequence(from: EventStreamBody(frames: AsyncStream { $0.finish() })))
        }
        let address: any SocketAddress
        do {
            address = ip.contains(":") ? try sockaddr_in6.inet6(ip6: ip, port: port) : try sockaddr_in.inet(ip4: ip, port: port)
        } catch {
            throw CLIError("--host \(host): not an IP address (127.0.0.1, 0.0.0.0, ::1)")
        }
        do {
            server = try BoundedHTTPServer(address: address, handler: routes, writeTimeout: .milliseconds(Int64(writeTimeout * 1000)))
        } catch let error as SocketError {
            throw CLIError("cannot serve on \(requested): \(Self.reason(error))")
        }
    }

    private enum Outcome: Sendable {
        case feedFinished, inputEnded, interrupted, serverStopped
    }

    /// Serves until `feed` returns true, or Ctrl-C (SIGINT) or SIGTERM; then ends the viewers'
    /// streams and stops. `feed` returning false (a recording played out) leaves the page up.
    /// - Parameters:
    ///   - onListening: called with the page's URL before serving.
    ///   - feed: runs the input; returns whether to stop when it ends.
    /// - Throws: what `feed` throws, or `SocketError` when the listening socket fails.
    func serve(onListening: (String) -> Void, feed: @escaping @Sendable () async throws -> Bool) async throws {
        let interruptions = Self.interruptions()
        onListening(url(server.listeningAddress))
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                try await server.run()
                return .serverStopped
            }
            group.addTask { try await feed() ? .feedFinished : .inputEnded }
            group.addTask {
                for await _ in interruptions { break }
                return .interrupted
            }
            // Pings until the group is cancelled (when the server stops); it never ends the serving.
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(DashboardHub.pingInterval))
                    if !Task.isCancelled { await hub.ping() }
                }
                return .inputEnded
            }
            while let outcome = try await group.next(), outcome == .inputEnded {}
            // The viewers' streams end (their last chunk goes out); cancelling closes every
            // connection, however far its request has come, and the listening socket.
            await hub.close()
            group.cancelAll()
        }
    }

    /// The page's URL for the address the server listens on.
    private func url(_ address: Socket.Address?) -> String {
        switch address {
        case .ip4(let ip, let port): "http://\(ip):\(port)/"
        case .ip6(let ip, let port): "http://[\(ip)]:\(port)/"
        default: "http://\(requested)/"
        }
    }

    /// Why a socket could not serve, as a person can act on it.
    private static func reason(_ error: SocketError) -> String {
        switch error {
        case .failed(_, EADDRINUSE, _): "the port is in use (choose another --port, or 0 for any free one)"
        case .failed(_, EADDRNOTAVAIL, _): "no interface of this machine has that address (--host)"
        case .failed(_, EACCES, _): "permission denied (ports below 1024 need privileges: choose another --port)"
        case .failed(_, _, let message): message
        default: error.localizedDescription
        }
    }

    /// SIGINT and SIGTERM as a stream. The first of them is caught; a second one ends the program
    /// at once, as usual.
    private static func interruptions() -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                signal(number, SIG_DFL)
                continuation.yield(number)
            }
            source.resume()
            signalSources.append(source)
        }
        return stream
    }

    /// The signal handlers, kept for as long as the program runs.
    nonisolated(unsafe) private static var signalSources: [any DispatchSourceSignal] = []
}

/// A viewer's frames as an HTTP body: FlyingFox sends each as a chunk as soon as it comes.
private struct EventStreamBody: AsyncBufferedSequence {
    typealias Element = UInt8
    let frames: AsyncStream<String>

    func makeAsyncIterator() -> Iterator { Iterator(frames: frames.makeAsyncIterator()) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var frames: AsyncStream<String>.Iterator
        private var pending: [UInt8] = []
        private var offset = 0

        init(frames: AsyncStream<String>.Iterator) { self.frames = frames }

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        /// The rest of the current frame (up to `count` bytes), or the next frame once it comes;
        /// nil when the stream ends.
        mutating func nextBuffer(suggested count: Int) async throws -> ArraySlice<UInt8>? {
            if offset == pending.count {
                guard let frame = await frames.next() else { return nil }
                pending = Array(frame.utf8)
                offset = 0
            }
            let end = Swift.min(pending.count, offset + Swift.max(1, count))
            defer { offset = end }
            return pending[offset..<end]
        }
    }
}
