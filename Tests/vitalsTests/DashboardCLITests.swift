import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Collects a streamed response's text until it holds `wanted` Server-Sent Events (or it ends).
private final class EventCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var received = ""
    private var done = false
    private let wanted: Int
    let enough = DispatchSemaphore(value: 0)

    init(wanted: Int) { self.wanted = wanted }

    /// The `data:` payloads received so far.
    var events: [String] {
        lock.withLock { received }.components(separatedBy: "\n\n").filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { received += String(decoding: data, as: UTF8.self) }
        if events.count >= wanted { finish() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { finish() }

    private func finish() {
        let first = lock.withLock { () -> Bool in
            defer { done = true }
            return !done
        }
        if first { enough.signal() }
    }
}

/// The body of `url`, or nil after `timeout` seconds.
private func fetch(_ url: URL, timeout: Double) -> (status: Int, body: String)? {
    final class Box: @unchecked Sendable { var result: (Int, String)? }
    let box = Box(), done = DispatchSemaphore(value: 0)
    var request = URLRequest(url: url)
    request.timeoutInterval = timeout
    URLSession.shared.dataTask(with: request) { data, response, _ in
        box.result = ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data ?? Data(), as: UTF8.self))
        done.signal()
    }.resume()
    guard done.wait(timeout: .now() + timeout) == .success, let (status, body) = box.result else { return nil }
    return (status, body)
}

@Suite(.enabled(if: vitalsBinary != nil))
struct DashboardCLITests {
    /// Starts the dashboard on any free port with 6 s of simulated finger at 3x, reads the URL it
    /// prints, fetches the page and the first events of the stream. Killed after 20 s whatever
    /// happens, so it cannot hang.
    @Test func servesThePageAndStreamsEventsOnAFreePort() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(vitalsBinary))
        // A lift-off after the end: only the page's description shows it (plainly, not 1,000,000,...).
        process.arguments = ["dashboard", "--port", "0", "--seconds", "6", "--speed", "3", "--bpm", "90", "--lift-at", "1e30"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
        defer {
            watchdog.cancel()
            if process.isRunning { process.terminate() }
        }

        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }   // the program ended (or the watchdog ended it)
            line += chunk
        }
        let printed = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(printed.hasPrefix("http://127.0.0.1:") && !printed.hasSuffix(":0/"), "printed \(printed)")
        let base = try #require(URL(string: printed))

        let page = try #require(fetch(base, timeout: 5))
        #expect(page.status == 200)
        #expect(page.body.contains("<canvas"))

        let collector = EventCollector(wanted: 30)
        let session = URLSession(configuration: .ephemeral, delegate: collector, delegateQueue: nil)
        let task = session.dataTask(with: base.appendingPathComponent("events"))
        task.resume()
        _ = collector.enough.wait(timeout: .now() + 10)
        task.cancel()
        session.invalidateAndCancel()
        let events = collector.events
        #expect(events.count >= 30)
        #expect(events.first?.hasPrefix(#"{"type": "hello", "source": "simulated finger, 90 bpm, lifted at 1e+30 s""#) == true)
        #expect(events.contains { $0.hasPrefix(#"{"type": "waveform""#) })

        // --seconds ends the program: 6 s of input at 3x take 2 s.
        for _ in 0..<100 where process.isRunning { Thread.sleep(forTimeInterval: 0.1) }
        #expect(!process.isRunning)
        if !process.isRunning { #expect(process.terminationStatus == 0) }
    }

    @Test func badInputIsOneLineAndAFailingStatus() throws {
        let dir = try scratchFolder("dashboard")
        for (arguments, message) in [
            (["dashboard", "missing.csv"], "missing.csv"),
            (["dashboard", "--host", "nowhere"], "not an IP address"),
            (["dashboard", "--port", "70000"], "--port must be 0-65535"),
            (["dashboard", "--speed", "0"], "--speed must be from 0.01 to 1000"),
            (["dashboard", "--speed", "1e-21"], "--speed must be from 0.01 to 1000"),  // trapped
            (["dashboard", "--loop"], "--loop replays an INPUT"),
            // The rate was written with digit grouping: "(got 100,000,000,...)", 400 characters.
            (["dashboard", "--bpm", "1e308"], "--bpm must be 30-240 (got 1e+308)"),
            (["dashboard", "--write-timeout", "0"], "--write-timeout must be from 0.1 to 86400 seconds (got 0)"),
            // Accepted before, and then never ended, never lifted or never put the finger back.
            (["dashboard", "--seconds", "inf"], "--seconds must be a positive number of seconds (got inf)"),
            (["dashboard", "--lift-at", "1e400"], "--lift-at must be 0 or more seconds (got inf)"),
            (["dashboard", "--lift-at", "5", "--lift-for", "inf"], "--lift-for must be a positive number of seconds (got inf)"),
        ] {
            let run = try vitals(arguments, in: dir)
            #expect(run.status != 0, "\(arguments)")
            #expect(run.errorLines.count == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }
}
