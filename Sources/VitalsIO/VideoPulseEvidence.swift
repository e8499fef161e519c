import Foundation
import PulseDetection
import SignalProcessing

/// Per-tile statistics gathered while a video is decoded, in memory that does not depend on the
/// video's length except for one number per frame (the frame-to-frame change, 8 bytes).
///
/// Fed with the tile means of each frame (`TileGrid`, PulseDetection), it counts how often each tile's red sits at
/// the sensor's ceiling (clipped by the torch) and records how much the tiles change from one frame
/// to the next, from which ``FrameStep/detect(changes:frameRate:)`` finds a periodic step (a video
/// encoder's keyframe cadence, for one).
public struct TileStatistics: Sendable {
    /// A tile's mean red at or above this level (0...255) counts as clipped: a torch-lit fingertip
    /// saturates the red channel at full scale, which reads 254-256 after the unclipped Y'CbCr ->
    /// RGB conversion of 8-bit video; 250 (98 % of full scale) leaves room for a tile that is
    /// clipped in almost all of its pixels.
    public static let clippedRedLevel = 250.0

    public let grid: TileGrid
    /// Frames seen.
    public private(set) var frames = 0
    /// Per tile: frames in which its mean red was at or above `clippedRedLevel`.
    public private(set) var clippedFrames: [Int]
    /// Per frame after the first: the mean over tiles and channels of |tile mean - its previous
    /// value| (0...255 units).
    public private(set) var changes: [Double] = []
    private var previous: [ColorSample] = []

    public init(grid: TileGrid) {
        self.grid = grid
        clippedFrames = Array(repeating: 0, count: grid.count)
    }

    /// Adds one frame's tile means (`grid.count` of them, as `TileGrid.sample(_:into:)` writes).
    public mutating func add(_ tiles: [ColorSample]) {
        precondition(tiles.count == grid.count, "expected \(grid.count) tile means")
        if previous.count == tiles.count {
            var total = 0.0
            for i in tiles.indices {
                total += abs(tiles[i].red - previous[i].red) + abs(tiles[i].green - previous[i].green)
                    + abs(tiles[i].blue - previous[i].blue)
            }
            changes.append(total / Double(3 * tiles.count))
        }
        for i in tiles.indices where tiles[i].red >= Self.clippedRedLevel { clippedFrames[i] += 1 }
        if previous.count != tiles.count { previous = tiles } else {
            for i in tiles.indices { previous[i] = tiles[i] }
        }
        frames += 1
    }

    /// Fraction of tiles (0...1) whose red was clipped in at least half of the frames.
    public var clippedTileFraction: Double {
        guard frames > 0 else { return 0 }
        return Double(clippedFrames.filter { 2 * $0 >= frames }.count) / Double(grid.count)
    }
}

/// A change between frames that recurs every `period` frames: what a video encoder's keyframes do
/// to a flat, dark, heavily compressed picture (each keyframe re-quantises it, the frames between
/// drift), leaving lines at `frameRate / period` Hz and its harmonics in every colour signal.
public struct FrameStep: Sendable, Equatable {
    /// Frames between steps.
    public var period: Int
    /// Index (into the changes, i.e. frame `phase + 1`) of the first step.
    public var phase: Int
    /// The median change at the step over the median change at the other phases.
    public var strength: Double
    /// Steps per second, Hz (nil without a frame rate).
    public var frequency: Double?

    /// Periods searched, frames: from a third of a second to four seconds at 30 fps.
    public static let periods = 10...120
    /// A step is reported when its median change is at least this many times the typical one: five
    /// of the six iPhone fingertip videos here show 7-26 at a 30-frame period (8 x 8 tiles of
    /// 160-pixel frames); in the sixth and the 720p AVI none reaches 6 (on 16-bit 18 x 32 tiles
    /// their strongest reach 2.4 and 4.2, at periods of 15 and 79 frames).
    public static let minimumStrength = 6.0
    /// Periods whose strength is within this fraction of the best are equivalent (multiples of the
    /// true period fold the same steps); the shortest of them is reported.
    static let equivalentFraction = 0.7

    /// Finds the strongest periodic step in per-frame changes, nil when none reaches
    /// `minimumStrength` or there are fewer than four periods of frames.
    /// - Parameters:
    ///   - changes: one value per frame interval (``TileStatistics/changes``).
    ///   - frameRate: frames per second, for `frequency`.
    /// - Complexity: O(n × periods) with a median per phase.
    public static func detect(changes: [Double], frameRate: Double?) -> FrameStep? {
        var candidates: [FrameStep] = []
        var column: [Double] = []
        var folded: [Double] = []
        for period in periods where changes.count >= 4 * period {
            let cycles = changes.count / period
            folded.removeAll(keepingCapacity: true)
            for phase in 0..<period {
                column.removeAll(keepingCapacity: true)
                for k in 0..<cycles { column.append(changes[k * period + phase]) }
                folded.append(Statistics.median(column))
            }
            let phase = folded.indices.max { folded[$0] < folded[$1] }!
            var others = folded
            others.remove(at: phase)
            let typical = Statistics.median(others)
            guard typical > 0 else { continue }
            candidates.append(FrameStep(
                period: period, phase: phase, strength: folded[phase] / typical,
                frequency: frameRate.map { $0 / Double(period) }))
        }
        guard let best = candidates.map(\.strength).max(), best >= minimumStrength else { return nil }
        return candidates.first { $0.strength >= equivalentFraction * best }
    }
}

/// What a fingertip video's own pulse shows, for the note beside a disagreement with the reference.
public struct VideoPulseEvidence: Sendable {
    /// A peak of the whole-video spectrum.
    public struct Peak: Sendable, Equatable {
        public var bpm: Double
        /// Power at the peak's vertex over the highest peak's, 0...1.
        public var relativePower: Double
    }

    /// Fraction of tiles whose red was clipped in at least half the frames (nil without tiles).
    public var clippedTileFraction: Double?
    /// A periodic frame step, if one was found.
    public var frameStep: FrameStep?
    /// The channel the pipeline chose most often.
    public var channel: String?
    /// The highest peaks (at most 3) of that channel's whole-video spectrum in 40-220 bpm.
    public var peaks: [Peak] = []
    /// 10th and 90th percentiles of the rates the pipeline reported, bpm.
    public var reportedRange: (low: Double, high: Double)?

    /// Band of the whole-video spectrum, Hz (the pipeline's tracker band: 30-240 bpm with margin).
    static let band = 0.5...4.0
    /// Welch segment, seconds (the pipeline's analysis window), zero-padded to a 0.5-bpm grid.
    static let segmentSeconds = 10.0

    /// Gathers the evidence for one video.
    /// - Parameters:
    ///   - video: the decoded video's per-frame mean colours (and tile statistics, if gathered).
    ///   - analysis: the pipeline's result on them.
    public init(video: VideoColorMeans, analysis: PulseAnalysis) {
        let samples = video.samples, tiles = video.tileStatistics
        clippedTileFraction = tiles?.clippedTileFraction
        let rate = video.measuredFrameRate
        if let tiles { frameStep = FrameStep.detect(changes: tiles.changes, frameRate: rate) }
        var counts: [String: Int] = [:]
        for u in analysis.updates { counts[u.channel, default: 0] += 1 }
        channel = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
        if !analysis.rates.isEmpty {
            let bpm = analysis.rates.map(\.bpm)
            reportedRange = (Statistics.percentile(bpm, 10), Statistics.percentile(bpm, 90))
        }
        guard let rate, let channel, samples.count >= Int(2 * Self.segmentSeconds * rate) else { return }
        let values: [Double]
        switch channel {
        case "red": values = samples.map(\.red)
        case "green": values = samples.map(\.green)
        case "blue": values = samples.map(\.blue)
        default: values = samples.map(\.signedHue)
        }
        peaks = Self.spectralPeaks(values, rate: rate)
    }

    /// The highest (at most 3) peaks of the band-passed signal's Welch spectrum in 40-220 bpm.
    static func spectralPeaks(_ values: [Double], rate: Double) -> [Peak] {
        let filter = Butterworth.bandPass(order: 2, low: band.lowerBound, high: min(band.upperBound, 0.4 * rate),
                                          sampleRate: rate)
        let mean = values.reduce(0, +) / Double(values.count)
        let y = filter.filtfilt(values.map { $0 - mean })
        let segment = Int(segmentSeconds * rate)
        var nfft = 1
        while Double(nfft) < 120 * rate { nfft <<= 1 }  // bins of at most 0.5 bpm
        let s = Spectrum.welch(y, sampleRate: rate, segmentLength: segment, overlap: 0.5, fftLength: nfft)
        let inBand = s.frequencies.indices.filter { s.frequencies[$0] >= 40 / 60 && s.frequencies[$0] <= 220 / 60 }
        guard let first = inBand.first else { return [] }
        let power = inBand.map { s.power[$0] }
        let found = Peaks.find(power).sorted { $0.value > $1.value }.prefix(3)
        guard let top = found.first?.value, top > 0 else { return [] }
        let df = s.resolution
        return found.map { p in
            Peak(bpm: 60 * (s.frequencies[first] + p.position * df), relativePower: p.value / top)
        }
    }

    /// One line: what the video shows.
    public var note: String {
        var parts: [String] = []
        if let c = clippedTileFraction {
            parts.append(String(format: "red clipped in %.0f%% of tiles", 100 * c))
        }
        if let s = frameStep {
            var text = "a frame step every \(s.period) frames"
            if let f = s.frequency {
                let lines = (1...3).map { String(format: "%.0f", 60 * Double($0) * f) }.joined(separator: "/")
                text += String(format: " (%.2f Hz: lines at %@ bpm)", f, lines)
            }
            parts.append(text + String(format: ", %.0fx the usual change", s.strength))
        }
        if let channel, !peaks.isEmpty {
            parts.append("\(channel) spectrum peaks " + peaks.map {
                String(format: "%.1f (%.2f)", $0.bpm, $0.relativePower)
            }.joined(separator: ", ") + " bpm")
        }
        if let r = reportedRange {
            parts.append(String(format: "reported rates %.0f-%.0f bpm (10th-90th percentile)", r.low, r.high))
        }
        return parts.joined(separator: "; ")
    }
}
