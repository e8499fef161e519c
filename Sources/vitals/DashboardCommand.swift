import ArgumentParser
import Dashboard
import Foundation
import PulseDetection
import VitalsIO

/// `vitals dashboard [INPUT]`: the live pipeline on a recording or a simulated finger, shown in a
/// browser.
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Serve a live dashboard of the fingertip pipeline in a browser.",
        discussion: """
        The page (http://HOST:PORT/) shows the scrolling pulse waveform with its beats, the heart rate and \
        its confidence ("—" while declined), contact, signal quality and a running HRV, as the live pipeline \
        reports them. INPUT is what `vitals heart-rate` takes for a fingertip: a CSV of colour means (r,g,b) \
        or a PPG --column, or a fingertip video; it is replayed at its own pace (--speed). Without INPUT a \
        simulated finger runs until stopped (--bpm; --lift-at to see contact lost and found). Ctrl-C stops.
        """)

    @Argument(help: "Recording to replay (CSV or video). Omit for a simulated finger.")
    var input: String?

    @Option(help: "Port to serve on (0: any free port; the URL is printed).")
    var port: Int = 8080

    @Option(help: "Address to serve on (an IPv4 or IPv6 address; 0.0.0.0 for every interface).")
    var host = "127.0.0.1"

    @Option(help: "Replay speed: seconds of input per second.")
    var speed: Double = 1

    @Option(help: "Stop after this many seconds of input (for scripts).")
    var seconds: Double?

    @Flag(help: "Replay INPUT again each time it ends.")
    var loop = false

    @Option(help: "Signal column of a CSV INPUT to analyse instead of r,g,b.")
    var column: String?

    @Option(help: "Sample rate in Hz, for CSV files without a time_s or time_ms column.")
    var rate: Double?

    @Option(help: "Sign of a --column signal: as-recorded or inverted.")
    var polarity: PulseRecording.Polarity = .asRecorded

    @Option(help: "Simulated finger: mean heart rate, beats per minute.")
    var bpm: Double = 72

    @Option(name: .customLong("lift-at"), help: "Simulated finger: lift it off the lens at this time, seconds (repeatable).")
    var liftAt: [Double] = []

    @Option(name: .customLong("lift-for"), help: "Simulated finger: seconds each lift lasts.")
    var liftFor: Double = 4

    @Option(help: "Simulated finger: seed of its noise and rhythm.")
    var seed: UInt64 = 1

    @Option(help: "Seconds a viewer may leave a write untaken (it stopped reading, or its machine sleeps) before its connection is closed.")
    var writeTimeout: Double = BoundedHTTPServer.defaultWriteTimeout

    /// Fastest replay: past this a second of 30-fps input is 1 ms of wall time, too fast to watch.
    static let maximumSpeed = 1000.0
    /// Slowest replay: a second of input over 100 s. Far slower, a sample's wait overflowed the
    /// clock's nanoseconds (`--speed 1e-21` trapped).
    static let minimumSpeed = 0.01
    /// The simulated finger's rates, bpm: the range the pipeline reports.
    static let simulatedRates = 30.0...240.0

    mutating func validate() throws {
        guard (0...Int(UInt16.max)).contains(port) else { throw ValidationError("--port must be 0-65535 (got \(port))") }
        guard speed >= Self.minimumSpeed, speed <= Self.maximumSpeed else {
            throw ValidationError("--speed must be from \(Self.minimumSpeed) to \(Int(Self.maximumSpeed)) (got \(speed))")
        }
        if let seconds, !(seconds > 0 && seconds.isFinite) { throw ValidationError("--seconds must be a positive number of seconds (got \(seconds))") }
        guard writeTimeout >= 0.1, writeTimeout <= 86_400 else {
            throw ValidationError("--write-timeout must be from 0.1 to 86400 seconds (got \(String(format: "%g", writeTimeout)))")
        }
        if input == nil {
            if loop { throw ValidationError("--loop replays an INPUT; the simulated finger runs on by itself") }
            if column != nil || rate != nil || polarity != .asRecorded {
                throw ValidationError("--column, --rate and --polarity apply to an INPUT file")
            }
            guard Self.simulatedRates.contains(bpm) else {
                throw ValidationError("--bpm must be 30-240 (got \(String(format: "%g", bpm)))")
            }
            guard liftFor > 0, liftFor.isFinite else { throw ValidationError("--lift-for must be a positive number of seconds (got \(liftFor))") }
            if let bad = liftAt.first(where: { !($0 >= 0 && $0.isFinite) }) { throw ValidationError("--lift-at must be 0 or more seconds (got \(bad))") }
        } else if !liftAt.isEmpty || bpm != 72 {
            throw ValidationError("--bpm and --lift-at set the simulated finger, which runs without INPUT")
        }
    }

    func run() async throws {
        let (inputs, sampleRate, session) = try makeInputs()
        let hub = DashboardHub(state: DashboardState(session: session))
        let server = try CLIError.wrap { try DashboardServer(host: host, port: UInt16(port), hub: hub, writeTimeout: writeTimeout) }
        try await server.serve { url in
            // Unbuffered, so a script reading the first line has it at once.
            FileHandle.standardOutput.write(Data((url + "\n").utf8))
            status("Vitals dashboard at \(url) (\(session.source)); Ctrl-C stops.")
        } feed: {
            try await LiveFeed.run(inputs, sampleRate: sampleRate, speed: speed, hub: hub)
            guard seconds == nil else { return true }
            status("The input has ended; the page keeps its final state. Ctrl-C stops.")
            return false
        }
    }

    /// The inputs to feed, the pipeline's rate and what the page says it shows.
    private func makeInputs() throws -> (LiveInputs, Double, DashboardMessage.Session) {
        guard let input else {
            var settings = SimulatedFinger.Settings()
            settings.bpm = bpm
            settings.seed = seed
            settings.liftOffs = liftAt.sorted().map { $0..<($0 + liftFor) }
            let lifts = liftAt.isEmpty ? "" : ", lifted at " + liftAt.sorted().map { String(format: "%g s", $0) }.joined(separator: ", ")
            return (LiveInputs(simulated: settings, limit: seconds), settings.frameRate,
                    .init(source: "simulated finger, \(String(format: "%g", bpm)) bpm\(lifts)", speed: speed, contactSensing: true))
        }
        let (recording, inputs) = try CLIError.wrap {
            let recording = try FingertipInput.load(path: input, column: column, rate: rate, polarity: polarity).recording
            return (recording, try recording.inputs.array())
        }
        FingertipInput.warnAbout(recording)
        var contactSensing = false
        if case .color = inputs.first { contactSensing = true }
        let name = URL(fileURLWithPath: input).lastPathComponent
        let description = String(format: "%@ (%@, %.1f s at %.1f Hz)%@", name, recording.columns, recording.duration,
                                 recording.sampleRate, loop ? ", looped" : "")
        return (LiveInputs(recording: inputs, period: recording.coveredDuration, loop: loop, limit: seconds),
                recording.sampleRate,
                .init(source: description, speed: speed, contactSensing: contactSensing))
    }
}
