import ArgumentParser
import Foundation
import PulseDetection
import SignalProcessing
import VitalsIO

/// `vitals heart-rate [INPUT]`: heart rate, beats and HRV of a recording.
struct HeartRate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heart-rate",
        abstract: "Heart rate, beats and HRV from fingertip colour means or a PPG recording.",
        discussion: """
        INPUT is a CSV file with a header: columns r,g,b (mean colour of each frame) or a signal column \
        chosen with --column; times from a time_s (or time_ms) column or --rate. Or a fingertip video (.y4m natively; \
        .mp4, .mov, .avi, .mkv, .webm through ffmpeg), analysed from its frames' presentation times. Or a PhysioNet (WFDB) record's \
        header, NAME.hea: its PLETH signal, or the one --column names (formats 16, 61, 80, 212, 24, 32). With no INPUT, a bundled minute of \
        finger PPG (PhysioNet a103l) is analysed and shown as the live component would show it.
        """,
        aliases: ["hr"]
    )

    @Argument(help: "Recording to analyse (CSV, video or WFDB .hea). Omit to analyse the bundled recording.")
    var input: String?

    @Option(help: "Signal column to analyse instead of r,g,b (with --motion, one or more PPG columns: ppg1,ppg2).")
    var column: String?

    @Option(help: ArgumentHelp(
        "Accelerometer columns x,y,z beside a --column PPG (a watch or wrist band while moving).",
        discussion: "The PPG's rate is tracked over windows (--window, default 8 s, every --hop, default 2 s or the window if shorter) with the accelerometer's spectrum as the motion reference, so the steps and the arm's swing are not taken for the pulse. No beats or HRV in this mode."))
    var motion: String?

    @Flag(help: ArgumentHelp(
        "The colour is of skin seen from a distance (a face, a forehead, a cheek), not a fingertip on the lens.",
        discussion: "Each frame's colour goes through a remote-pulse projection (--method) that cancels changes of brightness, then the rate is tracked over windows (--window, default 8 s, every --hop, default 2 s), declining windows without a clear spectral peak. No beats or HRV in this mode."))
    var skin = false

    @Flag(help: ArgumentHelp(
        "INPUT is a video of a face: find it, follow it, and read the pulse from its forehead and cheeks.",
        discussion: "Faces are found with an OpenCV cascade (--cascade, default the bundled LBP frontal-face cascade) on each frame's luma and followed by the face tracker; the largest face's skin regions go through the remote pulse as with --skin."))
    var face = false

    @Option(help: "With --face: an OpenCV cascade XML file for finding faces.")
    var cascade: String?

    @Option(help: "With --skin or --face: how the colour channels are combined (pos, chrom or green).")
    var method: RemotePulse.Method?

    @Option(help: "Sample rate in Hz, for files without a time_s or time_ms column.")
    var rate: Double?

    @Option(help: "Also report windows of this many seconds.")
    var window: Double?

    @Option(help: "Seconds between window starts (default: the window length).")
    var hop: Double?

    @Option(help: ArgumentHelp(
        "Sign of a --column signal: as-recorded or inverted.",
        discussion: "Beats are timed on the pulse's upstroke, taking larger values as more blood. A sensor that records absorbance (values fall as blood rises) needs inverted: the rate is the same either way, beat times and HRV are not."))
    var polarity: PulseRecording.Polarity = .asRecorded

    @Flag(help: "Print one JSON document on stdout.")
    var json = false

    @Option(help: ArgumentHelp(
        "Also write an HTML report to this file: the rate over time, the waveform with its beats, intervals, Poincaré plot and HRV.",
        discussion: "One self-contained page (inline SVG, nothing fetched). With --motion, --skin or --face: each window's rate and confidence, the movement's rate (--motion), stretches of the signals, and why windows were declined."))
    var report: String?

    mutating func validate() throws {
        if polarity != .asRecorded && column == nil && input != nil && !VideoFile.hasVideoExtension(input!) {
            throw ValidationError("--polarity applies to a --column signal (colour means have a physical sign)")
        }
        if let window, !(window > 0) { throw ValidationError("--window must be a positive number of seconds") }
        if let hop, !(hop > 0) { throw ValidationError("--hop must be a positive number of seconds") }
        if hop != nil && window == nil && motion == nil && !skin && !face { throw ValidationError("--hop needs --window") }
        if method != nil && !skin && !face { throw ValidationError("--method applies with --skin or --face") }
        if cascade != nil && !face { throw ValidationError("--cascade applies with --face") }
        if skin && face { throw ValidationError("--skin and --face are two ways to read one input: choose one") }
        if let report, report.isEmpty { throw ValidationError("--report needs a file name") }
        if face {
            guard let input, VideoFile.hasVideoExtension(input) else {
                throw ValidationError("--face needs a video INPUT (.y4m, .mp4, .mov, .avi, .mkv, .webm)")
            }
            if motion != nil || column != nil || rate != nil || polarity != .asRecorded {
                throw ValidationError("--face reads a video's frames: no --motion, --column, --rate or --polarity")
            }
        }
        if skin {
            if input == nil { throw ValidationError("--skin needs an INPUT file (colour means or a video of skin)") }
            if motion != nil || column != nil || polarity != .asRecorded {
                throw ValidationError("--skin reads the colour means (r,g,b) or a video's frames: no --motion, --column or --polarity")
            }
        }
        if motion != nil {
            if input == nil || column == nil { throw ValidationError("--motion needs an INPUT file and its PPG --column") }
            if polarity != .asRecorded { throw ValidationError("--polarity does not apply with --motion (a rate has no sign)") }
        } else if column?.contains(",") == true {
            throw ValidationError("several --column names need --motion (the fingertip pipeline reads one signal)")
        }
    }

    func run() throws {
        // Before the analysis (minutes on a long video): --report must not replace the recording.
        if let report, let input { try checkReportTarget(report, input: input) }
        if let motion, let input, let column { return try runWrist(path: input, ppg: column, motion: motion) }
        if skin, let input { return try runSkin(path: input) }
        if face, let input { return try runFace(path: input) }
        let path: String
        let bundled = input == nil
        if let input {
            path = input
        } else {
            // The bundled recording has one column and its own times: options for another file
            // would be ignored without a word.
            if column != nil || rate != nil {
                throw CLIError("--column and --rate apply to an INPUT file; the bundled recording needs neither")
            }
            guard let url = Bundle.module.url(forResource: "a103l-ppg-60s", withExtension: "csv", subdirectory: "Resources") else {
                throw CLIError("the bundled recording is missing from this build")
            }
            path = url.path
        }
        if let report, bundled { try checkReportTarget(report, input: path) }
        let loaded = try CLIError.wrap {
            try FingertipInput.load(path: path, column: bundled ? "ppg" : column, rate: rate, polarity: polarity)
        }
        var recording = loaded.recording
        if bundled {
            recording.source = "bundled recording (PhysioNet a103l finger PPG, first 60 s)"
            if !json { status("Analysing \(recording.source) as the live monitor would: waveform, beats (♥), rate.") }
        }
        if let window {
            try CLIError.wrap {
                try HeartRateReport.checkWindows(duration: recording.coveredDuration, length: window, hop: hop ?? window,
                                                 source: recording.source)
            }
        }
        FingertipInput.warnAbout(recording)
        let display = (!json && bundled) ? LiveDisplay() : nil
        let waveform = report.map { _ in HeartRateHTMLReport.Waveform(duration: recording.coveredDuration) }
        let observe: ((PulseEvent) -> Void)? = display == nil && waveform == nil ? nil : { event in
            display?.observe(event)
            waveform?.observe(event)
        }
        let analysis = try CLIError.wrap { try recording.analyse(observe: observe) }
        display?.finish(analysis)
        let hrv = HRVReport.json(analysis.hrv)
        let windowSpec = window.map { ($0, hop ?? $0) }
        if let window, window > recording.coveredDuration + 1e-9 {
            warn(String(format: "--window %g s is longer than the %.1f-s recording: no windows", window, recording.duration))
        }
        if json {
            // Built only here: a day's beats make it 24 MB of text.
            let document = HeartRateReport.json(input: bundled ? "bundled:a103l-ppg-60s.csv" : path, recording: recording,
                                                analysis: analysis, hrv: hrv, window: windowSpec, videoDecoding: loaded.decoding)
            document.writeLine()
        } else {
            printSummary(recording: recording, analysis: analysis, hrv: hrv, windows: windowSpec)
        }
        if let report, let waveform {
            let html = HeartRateHTMLReport.html(input: bundled ? "bundled: PhysioNet a103l finger PPG, first 60 s" : path,
                                                recording: recording, analysis: analysis, waveform: waveform)
            try writeReport(html, to: report)
        }
    }

    /// `--motion`: the wrist tracker over the PPG columns with the accelerometer as the motion reference.
    private func runWrist(path: String, ppg: String, motion: String) throws {
        if VideoFile.hasVideoExtension(path) { throw CLIError("\(path): --motion applies to CSV recordings of a PPG and an accelerometer") }
        let names = { (list: String) in list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } }
        let recording = try CLIError.wrap {
            try WristRecording.load(try CSVFile(path: path), ppgColumns: names(ppg), motionColumns: names(motion), rate: rate)
        }
        var settings = WristRateTracker.Settings()
        if let window { settings.windowSeconds = window }
        // The tracker's 2-s hop stays with a longer window; a shorter window hops by its length.
        settings.hopSeconds = hop ?? min(settings.hopSeconds, settings.windowSeconds)
        let tracker = try CLIError.wrap {
            do {
                return try WristRateTracker(sampleRate: recording.sampleRate, channels: recording.ppg.count, settings: settings)
            } catch let error as InvalidSettings {
                throw InputError(.badOption, "\(path): \(error.description)")
            }
        }
        // Windows come only where there are samples: a recording of two half hours a day apart has
        // a half hour's windows twice, not a day's.
        let covered = recording.duration - recording.gaps.reduce(0) { $0 + ($1.to - $1.from) }
        try CLIError.wrap {
            try HeartRateReport.checkWindows(duration: covered, length: tracker.windowDuration,
                                             hop: tracker.hopDuration, source: path)
        }
        for note in recording.notes { warn(note) }
        for g in recording.gaps {
            warn(String(format: "gap in the recording from %.2f s to %.2f s: the tracker starts afresh after it", g.from, g.to))
        }
        let estimates = recording.track(with: tracker)
        if estimates.isEmpty {
            warn(recording.duration >= tracker.windowDuration
                 ? String(format: "%@: no stretch between the gaps lasts one %g-s window: no rate", path, tracker.windowDuration)
                 : String(format: "%@: %.1f s is shorter than one %g-s window: no rate", path, recording.duration, tracker.windowDuration))
        }
        if let report { try writeReport(recording.htmlReport(input: path, estimates: estimates), to: report) }
        if json {
            print(recording.report(input: path, estimates: estimates, tracker: tracker).serialized())
            return
        }
        print(String(format: "%@: %.1f s at %.1f Hz (PPG %@, motion %@)", path, recording.duration, recording.sampleRate,
                     recording.ppgColumns.joined(separator: ","), recording.motionColumns.joined(separator: ",")))
        let bpm = estimates.compactMap(\.bpm)
        if !bpm.isEmpty {
            print(String(format: "heart rate  median %.1f bpm (%.1f-%.1f over %d of %d windows of %g s)", Statistics.median(bpm),
                         bpm.min()!, bpm.max()!, bpm.count, estimates.count, tracker.windowDuration))
        } else if !estimates.isEmpty {
            print("heart rate  not reported: every window was declined (\(Set(estimates.compactMap { $0.declined?.rawValue }).sorted().joined(separator: ", ")))")
        }
        guard window != nil || hop != nil else {
            if !estimates.isEmpty { print("(--window \(String(format: "%g", tracker.windowDuration)) lists the windows; --json gives them all)") }
            return
        }
        for e in estimates {
            let movement = e.motionBPM.map { String(format: "movement at %5.1f bpm", $0) } ?? "no movement"
            let rate = e.bpm.map { String(format: "%6.1f bpm", $0) } ?? "     - (\(e.declined!.rawValue.replacingOccurrences(of: "_", with: " ")))"
            print(String(format: "  %7.1f-%7.1f s  %@  confidence %.2f  %@", e.start, e.end, rate, e.confidence, movement))
        }
    }

    /// `--skin`: the remote pulse of the colour means (a CSV's or a video's frames).
    private func runSkin(path: String) throws {
        let recording = try CLIError.wrap { () throws -> PulseRecording in
            if VideoFile.hasVideoExtension(path) {
                if rate != nil { throw InputError(.badOption, "\(path): --rate applies to CSV recordings, not to videos") }
                return try FingertipInput.videoColours(path).recording
            }
            return try PulseRecording.load(path: path, rate: rate)
        }
        let skinRecording = try CLIError.wrap { try SkinRecording(source: path, regions: [("whole frame", recording)]) }
        var pulse = RemotePulse.Settings()
        if let method { pulse.method = method }
        var settings = SkinPulseTracker.defaultTrackerSettings
        if let window { settings.windowSeconds = window }
        settings.hopSeconds = hop ?? min(settings.hopSeconds, settings.windowSeconds)
        let analysis = try CLIError.wrap {
            do {
                return try skinRecording.analyse(pulse: pulse, tracker: settings)
            } catch let error as InvalidSettings {
                throw InputError(.badOption, "\(path): \(error.description)")
            }
        }
        for note in recording.notes { warn(note) }
        noWindowWarning(path: path, analysis, duration: recording.duration, window: settings.windowSeconds)
        if let report {
            try writeReport(skinRecording.htmlReport(input: path, heading: "Remote pulse from skin", command: "vitals heart-rate --skin --report",
                                                     analysis: analysis, pulse: pulse), to: report)
        }
        if json {
            print(skinRecording.report(input: path, analysis: analysis, pulse: pulse, tracker: settings).serialized())
            return
        }
        print(String(format: "%@: %.1f s at %.1f Hz, remote pulse (%@), %d of %d frames left out", path, recording.duration,
                     recording.sampleRate, pulse.method.rawValue, analysis.rejectedFrames[0], skinRecording.colors[0].count))
        printSkinRate(analysis, window: settings.windowSeconds)
    }

    /// `--face`: the remote pulse of the skin of the face the video shows.
    private func runFace(path: String) throws {
        let (classifier, cascadeName) = try Faces.loadCascade(cascade)
        var options = FaceVideoPulse.Options()
        if let method { options.pulse.method = method }
        if let window { options.skinTracker.windowSeconds = window }
        options.skinTracker.hopSeconds = hop ?? min(options.skinTracker.hopSeconds, options.skinTracker.windowSeconds)
        let progress = ProgressBar(label: URL(fileURLWithPath: path).lastPathComponent)
        let result = try CLIError.wrap { try FaceVideoPulse.run(path: path, cascade: classifier, options: options, progress: progress.update) }
        progress.finish()
        if let turn = result.displayRotation { warn(rotationWarning(path, degrees: turn)) }
        let frames = result.recording.colors[0].count
        if result.framesWithFace == 0 {
            warn("\(path): no face found in any of its \(frames) frames: no rate")
        } else {
            noWindowWarning(path: path, result.analysis, duration: result.recording.duration, window: options.skinTracker.windowSeconds)
        }
        if let report {
            try writeReport(result.recording.htmlReport(input: path, heading: "Remote pulse from a face", command: "vitals heart-rate --face --report",
                                                        analysis: result.analysis, pulse: options.pulse), to: report)
        }
        if json {
            guard case .object(var fields) = result.recording.report(input: path, analysis: result.analysis, pulse: options.pulse,
                                                                    tracker: options.skinTracker) else { return }
            fields.append(("faces", .object([
                ("cascade", .string(cascadeName)), ("frames_with_face", .num(Double(result.framesWithFace))),
                ("faces_tracked", .num(Double(result.faces))),
                ("frame_width", .num(Double(result.width))), ("frame_height", .num(Double(result.height))),
            ])))
            print(JSON.object(fields).serialized())
            return
        }
        print(String(format: "%@: %.1f s at %.1f Hz, a face in %d of %d frames (%d tracked), remote pulse (%@) of forehead and cheeks",
                     path, result.recording.duration, result.recording.sampleRate, result.framesWithFace, frames, result.faces,
                     options.pulse.method.rawValue))
        printSkinRate(result.analysis, window: options.skinTracker.windowSeconds)
    }

    /// Why `--skin` or `--face` has no window to read: too short, or a silence in every stretch.
    private func noWindowWarning(path: String, _ analysis: SkinRecording.Analysis, duration: Double, window: Double) {
        guard analysis.estimates.isEmpty else { return }
        warn(duration < window
             ? String(format: "%@: %.1f s is shorter than one %g-s window: no rate", path, duration, window)
             : String(format: "%@: no stretch between the silences lasts one %g-s window: no rate", path, window))
    }

    /// The rate line of `--skin` and `--face`.
    private func printSkinRate(_ analysis: SkinRecording.Analysis, window: Double) {
        let bpm = analysis.estimates.compactMap(\.bpm)
        if let hr = analysis.heartRate {
            print(String(format: "heart rate  %.1f bpm (%.0f %% of %d windows of %g s agree within 5 bpm; %d answered)", hr,
                         100 * analysis.consensus.agreement, analysis.estimates.count, window, bpm.count))
        } else if analysis.estimates.allSatisfy({ $0.declined == .flatSignal }), !analysis.estimates.isEmpty {
            print("heart rate  not reported: no pulse signal in any window (too dark, or most frames left out in every region: no face, or a colour that keeps jumping)")
        } else if !analysis.estimates.isEmpty {
            let answered = analysis.estimates.filter { $0.declined == nil }.count
            print(String(format: "heart rate  not reported: %.0f %% of the windows agree within 5 bpm of their median (half are needed), %d of %d answered (two and a tenth are needed)",
                         100 * analysis.consensus.agreement, answered, analysis.estimates.count))
        }
    }

    private func printSummary(recording: PulseRecording, analysis: PulseAnalysis, hrv: JSON,
                              windows: (Double, Double)?) {
        print(String(format: "%@: %.1f s at %.1f Hz (%@)", recording.source, recording.duration, recording.sampleRate, recording.columns))
        if let hr = analysis.heartRate {
            print(String(format: "heart rate  %.1f bpm  (confidence %.2f)", hr.bpm, hr.confidence))
        } else {
            print("heart rate  not reported: the signal quality was too low for a trustworthy answer")
        }
        let whole = recording.coveredDuration
        if analysis.heartRate != nil {
            let answered = analysis.analysedSeconds(end: whole, answeredOnly: true)
            if answered < 0.9 * whole {
                print(String(format: "answered    for %.1f of %.1f s (the rest: no finger on the lens, gaps, or a signal too poor to answer)",
                             answered, whole))
            }
        } else {
            let analysed = analysis.analysedSeconds(end: whole)
            if analysed < 0.9 * whole {
                print(String(format: "analysed    %.1f of %.1f s (the rest: no finger on the lens, or gaps)", analysed, whole))
            }
        }
        let declined = analysis.beats.filter(analysis.foundWhileDeclined).count
        print("beats       \(analysis.beats.count)" + (declined > 0 ? " (\(declined) found while the rate was declined)" : ""))
        if analysis.rejections.flatRuns > 0 {
            let runs = analysis.rejections.flatRuns
            print("            \(runs) run\(runs == 1 ? "" : "s") of identical samples (a clipped or disconnected sensor?): no beat taken after each for as long as it lasted, up to \(String(format: "%g", PulseAnalyzer.Settings().clippingHoldoff)) s")
        }
        // As in --json: no HRV from the beats of a recording whose rate is declined.
        if analysis.heartRate != nil, case .object(let m) = hrv {
            let pick = ["rmssd", "sdnn", "pnn50", "lf/hf", "breathingrate"]
            let parts = m.filter { pick.contains($0.0) }.map { k, v -> String in
                if case .number(let x) = v { return String(format: "%@ %.3g", k, x) }
                return "\(k) -"
            }
            print("hrv         " + parts.joined(separator: "  "))
        }
        if let (length, hop) = windows {
            let starts = HeartRateReport.windowStarts(duration: recording.coveredDuration, length: length, hop: hop)
            for (s, w) in zip(starts, analysis.windows(starts: starts, length: length)) {
                let bpm = w.bpm.map { String(format: "%6.1f bpm", $0) } ?? "     - (declined)"
                print(String(format: "  %7.1f-%7.1f s  %@  confidence %.2f", s, s + length, bpm, w.confidence))
            }
        }
    }
}

extension PulseRecording.Polarity: ExpressibleByArgument {}
extension RemotePulse.Method: ExpressibleByArgument {}
