import PulseDetection

/// The `vitals heart-rate --json` document. Field names are fixed by the issue that introduced them;
/// fields may be added, never renamed.
public enum HeartRateReport {
    /// Most windows one report lists: a 24-hour recording in 1-s hops is 86,400. Far more (a hop of
    /// a microsecond) would be gigabytes of JSON that nobody could read.
    public static let maximumWindows = 100_000

    /// The number of windows `windowStarts` gives, without listing them (any positive length and hop).
    public static func windowCount(duration: Double, length: Double, hop: Double) -> Double {
        guard length > 0, hop > 0, length <= duration + 1e-9 else { return 0 }
        return ((duration + 1e-9 - length) / hop).rounded(.down) + 1
    }

    /// Checks that windows of `length` every `hop` seconds over `duration` can be listed.
    /// - Throws: `InputError.badOption` when they would be more than ``maximumWindows``
    ///   (e.g. `--hop 1e-6`), naming the count and the shortest hop that fits.
    public static func checkWindows(duration: Double, length: Double, hop: Double, source: String) throws {
        let count = windowCount(duration: duration, length: length, hop: hop)
        guard count <= Double(maximumWindows) else {
            let shortest = (duration - length) / Double(maximumWindows - 1)
            throw InputError(.badOption, String(
                format: "%@: windows every %g s over %.1f s would be %.3g windows; at most %d are reported (use a hop of %.3g s or more)",
                source, hop, duration, count, maximumWindows, shortest))
        }
    }

    /// Window starts 0, hop, 2 hop, ... while start + length <= duration.
    /// Call ``checkWindows(duration:length:hop:source:)`` first for lengths and hops from a user.
    public static func windowStarts(duration: Double, length: Double, hop: Double) -> [Double] {
        guard length > 0, hop > 0 else { return [] }
        var starts: [Double] = []
        var k = 0
        while Double(k) * hop + length <= duration + 1e-9 {
            starts.append(Double(k) * hop)
            k += 1
        }
        return starts
    }

    /// The document for one analysed recording; `hrv` (from ``HRVReport``) is reported only when the
    /// whole-recording heart rate is, null otherwise. `videoDecoding`, for a video, adds what its
    /// decoder reported (as `frames --json` does): the colours of damaged frames are the decoder's
    /// concealment, not the finger's.
    public static func json(input: String, recording: PulseRecording, analysis: PulseAnalysis,
                            hrv: JSON, window: (length: Double, hop: Double)?,
                            videoDecoding: VideoDecodingIssues? = nil) -> JSON {
        var fields: [(String, JSON)] = []
        fields.append(("input", .string(input)))
        fields.append(("duration_s", .num(recording.duration, digits: 3)))
        fields.append(("start_time_s", .num(recording.startTime, digits: 6)))
        fields.append(("sample_rate_hz", .num(recording.sampleRate, digits: 3)))
        let hr = analysis.heartRate
        fields.append(("heart_rate", .object([
            ("bpm", .num(hr?.bpm, digits: 2)),
            ("confidence", .num(hr?.confidence ?? Statistics.median(analysis.estimates.map(\.confidence)), digits: 3)),
        ])))
        fields.append(("windows", .array(window.map { windowsJSON(recording: recording, analysis: analysis, window: $0) } ?? [])))
        fields.append(("beats", beatsJSON(analysis)))
        // HRV is an answer like the rate: when the rate is declined (noise, no finger) the "beats"
        // it would come from are not trusted either (white noise gave an HRV at 172 bpm). Within a
        // recording that has a rate, the beats found while it was declined are left out of HRV.
        fields.append(("hrv", hr == nil ? .null : hrv))
        fields.append(("quality", qualityJSON(recording: recording, analysis: analysis)))
        // Corrections made while reading (e.g. colour means taken as 0-1 fractions), as warned.
        if !recording.notes.isEmpty { fields.append(("notes", .array(recording.notes.map { .string($0) }))) }
        if let videoDecoding {
            fields.append(("video_decoding", .object([
                ("decoding_errors", .number(Double(videoDecoding.errors))),
                ("damaged_frames", .number(Double(videoDecoding.damagedFrames))),
                ("undecodable_packets", .number(Double(videoDecoding.undecodablePackets))),
            ])))
        }
        return .object(fields)
    }

    /// `windows`: the rate in each window of `window.length` seconds every `window.hop`.
    private static func windowsJSON(recording: PulseRecording, analysis: PulseAnalysis,
                                    window: (length: Double, hop: Double)) -> [JSON] {
        let starts = windowStarts(duration: recording.coveredDuration, length: window.length, hop: window.hop)
        return zip(starts, analysis.windows(starts: starts, length: window.length)).map { s, w in
            .object([
                ("start_s", .num(s, digits: 3)), ("end_s", .num(s + window.length, digits: 3)),
                ("bpm", .num(w.bpm, digits: 2)), ("confidence", .num(w.confidence, digits: 3)),
            ])
        }
    }

    /// `beats`, made as they are written: a day's beats as a tree of values would take 100 MB.
    private static func beatsJSON(_ analysis: PulseAnalysis) -> JSON {
        let beats = analysis.beats
        return .lazyArray(count: beats.count) { i in
            let b = beats[i]
            return .object([
                ("time_s", .num(b.time, digits: 4)),
                ("ibi_ms", .num(b.interval.map { $0 * 1000 }, digits: 2)),
                ("artifact", .bool(b.isArtifact)),
                ("artifact_reason", b.artifactReason.map { .string($0.rawValue) } ?? .null),
                ("ectopic", .bool(b.isEctopic)),
                ("shape_quality", .num(b.shapeQuality, digits: 3)),
                ("shape_amplitude", .num(b.shapeAmplitude, digits: 3)),
                ("doubtful_shape", .bool(b.hasDoubtfulShape)),
                ("rate_confidence", .num(b.rateConfidence, digits: 3)),
                ("rate_declined", .bool(analysis.foundWhileDeclined(b))),
            ])
        }
    }

    /// `quality`: how much of the recording was analysed and answered, and from which channels.
    private static func qualityJSON(recording: PulseRecording, analysis: PulseAnalysis) -> JSON {
        let q = analysis.updates
        let reported = Double(analysis.rates.count) / Double(max(1, q.count))
        let analysed = analysis.analysedSeconds(end: recording.coveredDuration)
        return .object([
            ("windows_analysed", .number(Double(q.count))),
            ("fraction_confident", .num(reported, digits: 3)),
            ("median_index", .num(Statistics.median(q.map(\.index)), digits: 3)),
            ("channel", .string(mostCommon(q.map(\.channel)) ?? recording.columns)),
            ("beat_channel", .string(mostCommon(q.map(\.beatChannel)) ?? recording.columns)),
            ("perfusion_percent", .num(Statistics.median(q.compactMap(\.perfusionPercent)), digits: 3)),
            ("gaps", .array(recording.gaps.map { .object([("from_s", .num($0.from, digits: 3)), ("to_s", .num($0.to, digits: 3))]) })),
            ("skipped_samples", .number(Double(analysis.rejections.nonFinite + analysis.rejections.nonIncreasingTime))),
            // How much of the recording the analysis windows cover, and the answered ones (see
            // PulseAnalysis.analysedSeconds): a rate from 10 s of a 30-s clip whose finger left the
            // lens, or whose signal then clipped, says so here.
            ("analysed_s", .num(analysed, digits: 2)),
            ("analysed_fraction", .num(analysed / max(recording.coveredDuration, 1e-9), digits: 3)),
            ("answered_s", .num(analysis.analysedSeconds(end: recording.coveredDuration, answeredOnly: true), digits: 2)),
            ("flat_runs", .number(Double(analysis.rejections.flatRuns))),
        ])
    }

    static func mostCommon(_ xs: [String]) -> String? {
        var counts: [String: Int] = [:]
        for x in xs { counts[x, default: 0] += 1 }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }
}

import SignalProcessing
