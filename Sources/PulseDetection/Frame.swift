/// How the luma and chroma of a Y'CbCr frame map to R'G'B'.
public struct YCbCrEncoding: Sendable, Hashable {
    /// The numeric range of the samples.
    public enum Range: Sendable, Hashable {
        /// "Video" (limited, studio, MPEG) range: luma 16...235, chroma 16...240.
        case video
        /// Full (JPEG, PC) range: luma and chroma 0...255.
        case full
    }
    /// The conversion matrix, named by the standard that defines its luma weights.
    public enum Matrix: Sendable, Hashable {
        /// ITU-R BT.601 (Kr = 0.299, Kb = 0.114): standard definition and JPEG.
        case bt601
        /// ITU-R BT.709 (Kr = 0.2126, Kb = 0.0722): high definition.
        case bt709
        /// ITU-R BT.2020 non-constant luminance (Kr = 0.2627, Kb = 0.0593): ultra-high definition and HDR.
        case bt2020
    }
    public var range: Range
    public var matrix: Matrix

    public init(range: Range, matrix: Matrix = .bt601) {
        self.range = range
        self.matrix = matrix
    }

    /// The camera's "video range" output with BT.601 weights (`kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange`).
    public static let videoRange601 = YCbCrEncoding(range: .video, matrix: .bt601)
    /// Full range with BT.601 weights (`kCVPixelFormatType_420YpCbCr8BiPlanarFullRange`, JPEG).
    public static let fullRange601 = YCbCrEncoding(range: .full, matrix: .bt601)

    /// R, G, B (0...255 scale, not clipped) of a colour given as Y', Cb, Cr sample values (0...255 scale).
    ///
    /// The conversion is affine, so the mean colour of many pixels is the conversion of their mean
    /// Y', Cb and Cr. Results are not clipped to 0...255: a saturated torch-lit red may read above 255.
    public func rgb(y: Double, cb: Double, cr: Double) -> (red: Double, green: Double, blue: Double) {
        let (kr, kb): (Double, Double)
        switch matrix {
        case .bt601: (kr, kb) = (0.299, 0.114)
        case .bt709: (kr, kb) = (0.2126, 0.0722)
        case .bt2020: (kr, kb) = (0.2627, 0.0593)
        }
        let kg = 1 - kr - kb
        let luma: Double, pb: Double, pr: Double
        switch range {
        case .video:
            // Video range: luma 16...235 (219 steps) and chroma 16...240 (224 steps) span 0...255.
            luma = (y - 16) * (255.0 / 219.0)
            pb = (cb - 128) * (255.0 / 224.0)
            pr = (cr - 128) * (255.0 / 224.0)
        case .full:
            luma = y
            pb = cb - 128
            pr = cr - 128
        }
        let red = luma + 2 * (1 - kr) * pr
        let blue = luma + 2 * (1 - kb) * pb
        let green = luma - (2 * kb * (1 - kb) / kg) * pb - (2 * kr * (1 - kr) / kg) * pr
        return (red, green, blue)
    }
}

/// The memory layout of a frame's pixels.
public enum PixelFormat: Sendable, Hashable {
    /// One plane, 4 bytes per pixel in the order blue, green, red, alpha (`kCVPixelFormatType_32BGRA`).
    case bgra
    /// Two planes (NV12): full-size luma, then half-width, half-height interleaved Cb, Cr
    /// (`kCVPixelFormatType_420YpCbCr8BiPlanar{Video,Full}Range`).
    case yuv420BiPlanar(YCbCrEncoding)
    /// Three planes (I420, as in Y4M): full-size luma, then half-size Cb, then half-size Cr.
    case yuv420Planar(YCbCrEncoding)

    /// How many planes the format has.
    public var planeCount: Int {
        switch self {
        case .bgra: 1
        case .yuv420BiPlanar: 2
        case .yuv420Planar: 3
        }
    }

    /// Short name for messages and benchmark labels: `bgra`, `nv12`, `i420`.
    public var name: String {
        switch self {
        case .bgra: "bgra"
        case .yuv420BiPlanar: "nv12"
        case .yuv420Planar: "i420"
        }
    }
}

/// One plane of pixel memory: where its first row starts and how many bytes separate rows.
public struct FramePlane {
    public var baseAddress: UnsafeRawPointer
    /// Bytes from the start of one row to the start of the next (at least the row's payload).
    public var bytesPerRow: Int

    public init(baseAddress: UnsafeRawPointer, bytesPerRow: Int) {
        self.baseAddress = baseAddress
        self.bytesPerRow = bytesPerRow
    }
}

/// A problem with a frame's geometry or a sampling request, with a code a caller can switch on.
public struct FrameError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Code: String, Sendable {
        /// Width or height is not positive.
        case invalidSize
        /// A plane's bytes per row is smaller than its row payload.
        case invalidBytesPerRow
        /// The region of interest does not overlap the frame, or is empty.
        case invalidRegion
        /// The sampling stride is not positive.
        case invalidStride
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}

/// A view of one video frame's pixel memory plus its presentation time. Nothing is copied: the
/// memory belongs to the caller (a camera buffer, a decoder's buffer) and must stay valid and
/// unchanged while the frame is used.
///
/// For 4:2:0 formats the chroma planes are `(width + 1) / 2` by `(height + 1) / 2` samples, so odd
/// sizes are allowed.
public struct Frame {
    /// Pixels per row.
    public let width: Int
    /// Rows.
    public let height: Int
    public let format: PixelFormat
    /// Presentation time in seconds (from any fixed origin).
    public var time: Double
    /// Plane 0: BGRA pixels or luma.
    public let plane0: FramePlane
    /// Plane 1: interleaved CbCr (bi-planar) or Cb (planar); unused for BGRA.
    public let plane1: FramePlane
    /// Plane 2: Cr (planar); unused otherwise.
    public let plane2: FramePlane

    /// A BGRA frame.
    /// - Throws: `FrameError` when the size is not positive, `bytesPerRow < 4 * width`, or the frame
    ///   would span more bytes than memory can address (`.invalidSize`).
    public init(bgra baseAddress: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, time: Double) throws {
        try Self.check(width: width, height: height)
        try Self.check(bytesPerRow: bytesPerRow, payload: Self.rowBytes(width, 4, plane: "BGRA"), height: height, plane: "BGRA")
        self.width = width
        self.height = height
        self.format = .bgra
        self.time = time
        let plane = FramePlane(baseAddress: baseAddress, bytesPerRow: bytesPerRow)
        self.plane0 = plane
        self.plane1 = plane
        self.plane2 = plane
    }

    /// A bi-planar 4:2:0 frame (NV12): a luma plane and an interleaved CbCr plane.
    /// - Throws: `FrameError` when the size is not positive, a plane's bytes per row is too small,
    ///   or a plane would span more bytes than memory can address (`.invalidSize`).
    public init(
        yuv420BiPlanar luma: FramePlane, chroma: FramePlane, encoding: YCbCrEncoding,
        width: Int, height: Int, time: Double
    ) throws {
        try Self.check(width: width, height: height)
        try Self.check(bytesPerRow: luma.bytesPerRow, payload: width, height: height, plane: "luma")
        try Self.check(bytesPerRow: chroma.bytesPerRow, payload: Self.rowBytes(Self.half(width), 2, plane: "CbCr"),
                       height: Self.half(height), plane: "CbCr")
        self.width = width
        self.height = height
        self.format = .yuv420BiPlanar(encoding)
        self.time = time
        self.plane0 = luma
        self.plane1 = chroma
        self.plane2 = chroma
    }

    /// A planar 4:2:0 frame (I420): luma, Cb and Cr planes.
    /// - Throws: `FrameError` when the size is not positive, a plane's bytes per row is too small,
    ///   or a plane would span more bytes than memory can address (`.invalidSize`).
    public init(
        yuv420Planar luma: FramePlane, cb: FramePlane, cr: FramePlane, encoding: YCbCrEncoding,
        width: Int, height: Int, time: Double
    ) throws {
        try Self.check(width: width, height: height)
        try Self.check(bytesPerRow: luma.bytesPerRow, payload: width, height: height, plane: "luma")
        try Self.check(bytesPerRow: cb.bytesPerRow, payload: Self.half(width), height: Self.half(height), plane: "Cb")
        try Self.check(bytesPerRow: cr.bytesPerRow, payload: Self.half(width), height: Self.half(height), plane: "Cr")
        self.width = width
        self.height = height
        self.format = .yuv420Planar(encoding)
        self.time = time
        self.plane0 = luma
        self.plane1 = cb
        self.plane2 = cr
    }

    /// Bytes a tightly packed frame of this format and size occupies (rows without padding).
    /// - Precondition: `width` and `height` are ≥ 0 and the count fits an `Int` (Int.max wide
    ///   trapped on overflow without a word).
    public static func packedByteCount(format: PixelFormat, width: Int, height: Int) -> Int {
        precondition(width >= 0 && height >= 0, "packedByteCount: a \(width)x\(height) frame has a negative side")
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        let (chroma, o2) = (width / 2 + width % 2).multipliedReportingOverflow(by: height / 2 + height % 2)
        let (bytes, o3): (Int, Bool)
        switch format {
        case .bgra: (bytes, o3) = pixels.multipliedReportingOverflow(by: 4)
        case .yuv420BiPlanar, .yuv420Planar:
            let (both, o4) = chroma.multipliedReportingOverflow(by: 2)
            let (sum, o5) = pixels.addingReportingOverflow(both)
            (bytes, o3) = (sum, o4 || o5)
        }
        precondition(!(o1 || o2 || o3), "packedByteCount: a \(width)x\(height) frame has more bytes than an Int counts")
        return bytes
    }

    private static func check(width: Int, height: Int) throws {
        guard width > 0, height > 0 else {
            throw FrameError(.invalidSize, "frame size \(width)x\(height) is not positive")
        }
    }

    /// A 4:2:0 chroma plane's samples along a side of `n` luma samples, `(n + 1) / 2` without
    /// overflowing at `Int.max`.
    private static func half(_ n: Int) -> Int { n / 2 + n % 2 }

    /// The bytes of a row of `samples` samples of `size` bytes.
    /// - Throws: `FrameError.invalidSize` when that is more than an `Int` counts.
    private static func rowBytes(_ samples: Int, _ size: Int, plane: String) throws -> Int {
        let (bytes, overflow) = samples.multipliedReportingOverflow(by: size)
        guard !overflow else {
            throw FrameError(.invalidSize, "\(plane) plane: a row of \(samples) samples of \(size) bytes is more than memory can address")
        }
        return bytes
    }

    private static func check(bytesPerRow: Int, payload: Int, height: Int, plane: String) throws {
        guard bytesPerRow >= payload else {
            throw FrameError(
                .invalidBytesPerRow,
                "\(plane) plane: \(bytesPerRow) bytes per row is less than the \(payload) bytes a row holds"
            )
        }
        // The last row ends (height - 1) * bytesPerRow + payload bytes in: a plane whose end is past
        // what an Int counts cannot be in memory (and its row addresses would overflow).
        let (start, overflow) = (height - 1).multipliedReportingOverflow(by: bytesPerRow)
        guard !overflow, start <= Int.max - payload else {
            throw FrameError(
                .invalidSize,
                "\(plane) plane: \(height) rows of \(bytesPerRow) bytes are more than memory can address"
            )
        }
    }
}
