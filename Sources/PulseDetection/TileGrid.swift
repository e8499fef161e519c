/// Mean colour of every tile of a `columns` x `rows` grid laid over a frame, full or strided: the
/// per-region view of a fingertip frame (which parts are clipped, which carry the pulse).
///
/// Tile `(column, row)` covers the pixels `[x(column), x(column + 1)) x [y(row), y(row + 1))` with
/// `x(i) = i * width / columns` (and likewise for y), so the tiles cover the frame exactly once.
/// For 4:2:0 frames the edges are rounded down to even coordinates so that every tile covers whole
/// chroma samples and no chroma sample is counted by two tiles.
///
/// Each tile's mean is ``FrameSampler``'s exact mean over that tile (same kernels, same stride
/// semantics: every `stride`-th row and column from the tile's top-left pixel), so a tile mean equals
/// a float64 reference up to the final division. Nothing is allocated per frame once the output
/// array has `count` elements.
///
/// - Complexity: O(pixels / stride²) arithmetic per frame plus O(tiles) setup; memory traffic is the
///   rows read, as for ``FrameSampler``.
public struct TileGrid: Sendable, Hashable {
    /// Tiles across and down.
    public let columns: Int
    public let rows: Int
    /// Read every `stride`-th row and column of each tile (1 = every pixel).
    public let stride: Int

    /// - Throws: `FrameError.invalidRegion` when `columns` or `rows` is below 1,
    ///   `FrameError.invalidStride` when `stride < 1`.
    public init(columns: Int, rows: Int, stride: Int = 1) throws {
        guard columns >= 1, rows >= 1 else {
            throw FrameError(.invalidRegion, "a tile grid needs at least 1 column and 1 row (got \(columns)x\(rows))")
        }
        _ = try FrameSampler(stride: stride)
        self.columns = columns
        self.rows = rows
        self.stride = stride
    }

    /// Number of tiles, `columns * rows`.
    public var count: Int { columns * rows }

    /// The pixel rectangle of tile `(column, row)` in a frame of `width` x `height` pixels, as
    /// `(x, y, width, height)`; `evenEdges` rounds the edges down to even coordinates (4:2:0).
    public func tileRect(column: Int, row: Int, width: Int, height: Int, evenEdges: Bool = false)
        -> (x: Int, y: Int, width: Int, height: Int)
    {
        func edge(_ i: Int, _ n: Int, _ size: Int) -> Int {
            if i >= n { return size }
            let e = i * size / n
            return evenEdges ? e & ~1 : e
        }
        let x0 = edge(column, columns, width), x1 = edge(column + 1, columns, width)
        let y0 = edge(row, rows, height), y1 = edge(row + 1, rows, height)
        return (x0, y0, x1 - x0, y1 - y0)
    }

    /// Writes the mean colour of every tile of `frame` into `means`, row by row (tile `(c, r)` at
    /// index `r * columns + c`), each stamped with the frame's time. `means` is resized to `count`
    /// if it has another size (the only allocation; reuse the array from frame to frame).
    /// - Throws: `FrameError.invalidRegion` when the frame is too small for the grid (fewer pixels
    ///   than tiles across or down; twice that for 4:2:0 frames, whose tiles have even edges).
    public func sample(_ frame: Frame, into means: inout [ColorSample]) throws {
        let even: Bool
        switch frame.format {
        case .bgra: even = false
        case .yuv420BiPlanar, .yuv420Planar: even = true
        }
        let unit = even ? 2 : 1
        guard frame.width >= unit * columns, frame.height >= unit * rows else {
            throw FrameError(
                .invalidRegion,
                "a \(frame.width)x\(frame.height) frame is too small for a \(columns)x\(rows) tile grid")
        }
        if means.count != count {
            means = Array(repeating: ColorSample(time: 0, red: 0, green: 0, blue: 0), count: count)
        }
        var sampler = try FrameSampler(stride: stride)
        for r in 0..<rows {
            for c in 0..<columns {
                let t = tileRect(column: c, row: r, width: frame.width, height: frame.height, evenEdges: even)
                sampler.region = .pixels(x: t.x, y: t.y, width: t.width, height: t.height)
                means[r * columns + c] = try sampler.sample(frame)
            }
        }
    }
}
