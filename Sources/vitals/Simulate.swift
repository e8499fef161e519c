import ArgumentParser
import Foundation
import VitalsIO

/// `vitals simulate`: synthetic recordings for tests and for anyone without the hardware.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write synthetic recordings.",
        subcommands: [Finger.self])

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
        func checkFreeSpace(for simulator: FingerVideoSimulator) throws {
            guard !Self.isDevice(output) else { return }
            let bytes = Double(simulator.y4mByteCount)
            let folder = URL(fileURLWithPath: output).deletingLastPathComponent().path
            guard let free = (try? FileManager.default.attributesOfFileSystem(forPath: folder))?[.systemFreeSize] as? NSNumber
            else { return }
            if bytes > free.doubleValue {
                throw CLIError(String(format: "%@: the clip needs %.1f GB and %@ has %.1f GB free (shorten --seconds or --size)",
                                      output, bytes / 1e9, folder, free.doubleValue / 1e9))
            }
        }

        func run() throws {
            if URL(fileURLWithPath: output).pathExtension.lowercased() != "y4m" && !Self.isDevice(output) {
                throw ValidationError("the simulator writes Y4M video: name the output .y4m (got \(output))")
            }
            if let truth {
                try checkDistinctFiles(outputs: [("the output video", output), ("--truth \(truth)", truth)], inputs: [])
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
            try checkFreeSpace(for: simulator)
            try CLIError.wrap {
                try simulator.writeY4M(to: output)
                let beats = simulator.beatTimes
                if let truth {
                    let doc: [String: Any] = ["bpm": bpm, "beat_times_s": beats, "lift_at_s": liftAt as Any? ?? NSNull()]
                    try writeFile(JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]), to: truth)
                }
                if json {
                    let doc: [String: Any] = [
                        "output": output, "frames": simulator.frameCount, "width": parts[0], "height": parts[1],
                        "fps": fps, "bpm": bpm, "beats": beats.count,
                    ]
                    let data = try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys])
                    print(String(decoding: data, as: UTF8.self))
                } else {
                    print("wrote \(output): \(simulator.frameCount) frames \(parts[0])x\(parts[1]) at \(fps) fps, \(bpm) bpm, \(beats.count) beats"
                          + (liftAt.map { ", finger lifted at \($0) s" } ?? ""))
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
}
