import ArgumentParser
import FaceTracking
import Foundation
import VitalsIO

/// `vitals faces INPUT`: faces in an image, or in each frame of a video, with an OpenCV cascade.
struct Faces: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find faces in an image or video with an OpenCV cascade (as OpenCV's detectMultiScale).",
        discussion: """
            Images: .pgm (binary, 8-bit) natively; videos: .y4m natively; .png, .jpg and other videos through \
            ffmpeg (their luma plane). \
            Without --cascade, the bundled \(defaultCascade).xml is used.
            """)

    /// The bundled cascade (Resources/), without extension.
    static let defaultCascade = "lbpcascade_frontalface_improved"

    @Argument(help: "Image (.pgm, .png, .jpg, ...) or video file; several are read in turn, one result (one JSON line) each.")
    var inputs: [String]

    @Option(help: "OpenCV cascade XML (Haar or LBP, the <cascade> format of OpenCV 3/4).")
    var cascade: String?

    @Option(name: .customLong("scale-factor"), help: "Ratio between successive search scales (at least 1.001).")
    var scaleFactor = 1.1

    @Option(name: .customLong("min-neighbors"), help: "A face must merge more than this many raw detections (0: every raw detection, ungrouped).")
    var minNeighbors = 3

    @Option(name: .customLong("min-size"), help: "Smallest face searched, pixels (0: the cascade's window).")
    var minSize = 0

    @Option(name: .customLong("max-size"), help: "Largest face searched, pixels (0: no limit).")
    var maxSize = 0

    @Option(name: .customLong("max-frames"), help: "Stop after this many video frames (0: all).")
    var maxFrames = 0

    @Flag(help: "Print one JSON document per input, each on one line.")
    var json = false

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("Missing expected argument '<inputs> ...'") }
        guard scaleFactor >= FaceDetector.minimumScaleFactor, scaleFactor.isFinite else {
            throw ValidationError("--scale-factor must be at least \(FaceDetector.minimumScaleFactor) (got \(scaleFactor))")
        }
        guard minNeighbors >= 0 else { throw ValidationError("--min-neighbors must be 0 or more") }
        guard minSize >= 0, maxSize >= 0, maxFrames >= 0 else { throw ValidationError("--min-size, --max-size and --max-frames must be 0 or more") }
    }

    func run() throws {
        // As OpenCV's detectMultiScale, no size is then searched (not an error: the parity check
        // compares such bounds), but say so rather than print "no faces" alone.
        if maxSize > 0 && minSize > maxSize { warn("--min-size \(minSize) is larger than --max-size \(maxSize): no face size is searched") }
        try CLIError.wrap {
            let (classifier, name) = try Self.loadCascade(cascade)
            let parameters = FaceDetector.Parameters(
                scaleFactor: scaleFactor, minNeighbors: minNeighbors,
                minSize: PixelSize(width: minSize, height: minSize), maxSize: PixelSize(width: maxSize, height: maxSize))
            for input in inputs {
                let result = try FaceDetectionRun.run(
                    input: input, cascade: classifier, cascadeName: name, parameters: parameters,
                    maxFrames: maxFrames == 0 ? nil : maxFrames)
                if let turn = result.displayRotation { warn(rotationWarning(input, degrees: turn)) }
                if json {
                    print(result.json.serialized())
                } else {
                    print("\(input): \(result.width)x\(result.height), \(result.frames.count) frame\(result.frames.count == 1 ? "" : "s"), cascade \(name)")
                    for frame in result.frames {
                        var faces = frame.faces.map { "\($0.rect) neighbors \($0.neighbors)" }
                        if let tracked = frame.tracked, !tracked.isEmpty {
                            faces.append("followed: " + tracked.map { t in
                                let b = t.boundingBox, w = Double(result.width), h = Double(result.height)
                                return String(format: "#%d (%.0f, %.0f) %.0fx%.0f%@", t.id, b.x * w, b.y * h, b.width * w, b.height * h,
                                              t.isCoasting ? " coasting" : "")
                            }.joined(separator: ", "))
                        }
                        let prefix = result.frames.count == 1 ? "" : String(format: "%.3f s: ", frame.time)
                        print(prefix + (faces.isEmpty ? "no faces" : faces.joined(separator: "; ")))
                    }
                }
            }
        }
    }

    /// The cascade in the file at `path`, or the bundled one when nil, and its file name.
    static func loadCascade(_ path: String?) throws -> (CascadeClassifier, String) {
        let bytes: [UInt8]
        let name: String
        if let path {
            // Read as text, so binary data (`/dev/zero`) is refused at its first block instead of
            // after a gigabyte.
            bytes = try CLIError.wrap {
                do {
                    return try readInputFile(path, text: true)
                } catch let error as InputError where error.code == .notText {
                    throw CLIError("\(path): not a text file (binary data, or UTF-16): an OpenCV cascade is UTF-8 XML")
                }
            }
            name = URL(fileURLWithPath: path).lastPathComponent
        } else {
            bytes = try bundledCascade()
            name = defaultCascade + ".xml"
        }
        do {
            return (try CascadeClassifier(xml: bytes), name)
        } catch {
            throw CLIError("\(path ?? name): \(error.message)")
        }
    }

    /// The bytes of the bundled default cascade.
    static func bundledCascade() throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: defaultCascade, withExtension: "xml", subdirectory: "Resources"),
            let data = FileManager.default.contents(atPath: url.path)
        else {
            throw CLIError("the bundled cascade \(defaultCascade).xml is missing from the vitals resources")
        }
        return [UInt8](data)
    }
}
