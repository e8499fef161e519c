// swift-tools-version: 6.0
import PackageDescription

// Every target is built in the Swift 6 language mode with strict concurrency (the default for
// tools version 6.0); shared settings live here once.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Vitals",
    platforms: [.macOS(.v13), .iOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Vitals", targets: ["Vitals"]),
        .library(name: "SignalProcessing", targets: ["SignalProcessing"]),
        .library(name: "PulseDetection", targets: ["PulseDetection"]),
        .library(name: "MotionAnalysis", targets: ["MotionAnalysis"]),
        .library(name: "FaceTracking", targets: ["FaceTracking"]),
        .library(name: "VitalsIO", targets: ["VitalsIO"]),
        .library(name: "VitalsStore", targets: ["VitalsStore"]),
        .executable(name: "vitals", targets: ["vitals"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // A small HTTP server (no SwiftNIO) for the dashboard: streamed bodies for Server-Sent Events.
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
    ],
    targets: [
        // Filters, FFT, spectra, peaks, resampling, buffers, statistics. Pure Swift, no I/O.
        .target(name: "SignalProcessing", swiftSettings: swiftSettings),
        // A software prefetch hint (one static inline C function) for FrameSampler's strided reads.
        .target(name: "CPrefetch"),
        // Heart rate from a fingertip (and later a face): stages, HRV, the monitor component.
        .target(name: "PulseDetection", dependencies: ["SignalProcessing", "CPrefetch"], swiftSettings: swiftSettings),
        // Core Motion's model in portable Swift, and the fitness detectors.
        .target(name: "MotionAnalysis", dependencies: ["SignalProcessing"], swiftSettings: swiftSettings),
        // Faces: grayscale images, integral images, OpenCV cascade classifiers (Haar, LBP) and the
        // multi-scale detector; the tracker (stable IDs, smoothing), preview geometry, skin regions,
        // and the face's pulse (through PulseDetection's remote pulse). Pure Swift; the cascade XML
        // is parsed from bytes handed in (no I/O).
        .target(name: "FaceTracking", dependencies: ["SignalProcessing", "PulseDetection"], swiftSettings: swiftSettings),
        // Readers (CSV, Y4M, video through ffmpeg, sensor logs) and writers (JSON, reports).
        .target(
            name: "VitalsIO",
            dependencies: ["SignalProcessing", "PulseDetection", "MotionAnalysis", "FaceTracking"],
            swiftSettings: swiftSettings
        ),
        // Durable sensor history on disk (Core Motion's sensor recorder): an append-only segmented
        // file store that survives a crash and is read back by time.
        .target(name: "VitalsStore", dependencies: ["MotionAnalysis"], swiftSettings: swiftSettings),
        // The live dashboard's portable part: pipeline events to JSON messages, the state a viewer
        // sees (and a late one gets), pacing of recorded input, the hub that hands the messages to
        // every viewer, the page itself (HTML, JavaScript, CSS), and the reading of a request's head
        // within bounds. No sockets: the CLI serves it.
        .target(
            name: "Dashboard",
            dependencies: ["SignalProcessing", "PulseDetection", "VitalsIO"],
            resources: [.copy("Page")],
            swiftSettings: swiftSettings
        ),
        // Thin adapters over AVFoundation / CoreMotion / HealthKit / Vision; empty on Linux.
        .target(
            name: "VitalsApple",
            dependencies: ["PulseDetection", "MotionAnalysis", "FaceTracking"],
            swiftSettings: swiftSettings
        ),
        // The umbrella an app imports: `import Vitals`.
        .target(
            name: "Vitals",
            dependencies: ["SignalProcessing", "PulseDetection", "MotionAnalysis", "FaceTracking", "VitalsStore", "VitalsApple"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "vitals",
            dependencies: [
                "SignalProcessing", "PulseDetection", "MotionAnalysis", "FaceTracking", "VitalsIO", "VitalsStore", "Dashboard",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "FlyingFox", package: "FlyingFox"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "SignalProcessingTests", dependencies: ["SignalProcessing"], swiftSettings: swiftSettings),
        .testTarget(name: "PulseDetectionTests", dependencies: ["PulseDetection"], swiftSettings: swiftSettings),
        .testTarget(name: "MotionAnalysisTests", dependencies: ["MotionAnalysis", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "FaceTrackingTests", dependencies: ["FaceTracking", "PulseDetection", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "VitalsStoreTests", dependencies: ["VitalsStore"], swiftSettings: swiftSettings),
        .testTarget(name: "DashboardTests", dependencies: ["Dashboard", "PulseDetection"], swiftSettings: swiftSettings),
        .testTarget(name: "VitalsIOTests", dependencies: ["VitalsIO", "FaceTracking", "TestSupport"], swiftSettings: swiftSettings),
        // The documentation's code (README, GettingStarted) as an app writes it, through `import Vitals`.
        .testTarget(name: "DocumentationTests", dependencies: ["Vitals", "VitalsIO", "FaceTracking", "TestSupport"], swiftSettings: swiftSettings),
        // The `vitals` program run as a user runs it (the binary `swift test` builds beside the tests).
        .testTarget(name: "vitalsTests", dependencies: ["VitalsIO", "TestSupport"], swiftSettings: swiftSettings),
        // Helpers shared by test targets (not a product).
        .target(name: "TestSupport", dependencies: ["SignalProcessing", "PulseDetection", "MotionAnalysis"], path: "Tests/TestSupport", swiftSettings: swiftSettings),
    ]
)
