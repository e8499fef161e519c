import SignalProcessing
import Testing

@testable import PulseDetection

@Suite struct TileGridTests {
    @Test(arguments: [1, 3])
    func bgraTileMeansEqualAFloat64ReferenceOverEachTile(stride: Int) throws {
        let img = TestImage.bgra(width: 37, height: 23, padding: 12, seed: 41)
        let grid = try TileGrid(columns: 5, rows: 3, stride: stride)
        var means: [ColorSample] = []
        try img.withFrame(.bgra, time: 2.5) { try grid.sample($0, into: &means) }
        #expect(means.count == 15)
        for r in 0..<3 {
            for c in 0..<5 {
                let t = grid.tileRect(column: c, row: r, width: 37, height: 23)
                let (rr, gg, bb) = referenceBGRA(img, t.x, t.y, t.x + t.width, t.y + t.height, stride: stride)
                let m = means[r * 5 + c]
                #expect(abs(m.red - rr) < 1e-9 && abs(m.green - gg) < 1e-9 && abs(m.blue - bb) < 1e-9)
                #expect(m.time == 2.5)
            }
        }
    }

    @Test(arguments: [true, false])
    func yuvTileMeansEqualThePerPixelConversionOverEachTile(biPlanar: Bool) throws {
        // Even size: every tile has even edges, where plane means equal the per-pixel conversion.
        let img = TestImage.yuv420(width: 42, height: 30, padding: 5, biPlanar: biPlanar, seed: 7)
        let encoding = YCbCrEncoding(range: .video, matrix: .bt709)
        let format: PixelFormat = biPlanar ? .yuv420BiPlanar(encoding) : .yuv420Planar(encoding)
        let grid = try TileGrid(columns: 4, rows: 3)
        var means: [ColorSample] = []
        try img.withFrame(format) { try grid.sample($0, into: &means) }
        for r in 0..<3 {
            for c in 0..<4 {
                let t = grid.tileRect(column: c, row: r, width: 42, height: 30, evenEdges: true)
                #expect(t.x % 2 == 0 && t.y % 2 == 0)
                let (rr, gg, bb) = referencePerPixelRGB(
                    img, biPlanar: biPlanar, encoding: encoding, t.x, t.y, t.x + t.width, t.y + t.height, stride: 1)
                let m = means[r * 4 + c]
                #expect(abs(m.red - rr) < 1e-6 && abs(m.green - gg) < 1e-6 && abs(m.blue - bb) < 1e-6)
            }
        }
    }

    @Test(arguments: [1, 2, 4])
    func oddSizedYuvTilesEqualTheFrameSamplerOverTheSameRectangle(stride: Int) throws {
        let img = TestImage.yuv420(width: 41, height: 29, padding: 3, biPlanar: true, seed: 8)
        let format = PixelFormat.yuv420BiPlanar(.videoRange601)
        let grid = try TileGrid(columns: 4, rows: 3, stride: stride)
        var means: [ColorSample] = []
        try img.withFrame(format) { try grid.sample($0, into: &means) }
        for r in 0..<3 {
            for c in 0..<4 {
                let t = grid.tileRect(column: c, row: r, width: 41, height: 29, evenEdges: true)
                let sampler = try FrameSampler(region: .pixels(x: t.x, y: t.y, width: t.width, height: t.height), stride: stride)
                let expected = try img.withFrame(format) { try sampler.sample($0) }
                #expect(means[r * 4 + c] == expected)
            }
        }
    }

    @Test func tilesCoverEveryPixelExactlyOnce() throws {
        let grid = try TileGrid(columns: 7, rows: 5)
        for even in [false, true] {
            var covered = [Int](repeating: 0, count: 45 * 33)
            for r in 0..<5 {
                for c in 0..<7 {
                    let t = grid.tileRect(column: c, row: r, width: 45, height: 33, evenEdges: even)
                    #expect(t.width > 0 && t.height > 0)
                    for y in t.y..<(t.y + t.height) { for x in t.x..<(t.x + t.width) { covered[y * 45 + x] += 1 } }
                }
            }
            #expect(covered.allSatisfy { $0 == 1 })
        }
    }

    @Test func aFrameSmallerThanTheGridAndABadGridAreErrors() throws {
        #expect(throws: FrameError.self) { try TileGrid(columns: 0, rows: 4) }
        #expect(throws: FrameError.self) { try TileGrid(columns: 4, rows: 4, stride: 0) }
        let img = TestImage.yuv420(width: 9, height: 9, padding: 0, biPlanar: true, seed: 1)
        var means: [ColorSample] = []
        #expect(throws: FrameError.self) {
            try img.withFrame(.yuv420BiPlanar(.fullRange601)) { try TileGrid(columns: 5, rows: 2).sample($0, into: &means) }
        }
    }
}
