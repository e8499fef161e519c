import ArgumentParser
import Foundation
import VitalsIO

/// `vitals simulate`: synthetic recordings for tests and for anyone without the hardware.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write synthetic recordings.",
        subcommands: [Finger.self, Face.self])

    /// `vitals simulate finger --bpm 72 --seconds 20 [--lift-at S] out.y4m`
    struct Finger: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a simulated fingertip-on-camera video (torch-lit, pulsing) as Y4M.")

        @Option(help: "Mean heart rate, beats per minute.")
        var bpm: Double = 72

        @Option(help: "Length in seconds.")
        var seconds: Double = 20

        @Option(name: .customLong("lift-at"), help: "Lift the finger off the lens at this time (seconds).")
        var liftAt: Double?

        @Option(help: "Frames per second.")
        var fps: Int = 30

        @Option(help: "Frame size, WIDTHxHEIGHT.")
        var size: String = "320x240"

        @Option(help: "Seed of the sensor noise.")
        var seed: UInt64 = 1

        @Option(help: "Sensor noise standard deviation, 0-255 levels.")
        var noise: Double = 2

        @Option(help: "Also write the true beat times (seconds) to this JSON file.")
        var truth: String?

        @Flag(help: "Print a JSON summary instead of text.")
        var json = false

        @Argument(help: "Output file (.y4m).")
        var output: String

        /// Refuses a clip larger than the free space where it goes (the options allow terabytes:
        /// 3600 s of 4096x4096 at 480 fps), before anything is written.
        static func checkFreeSpace(_ byteCount: Int, output: String) throws {
            guard !isDevice(output) else { return }
            let bytes = Double(byteCount)
            let folder = URL(fileURLWithPath: output).deletingLastPathComponent().path
            guard let free = (try? FileManager.default.attributesOfFileSystem(forPath: folder))?[.systemFreeSize] as? NSNumber
            else { return }
            if bytes > free.doubleValue {
                throw CLIError(String(format: "%@: the clip needs %.1f GB and %@ has %.1f GB free (shorten --seconds, or lower --fps or the picture size)",
                                      output, bytes / 1e9, folder, free.doubleValue / 1e9))
            }
        }

        func run() throws {
            if URL(fileURLWithPath: output).pathExtension.lowercased() != "y4m" && !Self.isDevice(output) {
                throw ValidationError("the simulator writes Y4M video: name the output .y4m (got \(output))")
            }
            if let truth {
                try checkOutputTarget(truth, what: "--truth \(truth)", inputs: [("the output video", output)])
            }
            if json {
                try refuseStandardOutput(output, option: "OUTPUT", what: "the video")
                if let truth { try refuseStandardOutput(truth, option: "--truth", what: "the beat times") }
            }
            let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { throw ValidationError("--size must look like 320x240 (got \(size))") }
            let simulator: FingerVideoSimulator
            do {
                simulator = try FingerVideoSimulator(.init(
                    bpm: bpm, seconds: seconds, frameRate: fps, width: parts[0], height: parts[1],
                    liftAt: liftAt, seed: seed, noiseLevel: noise))
            } catch let error as InputError {
                throw ValidationError(error.message)
            }
            try Self.checkFreeSpace(simulator.y4mByteCount, output: output)
            try CLIError.wrap {
                // The small truth file first: a target that cannot take it (/dev/full) fails before the video is written.
                let beats = simulator.beatTimes
                if let truth {
                    let doc: [String: Any] = ["bpm": bpm, "beat_times_s": beats, "lift_at_s": liftAt as Any? ?? NSNull()]
                    try writeFile(JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]), to: truth)
                }
                try simulator.writeY4M(to: output)
                if json {
                    let doc: [String: Any] = [
                        "output": output, "frames": simulator.frameCount, "width": parts[0], "height": parts[1],
                        "fps": fps, "bpm": bpm, "beats": beats.count,
                    ]
                    let data = try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys])
                    print(String(decoding: data, as: UTF8.self))
                } else {
                    printSummary("wrote \(output): \(simulator.frameCount) frames \(parts[0])x\(parts[1]) at \(fps) fps, \(bpm) bpm, \(beats.count) beats"
                                 + (liftAt.map { ", finger lifted at \($0) s" } ?? ""), besides: [output, truth])
                }
            }
        }

        /// Whether `path` exists and is not a regular file or folder (`/dev/stdout`, a named pipe):
        /// a stream to write Y4M into, whatever its name.
        static func isDevice(_ path: String) -> Bool {
            var s = stat()
            guard stat(path, &s) == 0 else { return false }
            let type = s.st_mode & S_IFMT
            return type == S_IFCHR || type == S_IFIFO
        }
    }

    /// `vitals simulate face --bpm 72 --seconds 20 [--image PICTURE] out.y4m`
    struct Face: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a simulated video of a face whose skin pulses (under flicker, sway and noise) as Y4M.",
            discussion: """
            The picture's skin-coloured pixels (inside --skin-box, or anywhere) change colour with the pulse in \
            the blood's proportions. Without --image, the bundled astronaut photograph (320x320, its face's skin \
            pulsing) is used. A PPM picture is read natively, PNG or JPEG through ffmpeg.
            """)

        @Option(help: "Heart rate, beats per minute.")
        var bpm: Double = 72

        @Option(help: "Length in seconds.")
        var seconds: Double = 20

        @Option(help: "Frames per second.")
        var fps: Int = 30

        @Option(help: "Change of the skin's green at the pulse's peak, percent.")
        var pulse: Double = 0.4

        @Option(help: "Brightness flicker depth, percent (at 1.9 Hz).")
        var flicker: Double = 2

        @Option(help: "Sideways sway, pixels (at 0.2 Hz).")
        var sway: Double = 4

        @Option(help: "Sensor noise standard deviation, 0-255 levels.")
        var noise: Double = 2

        @Option(help: "Seed of the sensor noise.")
        var seed: UInt64 = 1

        @Option(help: "The picture (PPM, PNG or JPEG); default: the bundled astronaut.")
        var image: String?

        @Option(name: .customLong("skin-box"), help: "Where the skin may pulse, X,Y,WIDTH,HEIGHT in the picture's pixels.")
        var skinBox: String?

        @Argument(help: "Output file (.y4m).")
        var output: String

        func run() throws {
            if URL(fileURLWithPath: output).pathExtension.lowercased() != "y4m" && !Finger.isDevice(output) {
                throw ValidationError("the simulator writes Y4M video: name the output .y4m (got \(output))")
            }
            var configuration = FaceVideoSimulator.Configuration()
            configuration.bpm = bpm
            configuration.seconds = seconds
            configuration.frameRate = fps
            configuration.pulseAmplitude = pulse / 100
            configuration.flickerDepth = flicker / 100
            configuration.swayPixels = sway
            configuration.noiseLevel = noise
            configuration.seed = seed
            if let skinBox {
                let v = skinBox.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard v.count == 4, v[2] > 0, v[3] > 0 else { throw ValidationError("--skin-box must be X,Y,WIDTH,HEIGHT in pixels (got \(skinBox))") }
                configuration.skinRegion = (v[0], v[1], v[2], v[3])
            } else if image == nil {
                configuration.skinRegion = Self.astronautFace
            }
            let picture = try CLIError.wrap { try Self.picture(image) }
            let simulator: FaceVideoSimulator
            do {
                simulator = try FaceVideoSimulator(rgb: picture.rgb, width: picture.width, height: picture.height,
                                                   configuration: configuration)
            } catch let error as InputError {
                throw ValidationError(error.message)
            }
            try checkDistinctFiles(outputs: [("the output video", output)], inputs: image.map { [("--image", $0)] } ?? [])
            try Finger.checkFreeSpace(simulator.y4mHeader.fileByteCount(frames: simulator.frameCount), output: output)
            try CLIError.wrap { try simulator.writeY4M(to: output) }
            printSummary("wrote \(output): \(simulator.frameCount) frames \(simulator.y4mHeader.width)x\(simulator.y4mHeader.height) at \(fps) fps, \(bpm) bpm, \(simulator.skinPixels) skin pixels pulsing",
                         besides: [output])
        }

        /// The face of the bundled 320x320 astronaut, pixels (the photograph's 512-pixel box x 177,
        /// y 66, 95 wide, scaled).
        static let astronautFace = (x: 111, y: 41, width: 59, height: 59)

        /// The picture at `path` (PPM natively, anything else through ffmpeg), or the bundled astronaut.
        static func picture(_ path: String?) throws -> (width: Int, height: Int, rgb: [UInt8]) {
            guard let path else {
                guard let url = Bundle.module.url(forResource: "astronaut-320", withExtension: "ppm", subdirectory: "Resources") else {
                    throw CLIError("the bundled astronaut-320.ppm is missing from the vitals resources")
                }
                return try FaceVideoSimulator.readPicture(path: url.path)
            }
            return try FaceVideoSimulator.readPicture(path: path)
        }
    }
}
