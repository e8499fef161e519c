import SignalProcessing

/// Grades each beat by how much its waveform looks like the recent typical beat: a per-beat signal
/// quality index for HRV.
///
/// A motion artefact or a burst of noise on top of a beat moves its upstroke, and with it the beat's
/// time, by tens of milliseconds: too little for the interval rules of ``HRV`` to notice (a 60-ms shift
/// of one beat is 6 % of a second), yet enough to inflate RMSSD by a fifth. The beat's shape shows it.
/// This is the template-matching quality index of Li & Clifford (2012) and Orphanidou et al. (2015):
/// each beat's waveform, from a quarter period before its fiducial point to 0.6 period after it
/// (foot, upstroke, peak and dicrotic wave), is resampled to ``points`` values and correlated with a
/// template, the average of the recent good beats. A beat is doubtful, and kept out of HRV (its time,
/// not its existence, is in doubt), when it correlates less than ``minimumCorrelation`` with the
/// template, or when it is more than ``maximumAmplitude`` times as large as the typical beat (a spike
/// on the upstroke: the beat is still there, but its steepest point moved).
///
/// The stage keeps the last ``historySeconds`` of the waveform; beats older than that, or too close to
/// a restart, get no grade (nil) and are not judged.
///
/// - Complexity: O(1) per sample; O(``points``) per beat. Memory constant.
public struct BeatShape: Sendable {
    /// Correlation with the template below which a beat's time is not trusted: Orphanidou et al.
    /// (2015)'s acceptability threshold for PPG beats against their template (0.86).
    public static let minimumCorrelation = 0.86
    /// Values each beat's waveform is resampled to.
    public static let points = 24
    /// Window around the fiducial point, in expected periods: foot, upstroke, peak and dicrotic wave.
    public static let window = (before: 0.25, after: 0.6)
    /// A beat more than this many times as large as the typical beat (the norm of its mean-removed
    /// waveform over the template's) carries something besides the pulse: a motion spike added to it,
    /// which moves its steepest point while barely changing its shape. Pulse amplitude changes with
    /// breathing and vasomotion by tens of percent from beat to beat, not twofold.
    public static let maximumAmplitude = 2.0
    /// Beats averaged (equally) into the first template, before it follows good beats with weight
    /// ``templateWeight`` each.
    public static let initialBeats = 8
    public static let templateWeight = 0.1
    /// After this many consecutive beats below the threshold the template is rebuilt (the waveform
    /// changed: a new channel gain, a different finger pressure).
    public static let rebuildAfter = 8
    /// Waveform history kept, seconds (the beat tracker's decision lag plus a beat plus the early beats
    /// held back until the first rate).
    public static let historySeconds = 8.0

    /// A beat's grade: its correlation with the template, its amplitude over the typical beat's, and
    /// whether that makes its time doubtful.
    public typealias Grade = (correlation: Double, amplitude: Double, isDoubtful: Bool)

    private let rate: Double
    private var history: RingBuffer<Double>
    /// Time of the newest sample in `history`, seconds.
    private var newest = -Double.infinity
    private var template = [Double](repeating: 0, count: BeatShape.points)
    private var templateBeats = 0
    private var misses = 0
    private var snippet = [Double](repeating: 0, count: BeatShape.points)
    private var snippetNorm = 0.0
    /// Typical beat amplitude (norm of the mean-removed snippet), following good beats.
    private var typicalNorm = 0.0

    /// A grader for a waveform sampled uniformly at `rate` Hz.
    /// - Precondition: `rate` is a positive number up to 10 kHz (it sizes the history: NaN, 0 and
    ///   infinity trapped converting to Int without a word).
    public init(rate: Double) {
        precondition(rate > 0 && rate <= 10_000, "BeatShape: rate must be a positive number up to 10 kHz (got \(rate))")
        self.rate = rate
        history = RingBuffer(capacity: max(16, Int((Self.historySeconds * rate).rounded(.up))))
    }

    /// Forgets the waveform and the template (a new stretch of signal).
    public mutating func reset() {
        history.removeAll()
        newest = -.infinity
        templateBeats = 0
        misses = 0
        typicalNorm = 0
    }

    /// Turns the waveform held and the template over (the signal's sign was found to be the other
    /// one): the same as if every sample had been appended with the other sign.
    public mutating func invert() {
        for i in history.indices { history[i] = -history[i] }
        for i in template.indices { template[i] = -template[i] }
    }

    /// Appends the waveform sample at `time` (seconds; one sample per grid step).
    @inline(__always)
    public mutating func append(time: Double, value: Double) {
        history.append(value)
        newest = time
    }

    /// Appends `count` samples `scale * values[k]`, the last one at `lastTime` seconds: the same as
    /// appending them one at a time.
    public mutating func append(_ values: UnsafePointer<Double>, count: Int, scale: Double, lastTime: Double) {
        guard count > 0 else { return }
        history.append(count: count) { scale * values[$0] }
        newest = lastTime
    }

    /// The grade of the beat at `time` (seconds), given the expected `period` (seconds): its
    /// correlation with the template, its amplitude over the typical beat's, and whether that makes
    /// it doubtful; a good beat then updates the template. Nil while the template is
    /// being built or when the beat's window is not (or no longer) in the history, and for a time or
    /// period that is not a finite number.
    public mutating func grade(beatAt time: Double, period: Double) -> Grade? {
        guard extract(at: time, period: period) else { return nil }
        guard templateBeats >= Self.initialBeats else {
            templateBeats += 1
            learn(weight: 1 / Double(templateBeats))
            if templateBeats == Self.initialBeats { normalize(&template) }
            return nil
        }
        let r = correlation()
        let amplitude = snippetNorm / typicalNorm
        let doubtful = r < Self.minimumCorrelation || amplitude > Self.maximumAmplitude
        if !doubtful {
            misses = 0
            learn(weight: Self.templateWeight)
            normalize(&template)
        } else {
            misses += 1
            if misses >= Self.rebuildAfter {
                templateBeats = 0
                misses = 0
                typicalNorm = 0
                for i in template.indices { template[i] = 0 }
            }
        }
        return (r, amplitude, doubtful)
    }

    /// Moves the template and the typical amplitude toward the current beat by `weight` (0...1).
    private mutating func learn(weight w: Double) {
        for i in template.indices { template[i] += w * (snippet[i] - template[i]) }
        typicalNorm += w * (snippetNorm - typicalNorm)
    }

    private func correlation() -> Double {
        var r = 0.0
        for i in snippet.indices { r += snippet[i] * template[i] }
        return r
    }

    /// Fills `snippet` with the normalised waveform around `time`; false if it is not in the history
    /// (or a time or the period is not a finite number: an infinite beat time within an infinitely
    /// stamped history had no sample positions).
    private mutating func extract(at time: Double, period: Double) -> Bool {
        let count = history.count
        guard count > 1, period > 0, period.isFinite, time.isFinite, newest.isFinite else { return false }
        let oldest = newest - Double(count - 1) / rate
        let start = time - Self.window.before * period
        let end = time + Self.window.after * period
        guard start >= oldest, end <= newest else { return false }
        let step = (end - start) / Double(Self.points - 1)
        snippet.withUnsafeMutableBufferPointer { snippet in
            for k in 0..<Self.points {
                let x = (start + Double(k) * step - oldest) * rate
                let i = min(count - 2, Int(x))
                let f = x - Double(i)
                let h0 = history[i], h1 = history[i + 1]
                snippet[k] = h0 + f * (h1 - h0)
            }
        }
        snippetNorm = normalize(&snippet)
        return snippetNorm > 0
    }

    /// Zero mean, unit norm; returns the norm before scaling (0 for a constant vector, left as is).
    @discardableResult
    private func normalize(_ v: inout [Double]) -> Double {
        v.withUnsafeMutableBufferPointer { v in
            let mean = v.reduce(0, +) / Double(v.count)
            var ss = 0.0
            for i in v.indices {
                v[i] -= mean
                ss += v[i] * v[i]
            }
            guard ss > 0 else { return 0 }
            let s = 1 / ss.squareRoot()
            for i in v.indices { v[i] *= s }
            return ss.squareRoot()
        }
    }
}
