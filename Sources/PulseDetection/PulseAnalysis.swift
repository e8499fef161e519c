/// The result of running the pulse pipeline over a whole recording.
///
/// Built by running ``PulseAnalyzer`` (the live pipeline) over every input, so a batch analysis and
/// a live session over the same inputs report the same beats and rates.
public struct PulseAnalysis: Sendable {
    /// Every tracker update (one per hop), reported or declined.
    public var updates: [QualityReport] = []
    /// Rates the pipeline reported (confidence at or above the minimum).
    public var rates: [RateEstimate] = []
    /// All tracker estimates, including declined ones, aligned with `updates`.
    public var estimates: [RateEstimate] = []
    /// Confirmed beats; `isArtifact` marks beats whose interval HRV's correction rejected.
    public var beats: [Beat] = []
    /// HRV from the confirmed beats (intervals across gaps and those touching a beat of doubtful shape
    /// or one found while the rate was declined excluded), nil with fewer than 3 beats.
    public var hrv: HRVResult?
    public var contactEvents: [PulseEvent] = []
    public var gaps: [(from: Double, to: Double)] = []
    public var rejections = PulseAnalyzer.Rejections()
    /// Length of the analysis window the estimates cover, seconds.
    public var analysisWindow: Double = 10
    public var minimumConfidence: Double = 0.1

    /// An analysis holding only confirmed beats, for HRV over them (``hrv(from:to:)``): a live
    /// display's recent beats, say.
    /// - Parameters:
    ///   - beats: confirmed beats in time order.
    ///   - minimumConfidence: the pipeline's minimum rate confidence, 0...1 (beats found below it are
    ///     kept out of HRV).
    public init(beats: [Beat], minimumConfidence: Double) {
        self.beats = beats
        self.minimumConfidence = minimumConfidence
    }

    init() {}

    /// Runs the pipeline over `inputs` (time order).
    /// - Parameters:
    ///   - inputs: colour means or PPG samples, in time order.
    ///   - sampleRate: the rate of the uniform grid, Hz: the source's nominal frame or sample rate.
    ///   - settings: the pipeline's settings (defaults as the live monitor uses them).
    ///   - observe: called with every event as the live pipeline emits it (for drawing).
    public static func run<S: Sequence>(_ inputs: S, sampleRate: Double,
                                         settings: PulseAnalyzer.Settings = .init(),
                                         observe: ((PulseEvent) -> Void)? = nil) -> PulseAnalysis
    where S.Element == PulseInput {
        run(sampleRate: sampleRate, settings: settings, expectedCount: inputs.underestimatedCount,
            observe: observe) { analyzer, emit in
            feed(inputs, to: &analyzer, live: observe != nil, emit: emit)
        }
    }

    /// Runs the pipeline over inputs handed over a run at a time, for a recording too long to hold
    /// (a day of 100-Hz PPG read from a file): the same analysis as ``run(_:sampleRate:settings:observe:)``
    /// over all the runs' inputs in order.
    /// - Parameters:
    ///   - sampleRate: the rate of the uniform grid, Hz: the source's nominal frame or sample rate.
    ///   - settings: the pipeline's settings (defaults as the live monitor uses them).
    ///   - expectedCount: about how many inputs there will be (room for the results is taken once).
    ///   - observe: called with every event as the live pipeline emits it (for drawing).
    ///   - chunks: calls its argument with each run of inputs, in time order.
    public static func run(sampleRate: Double, settings: PulseAnalyzer.Settings = .init(), expectedCount: Int = 0,
                           observe: ((PulseEvent) -> Void)? = nil,
                           chunks: (_ each: ([PulseInput]) -> Void) throws -> Void) rethrows -> PulseAnalysis {
        try run(sampleRate: sampleRate, settings: settings, expectedCount: expectedCount, observe: observe) { analyzer, emit in
            try chunks { feed($0, to: &analyzer, live: observe != nil, emit: emit) }
        }
    }

    /// Feeds `inputs` to `analyzer`: all at once, or with `live` one at a time (each input's events
    /// out before the next goes in, as a live display sees them).
    private static func feed<S: Sequence>(_ inputs: S, to analyzer: inout PulseAnalyzer, live: Bool,
                                          emit: (PulseEvent) -> Void) where S.Element == PulseInput {
        if live {
            for input in inputs { analyzer.process(input, emit: emit) }
        } else {
            analyzer.process(contentsOf: inputs, emit: emit)
        }
    }

    private static func run(sampleRate: Double, settings: PulseAnalyzer.Settings, expectedCount count: Int,
                            observe: ((PulseEvent) -> Void)?,
                            body: (inout PulseAnalyzer, _ emit: @escaping (PulseEvent) -> Void) throws -> Void) rethrows -> PulseAnalysis {
        var settings = settings
        if observe == nil { settings.emitsWaveform = false }
        var analyzer = PulseAnalyzer(sampleRate: sampleRate, settings: settings)
        var result = PulseAnalysis()
        result.analysisWindow = settings.windowSeconds
        result.minimumConfidence = settings.minimumConfidence
        // Room for the results an input of this length gives (one update per hop; beats at up to
        // 120 bpm), taken once instead of grown by doubling (each growth copies and touches new
        // memory). Inputs are about one per grid sample; a longer result still grows as usual.
        let hops = count / max(1, Int((settings.hopSeconds * sampleRate).rounded())) + 1
        result.updates.reserveCapacity(hops)
        result.estimates.reserveCapacity(hops)
        result.rates.reserveCapacity(hops)
        result.beats.reserveCapacity(Int(2 * Double(count) / sampleRate) + 1)
        let handle: (PulseEvent) -> Void = { event in
            observe?(event)
            switch event {
            case .waveform: break
            case .beat: break
            case .confirmedBeat(let b): result.beats.append(b)
            case .rate(let r): result.rates.append(r)
            case .quality(let q):
                result.updates.append(q)
                result.estimates.append(RateEstimate(time: q.time, bpm: q.trackedBPM, confidence: q.index))
            case .contactFound, .contactLost: result.contactEvents.append(event)
            case .gap(let a, let b): result.gaps.append((a, b))
            }
        }
        try body(&analyzer, handle)
        analyzer.finish(emit: handle)
        result.rejections = analyzer.rejections
        result.computeHRV()
        return result
    }

    /// Seconds of [0, `end`] inside at least one analysis window (with `answeredOnly`, one whose rate
    /// was confident enough to report): the time the quality reports (the rates) speak for. Where the
    /// finger was off the lens or the input missing, no window was analysed; where the signal was
    /// unusable (flat, clipped, noise) windows were analysed and declined. A rate can come from the
    /// rest, and this says how much of the recording that is. A window reaches back
    /// ``analysisWindow`` seconds from its update, but not past the contact or the end of a gap that
    /// started its stretch, and with `answeredOnly` not past the latest declined update (a declined
    /// stretch shorter than a window would otherwise vanish under the answered windows after it).
    public func analysedSeconds(end: Double, answeredOnly: Bool = false) -> Double {
        var restarts = gaps.map(\.to)
        for case .contactFound(let t) in contactEvents { restarts.append(t) }
        restarts.sort()
        var total = 0.0, coveredTo = 0.0, r = -1, declinedAt = -Double.infinity
        for q in updates {
            if answeredOnly && !(q.index >= minimumConfidence) {
                declinedAt = q.time
                continue
            }
            while r + 1 < restarts.count && restarts[r + 1] <= q.time { r += 1 }
            let from = max(q.time - analysisWindow, r >= 0 ? restarts[r] : 0, coveredTo, declinedAt)
            let to = min(q.time, end)
            if to > from { total += to - from }
            coveredTo = max(coveredTo, to)
        }
        return total
    }

    private mutating func computeHRV() {
        guard let (result, first) = hrvWithIndex(from: -.infinity, to: .infinity) else { return }
        for r in result.rejected where first + r.index + 1 < beats.count {
            beats[first + r.index + 1].isArtifact = true
            beats[first + r.index + 1].artifactReason = r.reason
        }
        for b in result.ectopicBeats where first + b < beats.count { beats[first + b].isEctopic = true }
        hrv = result
    }

    /// HRV from the confirmed beats whose times lie in [start, end] seconds, with the same exclusions
    /// as ``hrv``: beats reached across a gap or a bridged artefact (no interval), beats whose shape
    /// is unlike the typical beat (``Beat/hasDoubtfulShape``) and beats found while the rate was
    /// declined (``foundWhileDeclined(_:)``) keep their intervals out. Nil with fewer than 3 beats in
    /// the range.
    ///
    /// Declined stretches are left out because the beats there are upstrokes in a signal the pipeline
    /// does not trust, and the interval rules cannot catch them: their local median is made of the
    /// same upstrokes. A synthetic 70-bpm PPG turning to white noise halfway through still gets a
    /// whole-recording rate (confident in 53 % of updates), and with those beats its RMSSD read 56.9
    /// ms, SDNN 78.6 ms and LF/HF 4.2 against 39.7, 31.0 and 0.08 for its clean half (39.6, 31.3 and
    /// 0.08 without them).
    public func hrv(from start: Double, to end: Double) -> HRVResult? {
        hrvWithIndex(from: start, to: end)?.result
    }

    private func hrvWithIndex(from start: Double, to end: Double) -> (result: HRVResult, first: Int)? {
        guard let first = beats.firstIndex(where: { $0.time >= start }) else { return nil }
        let last = beats.lastIndex(where: { $0.time <= end }) ?? -1
        guard last - first >= 2 else { return nil }
        let range = beats[first...last]
        let excluded = range.indices.filter { i in
            (i > first && beats[i].interval == nil) || beats[i].hasDoubtfulShape || foundWhileDeclined(beats[i])
        }.map { $0 - first }
        return (HRV.measures(beatTimes: range.map(\.time), excludedBeats: excluded), first)
    }

    /// Whether `beat` was found while the rate was declined (or before the first estimate): an
    /// upstroke in a signal the pipeline does not trust.
    public func foundWhileDeclined(_ beat: Beat) -> Bool {
        !((beat.rateConfidence ?? 0) >= minimumConfidence)
    }

    /// The whole recording's heart rate: the median of the reported rates, with their median
    /// confidence; nil when fewer than a third of the updates were confident enough to report.
    public var heartRate: RateEstimate? {
        guard !rates.isEmpty, rates.count * 3 >= updates.count else { return nil }
        let bpm = Statistics.median(rates.map(\.bpm))
        let confidence = Statistics.median(rates.map(\.confidence))
        return RateEstimate(time: rates.last!.time, bpm: bpm, confidence: confidence)
    }

    /// The answer for the window [start, start + length] seconds: the median of the estimates whose
    /// analysis windows lie inside it (or, for windows shorter than the analysis window, that end in
    /// it), reported when at least half of them are confident enough; otherwise bpm is nil and the
    /// confidence says why. The estimates are the live rate tracker's, which carries its track from
    /// one hop to the next: a window's answer is what a live display showed over it, and it can lag a
    /// sudden change of rate at the window's start (a track at 60 bpm takes several hops to follow a
    /// step to 96), rather than a fresh estimate from the window alone.
    public func window(start: Double, length: Double) -> (bpm: Double?, confidence: Double) {
        window(start: start, length: length, sorted: false)
    }

    /// ``window(start:length:)`` for each of `starts`: the same answers, found by binary search when
    /// the estimates are in time order (as a batch run gives them), so a day of 1-s windows does not
    /// scan the day's estimates once per window.
    public func windows(starts: [Double], length: Double) -> [(bpm: Double?, confidence: Double)] {
        let sorted = zip(estimates, estimates.dropFirst()).allSatisfy { $0.time <= $1.time }
        return starts.map { window(start: $0, length: length, sorted: sorted) }
    }

    private func window(start: Double, length: Double, sorted: Bool) -> (bpm: Double?, confidence: Double) {
        let eps = 1e-6
        var inside: [RateEstimate]
        if sorted {
            // The same conditions as the scans below, as index ranges of the time-ordered estimates.
            let end = firstIndex { !($0.time <= start + length + eps) }
            inside = Array(estimates[min(firstIndex { $0.time - analysisWindow >= start - eps }, end)..<end])
            if inside.isEmpty { inside = Array(estimates[min(firstIndex { $0.time > start + eps }, end)..<end]) }
        } else {
            inside = estimates.filter {
                $0.time - analysisWindow >= start - eps && $0.time <= start + length + eps
            }
            if inside.isEmpty {
                inside = estimates.filter { $0.time > start + eps && $0.time <= start + length + eps }
            }
        }
        guard !inside.isEmpty else { return (nil, 0) }
        let confidence = Statistics.median(inside.map(\.confidence))
        let good = inside.filter { $0.confidence >= minimumConfidence }
        guard good.count * 2 >= inside.count, !good.isEmpty else { return (nil, confidence) }
        return (Statistics.median(good.map(\.bpm)), confidence)
    }

    /// The first index of the time-ordered estimates where `condition` holds (it holds from there
    /// on), or the count.
    private func firstIndex(where condition: (RateEstimate) -> Bool) -> Int {
        var lo = 0, hi = estimates.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if condition(estimates[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}

import SignalProcessing
