import Testing
@testable import FaceTracking

@Suite struct FaceDetectorTests {
    func rects(_ list: [(Int, Int, Int, Int)]) -> Set<PixelRect> {
        Set(list.map { PixelRect(x: $0.0, y: $0.1, width: $0.2, height: $0.3) })
    }

    @Test func haarStumpFindsTheSquareWhereItFillsTheCentreBlock() throws {
        let cascade = try CascadeClassifier(xml: Fixtures.haar())
        var detector = try FaceDetector(
            cascade: cascade, parameters: .init(minNeighbors: 0, maxSize: PixelSize(width: 8, height: 8)))
        #expect(detector.candidates(in: Fixtures.square(x: 10, y: 8, side: 4)) == [PixelRect(x: 8, y: 6, width: 8, height: 8)])
        #expect(detector.candidates(in: Fixtures.square(x: 22, y: 14, side: 4)) == [PixelRect(x: 20, y: 12, width: 8, height: 8)])
    }

    /// OpenCV 4.14 `detectMultiScale2(image, 1.1, 0)` with the same cascade and image, every scale.
    @Test func haarRawDetectionsAtEveryScaleMatchOpenCV() throws {
        var detector = try FaceDetector(cascade: try CascadeClassifier(xml: Fixtures.haar()), parameters: .init(minNeighbors: 0))
        let found = detector.detect(in: Fixtures.square(x: 22, y: 14, side: 4))
        #expect(Set(found.map(\.rect)) == rects([(20, 12, 8, 8), (20, 11, 9, 9), (19, 11, 11, 11)]))
        #expect(found.allSatisfy { $0.neighbors == 1 })
    }

    @Test func lbpRawDetectionsAtEveryScaleMatchOpenCV() throws {
        var detector = try FaceDetector(cascade: try CascadeClassifier(xml: Fixtures.lbpCentre), parameters: .init(minNeighbors: 0))
        let found = detector.candidates(in: Fixtures.square(x: 10, y: 8, side: 2))
        #expect(found.first == PixelRect(x: 8, y: 6, width: 6, height: 6))
        #expect(Set(found) == rects([
            (8, 6, 6, 6), (6, 3, 10, 10), (7, 4, 11, 11), (4, 2, 13, 13), (6, 2, 13, 13), (4, 4, 13, 13),
            (6, 4, 13, 13), (5, 0, 14, 14), (5, 2, 14, 14), (5, 0, 16, 16), (5, 3, 16, 16), (0, 0, 17, 17),
            (3, 0, 17, 17), (0, 3, 17, 17), (3, 3, 17, 17), (0, 0, 21, 21), (3, 0, 21, 21),
        ]))
        #expect(found.count == 17)
    }

    @Test func anUnreachableStageThresholdRejectsEverything() throws {
        var detector = try FaceDetector(
            cascade: try CascadeClassifier(xml: Fixtures.haar(stageThreshold: "1.5")), parameters: .init(minNeighbors: 0))
        #expect(detector.candidates(in: Fixtures.square(x: 10, y: 8, side: 4)).isEmpty)
    }

    @Test func flatWindowsAreRejectedBeforeTheCascade() throws {
        var detector = try FaceDetector(cascade: try CascadeClassifier(xml: Fixtures.haar()), parameters: .init(minNeighbors: 0))
        let grey = try GrayImage(width: 40, height: 30, pixels: .init(repeating: 90, count: 1200))
        #expect(detector.candidates(in: grey).isEmpty)
    }

    @Test func scalesGrowByTheFactorWithinTheSizeBounds() throws {
        let cascade = try CascadeClassifier(xml: Fixtures.haar())
        let all = try FaceDetector(cascade: cascade).scales(width: 40, height: 30)
        // Windows 8 x 1.1^k rounded, up to the image's 30 rows: k = 0...14 (8 x 1.1^14 = 30.4 rounds to 30).
        #expect(all.first == 1)
        #expect(all.count == 15)
        #expect(zip(all, all.dropFirst()).allSatisfy { abs(Double($1 / $0) - 1.1) < 1e-6 })
        let bounded = try FaceDetector(
            cascade: cascade, parameters: .init(minSize: PixelSize(width: 12, height: 12), maxSize: PixelSize(width: 20, height: 20))
        ).scales(width: 40, height: 30)
        #expect(bounded.map { Int((Float(8) * $0).rounded()) } == [12, 13, 14, 16, 17, 19])
    }

    /// OpenCV 4: when the bounds exclude every scale (no window is 26 pixels: 25 and 28 are), the
    /// scale whose window is nearest the minimum size is searched.
    @Test func boundsBetweenTwoWindowsSearchTheNearestWindow() throws {
        let size = PixelSize(width: 26, height: 26)
        let detector = try FaceDetector(
            cascade: try CascadeClassifier(xml: Fixtures.haar()), parameters: .init(minSize: size, maxSize: size))
        let scales = detector.scales(width: 40, height: 30)
        #expect(scales.count == 1)
        #expect(scales.map { Int((Float(8) * $0).rounded()) } == [25])
    }

    /// Found by fuzzing: a scale factor of 1e20 or more overflowed the window size, and a minimum
    /// size of 3e9 pixels overflowed its squared distance. Both search the one scale that fits.
    @Test func hugeFactorsAndSizesSearchOneScale() throws {
        let cascade = try CascadeClassifier(xml: Fixtures.haar())
        for factor in [1e20, 1e308] {
            #expect(try FaceDetector(cascade: cascade, parameters: .init(scaleFactor: factor)).scales(width: 40, height: 30) == [1])
        }
        let huge = PixelSize(width: 3_037_000_500, height: 3_037_000_500)
        let scales = try FaceDetector(cascade: cascade, parameters: .init(minSize: huge)).scales(width: 40, height: 30)
        #expect(scales.count == 1 && Int((Float(8) * scales[0]).rounded()) == 30)
    }

    @Test func detectingTwiceReusesBuffersAndGivesTheSameAnswer() throws {
        var detector = try FaceDetector(cascade: try CascadeClassifier(xml: Fixtures.lbpCentre), parameters: .init(minNeighbors: 0))
        let image = Fixtures.square(x: 10, y: 8, side: 2)
        let first = detector.detect(in: image)
        _ = detector.detect(in: Fixtures.noise(width: 64, height: 48, seed: 9))
        #expect(detector.detect(in: image) == first)
    }

    @Test func imagesSmallerThanTheWindowGiveNothing() throws {
        var detector = try FaceDetector(cascade: try CascadeClassifier(xml: Fixtures.haar()))
        #expect(detector.detect(in: Fixtures.noise(width: 7, height: 30, seed: 1)).isEmpty)
    }

    @Test(arguments: [
        FaceDetector.Parameters(scaleFactor: 1), .init(scaleFactor: 1.0005), .init(scaleFactor: .nan), .init(scaleFactor: .infinity), .init(minNeighbors: -1),
        .init(minSize: PixelSize(width: -1, height: 0)),
    ])
    func badParametersAreRefused(_ parameters: FaceDetector.Parameters) throws {
        let cascade = try CascadeClassifier(xml: Fixtures.haar())
        #expect(throws: FaceTrackingError.self) { try FaceDetector(cascade: cascade, parameters: parameters) }
    }
}
