import Foundation
import SignalProcessing
import PulseDetection

/// A synthetic fingertip-on-camera video: torch-lit red skin with saturated highlights, vignetting,
/// a pulsatile colour change with a dicrotic notch and breathing-linked rate variation, sensor
/// noise, and optionally the finger lifting off the lens. Deterministic for a given seed.
///
/// Model (per pixel, R'G'B' on 0...255, then clipped like a sensor, converted to full-range BT.601
/// Y'CbCr 4:2:0):
/// `colour = base(x, y) * (1 - depth_c * pulse(t)) * (1 + breathing(t)) + noise`, where `base` is
/// the torch-lit skin colour shaped by vignetting and a torch hotspot, and `pulse` (0...1) is the
/// blood-volume waveform (more blood absorbs more light, so the frame darkens at systole).
public struct FingerVideoSimulator: Sendable {
    /// What to simulate.
    public struct Configuration: Sendable, Equatable {
        /// Mean heart rate, beats per minute.
        public var bpm: Double
        /// Clip length, seconds.
        public var seconds: Double
        /// Frames per second.
        public var frameRate: Int = 30
        /// Frame size in pixels (even sizes keep 4:2:0 exact; odd sizes are allowed).
        public var width: Int = 320
        public var height: Int = 240
        /// When the finger leaves the lens, seconds from the start (nil: never).
        public var liftAt: Double?
        /// Seed of the noise generator.
        public var seed: UInt64 = 1
        /// Standard deviation of the sensor noise, in 0...255 levels.
        public var noiseLevel: Double = 2.0

        public init(bpm: Double, seconds: Double, frameRate: Int = 30, width: Int = 320, height: Int = 240,
                    liftAt: Double? = nil, seed: UInt64 = 1, noiseLevel: Double = 2.0) {
            self.bpm = bpm
            self.seconds = seconds
            self.frameRate = frameRate
            self.width = width
            self.height = height
            self.liftAt = liftAt
            self.seed = seed
            self.noiseLevel = noiseLevel
        }
    }

    // Model constants. Values are typical of torch-lit fingertip frames (the MTHS recordings' frame
    // means are around R 180-255, G 20-90, B 5-40 with pulsatile swings near 1-2 % of the mean);
    // they make a plausible clip, not a fit to any recording.
    /// Torch-lit skin colour at the frame centre before vignetting (R, G, B levels).
    static let skin: SIMD3<Double> = [245, 40, 22]
    /// Relative darkening of each channel at the systolic peak (pulse = 1): green absorbs most.
    static let pulseDepth: SIMD3<Double> = [0.010, 0.025, 0.018]
    /// Vignetting: brightness falls by this fraction from the centre to the corners (r = 1).
    static let vignetting = 0.45
    /// The torch hotspot: centre (fractions of width and height), radius (fraction of the
    /// diagonal) and extra light in levels (R, G, B); it saturates red near its centre.
    static let hotspot = (x: 0.72, y: 0.28, radius: 0.22, gain: SIMD3<Double>(120, 70, 40))
    /// Respiratory sinus arrhythmia: the beat rate swings by this fraction at `breathingHz`.
    static let rateSwing = 0.04
    /// Breathing frequency, Hz (15 breaths per minute) and its brightness swing (fraction).
    static let breathingHz = 0.25
    static let breathingDepth = 0.003
    /// Seconds the finger takes to leave the lens.
    static let liftDuration = 0.3
    /// The room the camera sees once the finger is off: grey, torch-lit, textured (levels).
    static let room: SIMD3<Double> = [128, 122, 112]

    public let configuration: Configuration
    /// Per-pixel torch-lit skin (R, G, B interleaved) and room colours, before modulation.
    private let fingerImage: [Float]
    private let roomImage: [Float]
    /// Frames in the clip.
    public var frameCount: Int {
        // A small tolerance: 1.16 s x 25 fps is 28.999999999999996 in floating point, 29 frames.
        Int((configuration.seconds * Double(configuration.frameRate) + 1e-9).rounded(.down))
    }

    /// The stream header ``writeY4M(to:progress:)`` writes (full range, `XCOLORRANGE=FULL`).
    public var y4mHeader: Y4MHeader {
        Y4MHeader(width: configuration.width, height: configuration.height, frameRateNumerator: configuration.frameRate,
                  range: .full)
    }

    /// The size of the file ``writeY4M(to:progress:)`` writes, bytes: the header line, then each
    /// frame's `FRAME` line and planes.
    public var y4mByteCount: Int {
        y4mHeader.fileByteCount(frames: frameCount)
    }

    /// - Throws: `InputError(.badRate)` for a rate, size, length, heart rate, noise level or lift time out
    ///   of range (a clip shorter than one frame, a noise beyond 255 levels, a lift time outside the clip or NaN).
    public init(_ configuration: Configuration) throws {
        let c = configuration
        guard c.bpm >= 20, c.bpm <= 300 else { throw InputError(.badRate, "heart rate must be 20...300 bpm (got \(c.bpm))") }
        guard c.seconds > 0, c.seconds <= 3600 else { throw InputError(.badRate, "length must be more than 0 and at most 3600 s (got \(c.seconds))") }
        guard c.frameRate >= 1, c.frameRate <= 480 else { throw InputError(.badRate, "frame rate must be 1...480 (got \(c.frameRate))") }
        guard c.seconds * Double(c.frameRate) >= 1 else {
            throw InputError(.badRate, "length \(c.seconds) s is shorter than one frame at \(c.frameRate) fps")
        }
        guard c.width >= 2, c.height >= 2, c.width <= 4096, c.height <= 4096 else {
            throw InputError(.badRate, "frame size must be 2...4096 pixels a side (got \(c.width)x\(c.height))")
        }
        guard c.noiseLevel >= 0, c.noiseLevel <= 255 else {
            throw InputError(.badRate, "noise level must be 0...255 levels (got \(c.noiseLevel))")
        }
        if let lift = c.liftAt, !(lift >= 0 && lift < c.seconds) {
            throw InputError(.badRate, "lift time must be within the clip, 0 s up to its \(c.seconds) s (got \(lift))")
        }
        self.configuration = c
        (fingerImage, roomImage) = Self.baseImages(width: c.width, height: c.height)
    }

    /// The static part of the scene: vignetted skin with the torch hotspot, and the textured room.
    private static func baseImages(width w: Int, height h: Int) -> ([Float], [Float]) {
        var fingerOut = [Float](repeating: 0, count: 3 * w * h)
        var roomOut = [Float](repeating: 0, count: 3 * w * h)
        let diagonal = (Double(w * w + h * h)).squareRoot()
        for y in 0..<h {
            let ny = (Double(y) + 0.5) / Double(h) * 2 - 1
            for x in 0..<w {
                let nx = (Double(x) + 0.5) / Double(w) * 2 - 1
                let r2 = (nx * nx + ny * ny) / 2
                let dx = (Double(x) - hotspot.x * Double(w)) / diagonal
                let dy = (Double(y) - hotspot.y * Double(h)) / diagonal
                let spot = exp(-(dx * dx + dy * dy) / (2 * hotspot.radius * hotspot.radius))
                let f = skin * (1 - vignetting * r2) + hotspot.gain * spot
                let texture = 1 + 0.15 * sin(Double(x) * 0.21) * cos(Double(y) * 0.17)
                let r = room * texture * (1 - 0.3 * r2)
                let i = 3 * (y * w + x)
                for c in 0..<3 {
                    fingerOut[i + c] = Float(f[c])
                    roomOut[i + c] = Float(r[c])
                }
            }
        }
        return (fingerOut, roomOut)
    }

    /// Cardiac phase in beats since t = 0 (integrates the breathing-modulated rate).
    public func cardiacPhase(at t: Double) -> Double {
        let f0 = configuration.bpm / 60
        let w = 2 * Double.pi * Self.breathingHz
        return f0 * (t + Self.rateSwing / w * (1 - cos(w * t)))
    }

    /// Blood-volume waveform, 0...1, at time `t` (seconds): a systolic peak 20 % into each beat and
    /// a smaller dicrotic wave after the notch.
    public func pulse(at t: Double) -> Double {
        let phase = cardiacPhase(at: t)
        let x = phase - phase.rounded(.down)
        func bump(_ centre: Double, _ width: Double) -> Double {
            // Periodic over the beat so the waveform is smooth across beat boundaries.
            var d = x - centre
            d -= d.rounded()
            return exp(-(d * d) / (2 * width * width))
        }
        return min(1, bump(0.20, 0.07) + 0.35 * bump(0.48, 0.07))
    }

    /// Times of the systolic peaks (seconds), for checking a detector against the truth.
    public var beatTimes: [Double] {
        var times: [Double] = []
        var k = 0.0
        while true {
            // Solve cardiacPhase(t) = k + 0.2 by bisection (the phase increases monotonically).
            let target = k + 0.2
            var lo = 0.0, hi = configuration.seconds
            if cardiacPhase(at: hi) < target { break }
            for _ in 0..<60 {
                let mid = (lo + hi) / 2
                if cardiacPhase(at: mid) < target { lo = mid } else { hi = mid }
            }
            times.append((lo + hi) / 2)
            k += 1
        }
        return times
    }

    /// Renders frame `index` (time `index / frameRate`) into `planes`: packed Y, Cb, Cr (I420, full range).
    /// - Precondition: `planes.count` is `Frame.packedByteCount` for this size.
    public func renderFrame(_ index: Int, into planes: UnsafeMutableRawBufferPointer) {
        let w = configuration.width, h = configuration.height
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        precondition(planes.count == w * h + 2 * cw * ch)
        let t = Double(index) / Double(configuration.frameRate)
        let p = pulse(at: t)
        let breathing = 1 + Self.breathingDepth * sin(2 * Double.pi * Self.breathingHz * t)
        let modulation = (1 - Self.pulseDepth * p) * breathing
        var lift = 0.0
        if let liftAt = configuration.liftAt {
            lift = min(1, max(0, (t - liftAt) / Self.liftDuration))
        }
        // Each frame's own stream: the seed and the frame index mixed by one SplitMix64 output (the
        // seed plus index times SplitMix64's increment would start frame i + 1 one draw into frame i's
        // stream: the same noise shifted by a pixel, 99 % correlated from frame to frame).
        var mixer = SplitMix64(seed: configuration.seed ^ (UInt64(index) &* 0xD6E8_FEB8_6659_FD93))
        var rng = NoiseGenerator(seed: mixer.next())
        let sigma = configuration.noiseLevel
        let out = planes.bindMemory(to: UInt8.self)
        let yPlane = out.baseAddress!, cbPlane = yPlane + w * h, crPlane = cbPlane + cw * ch
        let m = (Float(modulation.x), Float(modulation.y), Float(modulation.z))
        let keep = Float(1 - lift), blend = Float(lift)
        // Chroma is averaged over each 2x2 block as rows are produced.
        var cbSum = [Float](repeating: 0, count: cw), crSum = [Float](repeating: 0, count: cw)
        var cCount = [Float](repeating: 0, count: cw)
        fingerImage.withUnsafeBufferPointer { finger in
        roomImage.withUnsafeBufferPointer { room in
        for y in 0..<h {
            for x in 0..<w {
                let i = 3 * (y * w + x)
                var r = finger[i] * m.0, g = finger[i + 1] * m.1, b = finger[i + 2] * m.2
                if lift > 0 {
                    r = r * keep + room[i] * blend
                    g = g * keep + room[i + 1] * blend
                    b = b * keep + room[i + 2] * blend
                }
                // The sensor saturates.
                r = min(255, max(0, r)); g = min(255, max(0, g)); b = min(255, max(0, b))
                let yy = 0.299 * r + 0.587 * g + 0.114 * b
                let cb = 128 + (b - yy) / 1.772
                let cr = 128 + (r - yy) / 1.402
                let noisy = Double(yy) + sigma * rng.gaussian()
                yPlane[y * w + x] = UInt8(min(255, max(0, noisy.rounded())))
                cbSum[x / 2] += cb
                crSum[x / 2] += cr
                cCount[x / 2] += 1
            }
            if y & 1 == 1 || y == h - 1 {
                let cy = y / 2
                for cx in 0..<cw {
                    let cbv = Double(cbSum[cx] / cCount[cx]) + sigma * 0.5 * rng.gaussian()
                    let crv = Double(crSum[cx] / cCount[cx]) + sigma * 0.5 * rng.gaussian()
                    cbPlane[cy * cw + cx] = UInt8(min(255, max(0, cbv.rounded())))
                    crPlane[cy * cw + cx] = UInt8(min(255, max(0, crv.rounded())))
                    cbSum[cx] = 0
                    crSum[cx] = 0
                    cCount[cx] = 0
                }
            }
        }
        }
        }
    }

    /// Writes the whole clip to a Y4M file (full range, `XCOLORRANGE=FULL`).
    /// - Parameters:
    ///   - path: the file to write (replaced if it exists).
    ///   - progress: called with the fraction done (0...1) after each frame.
    /// - Throws: `InputError` when the file cannot be written.
    public func writeY4M(to path: String, progress: ((Double) -> Void)? = nil) throws {
        try Y4MWriter.writeClip(to: path, header: y4mHeader, frames: frameCount, render: { renderFrame($0, into: $1) },
                                progress: progress)
    }
}

/// SplitMix64 with an approximately Gaussian draw: the sum of four 16-bit uniforms (Irwin-Hall),
/// scaled to unit variance. Cheap, deterministic, and plenty for sensor noise.
struct NoiseGenerator {
    private var bits: SplitMix64
    init(seed: UInt64) { bits = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { bits.next() }

    /// Approximately standard normal (mean 0, variance 1, range +-3.46).
    mutating func gaussian() -> Double {
        let r = next()
        let s = (r & 0xFFFF) + ((r >> 16) & 0xFFFF) + ((r >> 32) & 0xFFFF) + (r >> 48)
        // Four uniforms on [0, 1): mean 2, variance 4/12.
        return (Double(s) / 65536 - 2) * 3.0.squareRoot()
    }
}
