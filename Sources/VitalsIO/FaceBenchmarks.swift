import FaceTracking
import Foundation

/// Face detection speed: `FaceDetector.detect(in:)` (FaceTracking) with default parameters (scale factor 1.1,
/// 3 neighbours) on one 640x480 frame, per frame.
///
/// The frame: the bundled 512x512 grayscale astronaut photograph (one frontal face), its first 480
/// rows, widened to 640 by repeating its first and last columns 64 times (numpy's
/// `np.pad(image[:480], ((0, 0), (64, 64)), mode="edge")`, which `bench/check_face_detector.py`
/// times OpenCV on). The figure is the fastest round's CPU time of the running thread.
public enum FaceBenchmarks {
    /// The benchmarks' names, in the order they run.
    public static let names = ["face-detect-640x480"]

    /// Runs the benchmark when its name contains `filter` (always when nil).
    /// - Parameters:
    ///   - filter: a part of the benchmark's name that selects it (nil: run it).
    ///   - rounds: how many times the frame is searched (at least once); the fastest round is reported.
    ///   - astronaut: the 512x512 photograph.
    ///   - cascade: the cascade to run.
    /// - Throws: `InputError.badOption` when `cascade` finds no face in the frame (see
    ///   ``findsAFace(astronaut:cascade:)``).
    public static func run(filter: String? = nil, rounds: Int = 7, astronaut: GrayImage, cascade: CascadeClassifier) throws -> [BenchmarkResult] {
        guard names.contains(where: { filter == nil || $0.contains(filter!) }) else { return [] }
        let frame = benchmarkFrame(astronaut)
        var detector = try! FaceDetector(cascade: cascade)  // default parameters: valid
        var best = Double.infinity
        var faces = 0
        for _ in 0..<max(1, rounds) {
            let start = StepBenchmarks.threadCPUNanoseconds()
            faces = detector.detect(in: frame).count
            best = min(best, StepBenchmarks.threadCPUNanoseconds() - start)
        }
        // A cascade of the caller's (`vitals bench --cascade`) may find none: that is an error, not a
        // trap (a precondition stopped the program here).
        guard faces >= 1 else { throw noFace }
        return [BenchmarkResult(name: names[0], nsPerOp: best)]
    }

    /// Whether `cascade` finds a face in the benchmark frame made of `astronaut` (one search with
    /// default parameters): the figure times a detection only when it does. A profile-face or eye
    /// cascade may not.
    public static func findsAFace(astronaut: GrayImage, cascade: CascadeClassifier) -> Bool {
        var detector = try! FaceDetector(cascade: cascade)  // default parameters: valid
        return !detector.detect(in: benchmarkFrame(astronaut)).isEmpty
    }

    /// The error for a cascade that finds no face in the benchmark frame.
    public static var noFace: InputError {
        InputError(.badOption, "\(names[0]): the cascade finds no face in the benchmark frame (the bundled astronaut photograph), so it would not time a detection; give a frontal-face cascade")
    }

    /// The 640x480 frame described above.
    public static func benchmarkFrame(_ image: GrayImage) -> GrayImage {
        let rows = min(480, image.height), pad = 64
        var pixels: [UInt8] = []
        pixels.reserveCapacity(640 * 480)
        for y in 0..<480 {
            let row = min(y, rows - 1)
            let line = image.pixels[(row * image.width)..<((row + 1) * image.width)]
            pixels += repeatElement(line.first!, count: pad)
            pixels += line.prefix(640 - 2 * pad)
            pixels += repeatElement(line.last!, count: 640 - pad - min(image.width, 640 - 2 * pad))
        }
        return try! GrayImage(width: 640, height: 480, pixels: pixels)
    }
}
