import PulseDetection
import Testing
@testable import FaceTracking

@Suite struct GrayImageTests {
    @Test func aFramesLumaIsTheImageAndBGRAHasNone() throws {
        // 3x2 luma in rows of 4 bytes; the chroma planes are not read.
        let luma: [UInt8] = [1, 2, 3, 99, 4, 5, 6, 99], chroma: [UInt8] = [128, 128, 128, 128]
        var image = GrayImage()
        try luma.withUnsafeBytes { y in
            try chroma.withUnsafeBytes { c in
                let frame = try Frame(yuv420Planar: FramePlane(baseAddress: y.baseAddress!, bytesPerRow: 4),
                                      cb: FramePlane(baseAddress: c.baseAddress!, bytesPerRow: 2),
                                      cr: FramePlane(baseAddress: c.baseAddress!, bytesPerRow: 2),
                                      encoding: YCbCrEncoding(range: .full), width: 3, height: 2, time: 0)
                try image.copyLuma(of: frame)
            }
        }
        #expect(image.width == 3 && image.height == 2 && image.pixels == [1, 2, 3, 4, 5, 6])
        let bgra = [UInt8](repeating: 200, count: 3 * 2 * 4)
        let frame = try bgra.withUnsafeBytes { try Frame(bgra: $0.baseAddress!, width: 3, height: 2, bytesPerRow: 12, time: 0) }
        #expect(throws: FaceTrackingError.self) { try image.copyLuma(of: frame) }
        #expect(image.pixels == [1, 2, 3, 4, 5, 6])  // left as it was
    }

    @Test func copyingAStridedBufferDropsThePadding() throws {
        // 3x2 pixels in rows of 5 bytes (2 bytes of padding, 99).
        let buffer: [UInt8] = [1, 2, 3, 99, 99, 4, 5, 6, 99, 99]
        var image = try buffer.withUnsafeBytes { try GrayImage(baseAddress: $0.baseAddress!, width: 3, height: 2, bytesPerRow: 5) }
        #expect(image.pixels == [1, 2, 3, 4, 5, 6])
        try buffer.withUnsafeBytes { try image.copy(from: $0.baseAddress! + 1, width: 2, height: 2, bytesPerRow: 5) }
        #expect(image.width == 2 && image.pixels == [2, 3, 5, 6])
        #expect(throws: FaceTrackingError.self) {
            try buffer.withUnsafeBytes { try image.copy(from: $0.baseAddress!, width: 6, height: 1, bytesPerRow: 5) }
        }
        #expect(image.pixels == [2, 3, 5, 6])
    }

    @Test func pixelsMustFitTheSize() {
        #expect(throws: FaceTrackingError.self) { try GrayImage(width: 2, height: 2, pixels: [1, 2, 3]) }
        #expect(throws: FaceTrackingError.self) { try GrayImage(width: 0, height: 2, pixels: []) }
    }

    /// Sides whose product, or a buffer whose last row, is past `Int.max` are a `.badImage` error:
    /// they trapped multiplying (Int.max x 2), or allocated Int.max bytes (1 x Int.max rows).
    @Test func sidesTooLargeForMemoryAreABadImage() throws {
        for (w, h) in [(Int.max, 2), (2, Int.max), (1 << 32, 1 << 32)] {
            #expect { try GrayImage(width: w, height: h, pixels: [1, 2, 3, 4]) } throws: { ($0 as? FaceTrackingError)?.code == .badImage }
        }
        let bytes = [UInt8](repeating: 7, count: 64)
        try bytes.withUnsafeBytes { buffer in
            let base = buffer.baseAddress!
            for (w, h, bytesPerRow) in [(1, Int.max, 64), (1 << 62, 2, 1 << 62), (8, 1 << 61, 8), (Int.max, 2, Int.max)] {
                #expect { try GrayImage(baseAddress: base, width: w, height: h, bytesPerRow: bytesPerRow) } throws: {
                    ($0 as? FaceTrackingError)?.code == .badImage
                }
            }
            var image = try GrayImage(baseAddress: base, width: 4, height: 2, bytesPerRow: 8)
            #expect(throws: FaceTrackingError.self) { try image.copy(from: base, width: 1, height: Int.max, bytesPerRow: 64) }
            #expect(image.width == 4 && image.height == 2 && image.pixels == [UInt8](repeating: 7, count: 8))
        }
    }
}
