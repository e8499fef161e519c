import Testing
@testable import FaceTracking

@Suite struct BilinearResizeTests {
    @Test func sameSizeIsACopy() {
        let image = Fixtures.noise(width: 9, height: 7, seed: 5)
        #expect(image.resized(width: 9, height: 7) == image)
    }

    @Test func halvingAveragesEachTwoByTwoBlockRoundingHalvesUp() {
        let image = Fixtures.noise(width: 16, height: 10, seed: 6)
        let half = image.resized(width: 8, height: 5)
        for y in 0..<5 {
            for x in 0..<8 {
                let s = Int(image[2 * x, 2 * y]) + Int(image[2 * x + 1, 2 * y]) + Int(image[2 * x, 2 * y + 1]) + Int(image[2 * x + 1, 2 * y + 1])
                #expect(Int(half[x, y]) == (s + 2) >> 2)
            }
        }
    }

    @Test func aConstantImageStaysConstant() {
        let image = try! GrayImage(width: 13, height: 11, pixels: .init(repeating: 173, count: 143))
        #expect(image.resized(width: 7, height: 4).pixels.allSatisfy { $0 == 173 })
    }

    /// OpenCV 4.14 `cv2.resize(np.arange(10, dtype=np.uint8).reshape(1, 10) * 25, (7, 1),
    /// interpolation=cv2.INTER_LINEAR_EXACT)`.
    @Test func rampMatchesOpenCVLinearExact() {
        let ramp = try! GrayImage(width: 10, height: 1, pixels: (0..<10).map { UInt8($0 * 25) })
        #expect(ramp.resized(width: 7, height: 1).pixels == [5, 41, 77, 113, 148, 184, 220])
    }

    @Test func tapsFollowPixelCentres() {
        // 10 -> 7: destination 0 samples 0.5 * 10/7 - 0.5 = 0.214: columns 0 and 1, 55/256 of column 1.
        let t = ResizeBuffers.taps(0, source: 10, destination: 7)
        #expect(t.0 == 0 && t.1 == 1 && t.3 == 55 && t.2 == 201)
        // Enlarging 2 -> 4: before the first centre and past the last, the edge pixel alone.
        let first = ResizeBuffers.taps(0, source: 2, destination: 4)
        #expect(first.0 == 0 && first.1 == 0 && first.2 == 256 && first.3 == 0)
        let last = ResizeBuffers.taps(3, source: 2, destination: 4)
        #expect(last.0 == 1 && last.1 == 1 && last.2 == 256 && last.3 == 0)
    }
}

/// Resizing an empty image (``GrayImage/init()``'s scratch) or to more pixels than an Int counts
/// stops with a message saying so (they trapped reading an empty buffer, or on overflow, without
/// one).
@Suite struct ResizePreconditionTests {
    @Test func resizingAnEmptyImageIsNamed() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = GrayImage().resized(width: 4, height: 4)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("resize of an empty 0x0 image") == true)
    }

    @Test func resizingToMorePixelsThanAnIntCountsIsNamed() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try! GrayImage(width: 2, height: 2, pixels: [1, 2, 3, 4]).resized(width: Int.max, height: 4)
        }
        #expect(exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("more pixels than an Int counts") == true)
    }
}
