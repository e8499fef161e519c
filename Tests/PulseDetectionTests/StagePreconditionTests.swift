import Testing
@testable import PulseDetection

/// The pipeline's stages, made or fed with values they cannot work with, stop with a message naming
/// the value (they trapped converting NaN or infinity to Int, or indexing, without one). Values
/// reach an exit test's process as text: JSON has no NaN or infinity.
@Suite struct StagePreconditionTests {
    private static func message(_ exit: ExitTest.Result?) -> String {
        exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
    }

    @Test(arguments: ["nan", "inf", "1e300"])
    func aNoiseLevelTimeConstantThatIsNotANumberIsNamed(samples: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [samples] in
            _ = NoiseLevel(samples: Double(samples)!)
        }
        #expect(Self.message(exit).contains("NoiseLevel: samples must be"))
    }

    @Test(arguments: ["nan", "inf", "0", "-30"])
    func aBeatShapeRateOutsideItsRangeIsNamed(rate: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [rate] in
            _ = BeatShape(rate: Double(rate)!)
        }
        #expect(Self.message(exit).contains("BeatShape: rate must be"))
    }

    @Test(arguments: [0, -1, 1_000_000_000])
    func aBeatDetectorMemoryOutsideItsRangeIsNamed(memory: Int) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [memory] in
            var s = BeatDetector.Settings()
            s.strengthMemory = memory
            _ = BeatDetector(rate: 30, settings: s)
        }
        #expect(Self.message(exit).contains("BeatDetector: strengthMemory must be"))
    }

    @Test func sortedWindowsThatDoNotMatchTheWindowsAreNamed() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var tracker = RateTracker(rate: 10, hop: 1)
            let w = (0..<100).map { Double($0 % 7) }
            _ = tracker.update(windows: [w, w], sorted: [w.sorted()], usable: [true, true])
        }
        #expect(Self.message(exit).contains("RateTracker.update: sorted must hold"))
    }

    @Test func aTorchWithoutLevelsIsNamed() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var torch = TorchLevelController()
            torch.levels = []
            _ = torch.initialLevel
        }
        #expect(Self.message(exit).contains("TorchLevelController: levels must hold"))
    }
}

/// A packed frame size past what an Int counts, or a negative side, stops with a message naming the
/// size (Int.max wide trapped on overflow without one).
@Suite struct PackedByteCountPreconditionTests {
    @Test(arguments: [(Int.max, 2, "bgra"), (Int.max, Int.max, "i420"), (-1, 2, "bgra")])
    func anImpossibleSizeIsNamed(width: Int, height: Int, format: String) async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [width, height, format] in
            _ = Frame.packedByteCount(format: format == "bgra" ? .bgra : .yuv420Planar(.fullRange601), width: width, height: height)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("packedByteCount: a \(width)x\(height) frame") == true)
    }

    @Test func sizesThatFitAreCountedAsBefore() {
        #expect(Frame.packedByteCount(format: .bgra, width: 3, height: 5) == 60)
        #expect(Frame.packedByteCount(format: .yuv420Planar(.fullRange601), width: 3, height: 5) == 15 + 2 * 2 * 3)
        #expect(Frame.packedByteCount(format: .yuv420BiPlanar(.videoRange601), width: 0, height: 5) == 0)
        #expect(Frame.packedByteCount(format: .bgra, width: Int.max / 8, height: 2) == Int.max / 8 * 8)
    }
}

/// An event buffer past a million events stops the monitor when made, naming it (Int.max failed to
/// allocate only at the first event).
@Test func aMonitorBufferPastAMillionEventsIsNamed() async {
    let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = HeartRateMonitor(bufferCapacity: Int.max)
    }
    #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("the event buffer needs room for 1...") == true)
}
