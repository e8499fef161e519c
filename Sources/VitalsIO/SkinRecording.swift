import PulseDetection
import SignalProcessing

/// Mean colours of one or more regions of skin seen by a camera over the same frames (a face's
/// forehead and cheeks; a video of a skin patch each), for the remote pulse: `SkinPulseTracker`
/// (PulseDetection) turns each region's colours into a pulse signal (`RemotePulse`) and tracks the rate over the
/// regions together, declining windows whose spectrum holds no clear peak.
public struct SkinRecording: Sendable {
    public var source: String
    /// The regions' names, in the order of `colors`.
    public var regions: [String]
    /// Per region, one colour per frame; times in seconds from the first frame, the same in every region.
    public var colors: [[ColorSample]]
    /// The nominal frame rate, Hz.
    public var sampleRate: Double
    /// Silences over 1 s, where the analysis starts afresh.
    public var gaps: [(from: Double, to: Double)]
    /// Corrections made while reading, one sentence each.
    public var notes: [String]

    /// Seconds from the first frame to the last.
    public var duration: Double { colors.first?.last?.time ?? 0 }

    /// Regions read as ``PulseRecording``s of colour means (validated times and values).
    /// - Throws: `InputError` when there is no region, or the regions' frames differ in number or time.
    public init(source: String, regions: [(name: String, recording: PulseRecording)]) throws {
        guard let first = regions.first else { throw InputError(.badOption, "\(source): no skin region to analyse") }
        let colors = try regions.map { region in
            try region.recording.inputs.array().compactMap { input -> ColorSample? in
                if case .color(let c) = input { return c }
                return nil
            }
        }
        guard colors[0].count == first.recording.inputs.count else {
            throw InputError(.badOption, "\(first.recording.source): the remote pulse needs colour means (r,g,b), not a signal column")
        }
        for (k, region) in regions.enumerated().dropFirst() {
            guard colors[k].count == colors[0].count,
                  zip(colors[k], colors[0]).allSatisfy({ abs($0.time - $1.time) < 1e-6 }) else {
                throw InputError(.badOption, "\(source): the regions '\(first.name)' and '\(region.name)' do not share their frames (\(colors[0].count) and \(colors[k].count) frames)")
            }
        }
        self.source = source
        self.regions = regions.map(\.name)
        self.colors = colors
        sampleRate = first.recording.sampleRate
        gaps = first.recording.gaps
        notes = regions.flatMap(\.recording.notes)
    }

    /// Regions sampled from the same frames by the caller (a face's regions from a video): `colors`
    /// holds one array per region, each with one colour per frame at the same times (a colour that is
    /// not a number where the region was not seen: the remote pulse holds the last one). The frame
    /// rate is the median interval's.
    /// - Throws: `InputError` for no region, regions of different lengths or times, fewer than two
    ///   frames, or times that are not finite and increasing.
    public init(source: String, regions names: [String], colors: [[ColorSample]], notes: [String] = []) throws {
        guard !names.isEmpty, names.count == colors.count else {
            throw InputError(.badOption, "\(source): one name per skin region is needed")
        }
        let times = colors[0].map(\.time)
        guard times.count >= 2 else { throw InputError(.tooShort, "\(source): only \(times.count) frame(s)") }
        guard colors.allSatisfy({ $0.map(\.time) == times }) else {
            throw InputError(.badOption, "\(source): the skin regions do not share their frames")
        }
        guard times.allSatisfy(\.isFinite), zip(times, times.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw InputError(.badOption, "\(source): frame times that are not finite and increasing")
        }
        let start = times[0]
        self.source = source
        self.regions = names
        self.colors = colors.map { $0.map { ColorSample(time: $0.time - start, red: $0.red, green: $0.green, blue: $0.blue) } }
        sampleRate = 1 / Statistics.median(zip(times, times.dropFirst()).map { $1 - $0 })
        gaps = zip(times, times.dropFirst()).filter { $1 - $0 > 1 }.map { ($0 - start, $1 - start) }
        self.notes = notes
    }

    /// The remote pulse of every region and the rate tracked over them together.
    public struct Analysis: Sendable {
        /// Per region, frames left out (see `RemotePulse.rejectedFrames` in PulseDetection).
        public var rejectedFrames: [Int]
        /// Per region, the windows it counted in (a region is left out of a window in which it lost
        /// most of its frames; see `SkinPulseTracker` in PulseDetection).
        public var windowsCounted: [Int]
        public var estimates: [WristRateTracker.Estimate]
        /// Per region, whether it counted in any window.
        public var used: [Bool] { windowsCounted.map { $0 > 0 } }
        /// The rate the windows agree on, bpm (`RemotePulse.consensus(_:agreementBPM:minimumAgreement:minimumAnswered:)`
        /// in PulseDetection);
        /// nil when they do not.
        public var heartRate: Double? { consensus.bpm }
        public var consensus: (bpm: Double?, agreement: Double) { RemotePulse.consensus(estimates) }
    }

    /// Runs `SkinPulseTracker` (PulseDetection; the live path) over the recording's regions.
    /// - Throws: `InvalidSettings` for settings the pulse or the tracker cannot use at this frame rate.
    public func analyse(pulse settings: RemotePulse.Settings = .init(),
                        tracker trackerSettings: WristRateTracker.Settings = SkinPulseTracker.defaultTrackerSettings) throws -> Analysis {
        let times = colors[0].map(\.time)
        let run = try SkinPulseTracker.run(times: times, colors: colors.map { $0.map { SIMD3($0.red, $0.green, $0.blue) } },
                                           frameRate: sampleRate, pulse: settings, tracker: trackerSettings)
        return Analysis(rejectedFrames: run.rejectedFrames, windowsCounted: run.windowsCounted, estimates: run.estimates)
    }

    /// The `vitals heart-rate --skin --json` document: the top-level fields of ``HeartRateReport``
    /// (`heart_rate.bpm` is the rate the windows agree on, with the share that agree as `agreement`;
    /// `confidence`, beside a rate only, is the median of the answered windows'; no beats or HRV: the remote pulse's beats
    /// are not sharp enough to time), each window as `heart-rate --motion` gives it, and in `quality`
    /// the method, the regions and the frames each region left out.
    public func report(input: String, analysis: Analysis, pulse settings: RemotePulse.Settings,
                       tracker: WristRateTracker.Settings = SkinPulseTracker.defaultTrackerSettings) -> JSON {
        let answered = analysis.estimates.filter { $0.bpm != nil }
        let used = try? WristRateTracker(sampleRate: sampleRate, channels: regions.count, settings: tracker)
        return .object([
            ("input", .string(input)),
            ("duration_s", .num(duration, digits: 3)),
            ("sample_rate_hz", .num(sampleRate, digits: 3)),
            ("heart_rate", .object([
                ("bpm", .num(analysis.heartRate, digits: 2)),
                // The answered windows' median confidence, beside a rate only (one confident window of
                // seven is no confident rate).
                ("confidence", .num(answered.isEmpty || analysis.heartRate == nil ? nil : Statistics.median(answered.map(\.confidence)),
                                    digits: 3)),
                ("agreement", .num(analysis.consensus.agreement, digits: 3)),
            ])),
            ("windows", WristRecording.windowsJSON(analysis.estimates)),
            ("beats", .array([])),
            ("hrv", .null),
            ("quality", .object([
                ("method", .string("remote pulse: \(settings.method.rawValue) projection of the skin's colour, spectrum tracked over windows")),
                ("regions", .array(regions.map { .string($0) })),
                ("rejected_frames", .array(analysis.rejectedFrames.map { .num(Double($0)) })),
                ("regions_used", .array(analysis.used.map { .bool($0) })),
                ("region_windows", .array(analysis.windowsCounted.map { .num(Double($0)) })),
                ("frames", .num(Double(colors.first?.count ?? 0))),
                // As analysed: in whole frames (or decimated samples), as --motion reports them.
                ("window_s", .num(used?.windowDuration ?? tracker.windowSeconds, digits: 4)),
                ("hop_s", .num(used?.hopDuration ?? tracker.hopSeconds, digits: 4)),
                ("gaps", .num(Double(gaps.count))),
                ("answered_windows", .num(Double(answered.count))),
            ])),
        ])
    }
}
