import Foundation
import SignalProcessing

/// A synthetic video of a face (or any picture with skin in it) whose skin pulses: for testing the
/// remote pulse end to end (find the face, take its skin, read the rate) without a camera.
///
/// Model (per pixel, R'G'B' on 0...255, then clipped, converted to full-range BT.601 Y'CbCr 4:2:0
/// with sensor noise added to Y', Cb and Cr):
/// `colour = picture(x', y) * light(t) * (1 + skin(x', y) * pulse(t) * signature)`, `x' = x - sway(t)`
/// (the skin moves with the picture):
/// - `skin` is 1 on pixels inside ``Configuration/skinRegion`` that pass Kovač et al.'s daylight
///   skin-colour rule (R > 95, G > 40, B > 20, max - min > 15, |R - G| > 15, R > G, R > B), else 0;
/// - `pulse` is a sine at the heart rate with a second harmonic, and `signature` the blood's change
///   across R, G, B (0.33, 0.77, 0.53, de Haan and van Leest 2014) scaled so green changes by
///   ``Configuration/pulseAmplitude``;
/// - `light` is a brightness flicker (``Configuration/flickerDepth`` at ``Configuration/flickerHz``)
///   that the remote pulse must cancel, and `sway` a sideways head movement of whole pixels.
public struct FaceVideoSimulator: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Heart rate, beats per minute.
        public var bpm: Double = 72
        /// Clip length, seconds, and frames per second.
        public var seconds: Double = 20
        public var frameRate: Int = 30
        /// Change of the skin's green at the pulse's peak, as a fraction (about 0.2-0.5 % on a face).
        public var pulseAmplitude: Double = 0.004
        /// Brightness flicker: depth (fraction) and frequency, Hz (inside the heart-rate band).
        public var flickerDepth: Double = 0.02
        public var flickerHz: Double = 1.9
        /// Sideways sway: amplitude in pixels and frequency, Hz.
        public var swayPixels: Double = 4
        public var swayHz: Double = 0.2
        /// Standard deviation of the sensor noise per pixel, 0...255 levels.
        public var noiseLevel: Double = 2
        /// Where the skin may pulse, pixels (x, y, width, height) of the picture; nil: anywhere.
        public var skinRegion: (x: Int, y: Int, width: Int, height: Int)?
        public var seed: UInt64 = 1
        public init() {}

        public static func == (a: Configuration, b: Configuration) -> Bool {
            a.bpm == b.bpm && a.seconds == b.seconds && a.frameRate == b.frameRate && a.pulseAmplitude == b.pulseAmplitude
                && a.flickerDepth == b.flickerDepth && a.flickerHz == b.flickerHz && a.swayPixels == b.swayPixels
                && a.swayHz == b.swayHz && a.noiseLevel == b.noiseLevel && a.seed == b.seed
                && a.skinRegion.map { [$0.x, $0.y, $0.width, $0.height] } == b.skinRegion.map { [$0.x, $0.y, $0.width, $0.height] }
        }
    }

    public let configuration: Configuration
    public let width: Int
    public let height: Int
    private let picture: [Float]  // R, G, B interleaved
    private let skin: [Bool]
    /// Pixels that pulse, within the frames written (odd sizes lose their last column or row).
    public var skinPixels: Int {
        var n = 0
        for y in 0..<(height & ~1) { for x in 0..<(width & ~1) where skin[y * width + x] { n += 1 } }
        return n
    }

    /// - Parameters:
    ///   - rgb: the picture, 8-bit R, G, B interleaved, rows packed (`width * height * 3` bytes).
    ///   - width: the picture's width, pixels (at least 16); the video's frames are as wide, cut to
    ///     an even number.
    ///   - height: the picture's height, pixels (at least 16); cut to an even number in the video
    ///     likewise.
    ///   - configuration: the heart rate, clip length, frame rate, flicker, sway, noise, skin region
    ///     and seed of the clip.
    /// - Throws: `InputError(.badOption)` for a size that does not match, a rate, length, heart rate,
    ///   amplitude or noise out of range, or a picture without skin-coloured pixels in the region.
    public init(rgb: [UInt8], width: Int, height: Int, configuration: Configuration = .init()) throws {
        let c = configuration
        guard width >= 16, height >= 16, rgb.count == width * height * 3 else {
            throw InputError(.badOption, "face video: the picture must be at least 16x16 with 3 bytes a pixel (\(width)x\(height), \(rgb.count) bytes)")
        }
        // Each setting checked on its own, so the message names the one out of range.
        let checks: [(ok: Bool, problem: String)] = [
            ((1...240).contains(c.frameRate), "the frame rate \(c.frameRate) fps is outside 1-240"),
            (c.seconds.isFinite && c.seconds * Double(c.frameRate) >= 1 && c.seconds <= 3600,
             "the length \(c.seconds) s is outside one frame to an hour"),
            ((20...300).contains(c.bpm), "the heart rate \(c.bpm) bpm is outside 20-300"),
            ((0...0.1).contains(c.pulseAmplitude), "the pulse \(100 * c.pulseAmplitude) % is outside 0-10 %"),
            ((0...0.5).contains(c.flickerDepth), "the flicker \(100 * c.flickerDepth) % is outside 0-50 %"),
            (c.flickerHz.isFinite && c.flickerHz >= 0, "the flicker's frequency \(c.flickerHz) Hz is not 0 or more"),
            (c.swayHz.isFinite && c.swayHz >= 0, "the sway's frequency \(c.swayHz) Hz is not 0 or more"),
            ((0...Double(width / 4)).contains(c.swayPixels),
             "the sway \(c.swayPixels) pixels is outside 0-\(width / 4) (a quarter of the picture's width)"),
            ((0...64).contains(c.noiseLevel), "the noise \(c.noiseLevel) levels is outside 0-64"),
        ]
        if let failed = checks.first(where: { !$0.ok }) { throw InputError(.badOption, "face video: \(failed.problem)") }
        var skin = [Bool](repeating: false, count: width * height)
        let region = c.skinRegion ?? (0, 0, width, height)
        // The region clipped to the picture (its far edges saturate rather than overflow).
        func end(_ start: Int, _ length: Int) -> Int {
            let (sum, overflow) = start.addingReportingOverflow(max(0, length))
            return overflow ? Int.max : sum
        }
        let x0 = min(width, max(0, region.x)), y0 = min(height, max(0, region.y))
        let x1 = max(x0, min(width, end(region.x, region.width))), y1 = max(y0, min(height, end(region.y, region.height)))
        guard x1 > x0, y1 > y0 else {
            throw InputError(.badOption, "face video: the skin region (\(region.x), \(region.y)) \(region.width)x\(region.height) lies outside the \(width)x\(height) picture")
        }
        for y in y0..<y1 {
            for x in x0..<x1 {
                let i = 3 * (y * width + x)
                let (r, g, b) = (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
                skin[y * width + x] = r > 95 && g > 40 && b > 20 && max(r, g, b) - min(r, g, b) > 15
                    && abs(r - g) > 15 && r > g && r > b
            }
        }
        guard skin.contains(true) else {
            throw InputError(.badOption, "face video: no skin-coloured pixel in the picture's skin region")
        }
        self.configuration = c
        self.width = width
        self.height = height
        self.picture = rgb.map(Float.init)
        self.skin = skin
    }

    public var frameCount: Int { Int((configuration.seconds * Double(configuration.frameRate)).rounded(.down)) }

    /// The stream header ``FaceVideoSimulator/writeY4M(to:progress:)`` writes (full range). Odd sizes are cut to even ones.
    public var y4mHeader: Y4MHeader {
        Y4MHeader(width: width & ~1, height: height & ~1, frameRateNumerator: configuration.frameRate, range: .full)
    }

    /// Frame `index` as Y, Cb, Cr planes.
    public func renderFrame(_ index: Int, into planes: UnsafeMutableRawBufferPointer) {
        let c = configuration
        let t = Double(index) / Double(c.frameRate)
        let phase = 2 * Double.pi * c.bpm / 60 * t
        let pulse = c.pulseAmplitude * (sin(phase) + 0.4 * sin(2 * phase - 1)) / 1.4
        let light = Float(1 + c.flickerDepth * sin(2 * Double.pi * c.flickerHz * t))
        let shift = Int((c.swayPixels * sin(2 * Double.pi * c.swayHz * t)).rounded())
        let gain = (Float(1 + pulse * 0.33 / 0.77), Float(1 + pulse), Float(1 + pulse * 0.53 / 0.77))
        var rng = SplitMix64(seed: c.seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
        let w = width & ~1, h = height & ~1, cw = w / 2
        let out = planes.bindMemory(to: UInt8.self)
        let yPlane = out.baseAddress!, cbPlane = yPlane + w * h, crPlane = cbPlane + (w / 2) * (h / 2)
        let sigma = c.noiseLevel
        var cbRow = [Float](repeating: 0, count: cw), crRow = cbRow
        for y in 0..<h {
            for x in 0..<w {
                let sx = min(width - 1, max(0, x - shift))
                let p = y * width + sx, i = 3 * p
                var r = picture[i] * light, g = picture[i + 1] * light, b = picture[i + 2] * light
                if skin[p] { r *= gain.0; g *= gain.1; b *= gain.2 }
                r = min(255, r); g = min(255, g); b = min(255, b)
                let yy = 0.299 * r + 0.587 * g + 0.114 * b
                yPlane[y * w + x] = UInt8(min(255, max(0, (Double(yy) + sigma * rng.gaussian()).rounded())))
                cbRow[x / 2] += (b - yy) / 1.772 / 4
                crRow[x / 2] += (r - yy) / 1.402 / 4
            }
            if y & 1 == 1 {
                for cx in 0..<cw {
                    cbPlane[(y / 2) * cw + cx] = UInt8(min(255, max(0, (128 + Double(cbRow[cx]) + sigma * 0.5 * rng.gaussian()).rounded())))
                    crPlane[(y / 2) * cw + cx] = UInt8(min(255, max(0, (128 + Double(crRow[cx]) + sigma * 0.5 * rng.gaussian()).rounded())))
                    cbRow[cx] = 0
                    crRow[cx] = 0
                }
            }
        }
    }

    /// Writes the whole clip to a Y4M file.
    /// - Throws: `InputError` when the file cannot be written.
    public func writeY4M(to path: String, progress: ((Double) -> Void)? = nil) throws {
        try Y4MWriter.writeClip(to: path, header: y4mHeader, frames: frameCount, render: { renderFrame($0, into: $1) },
                                progress: progress)
    }

    /// A picture for the simulator: a binary PPM read natively, anything else (PNG, JPEG) through
    /// ffmpeg; 8-bit R, G, B interleaved.
    /// - Throws: `InputError` for a missing, unreadable or undecodable picture.
    public static func readPicture(path: String) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        if path.lowercased().hasSuffix(".ppm") { return try PGMImage.decodeRGB(readInputFile(path), name: path) }
        let reader = try FFmpegVideoReader(path: path, options: .init(bgra: true, stillImages: true))
        var picture: (width: Int, height: Int, rgb: [UInt8])?
        try reader.forEachFrame { frame in
            guard picture == nil else { return }
            let plane = frame.plane0
            var rgb = [UInt8](repeating: 0, count: frame.width * frame.height * 3)
            for y in 0..<frame.height {
                let row = plane.baseAddress.advanced(by: y * plane.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                for x in 0..<frame.width {
                    for c in 0..<3 { rgb[3 * (y * frame.width + x) + c] = row[4 * x + 2 - c] }  // BGRA
                }
            }
            picture = (frame.width, frame.height, rgb)
        }
        guard let picture else { throw InputError(.empty, "\(path): no picture decoded") }
        return picture
    }
}
