import FaceTracking
import Foundation

/// Binary PGM images (`P5`, 8-bit): the grayscale format face crops and test images come in; and
/// binary PPM (`P6`) colour images.
public enum PGMImage {
    /// The image in the PGM file at `path`.
    /// - Throws: `InputError`: `.fileNotFound`, `.unreadable`, `.unsupportedFormat` (not a binary
    ///   8-bit PGM), `.corrupt` (fewer pixels than the header states).
    public static func read(path: String) throws -> GrayImage {
        try decode(readInputFile(path), name: path)
    }

    /// The image in `bytes`, a binary PGM: `P5`, width, height and maximum value (1...255) separated
    /// by whitespace and `#` comments, one whitespace byte, then the pixels row by row. Values are
    /// scaled to 0...255 when the maximum is below 255.
    /// - Throws: `InputError` `.unsupportedFormat` or `.corrupt`, naming `name`.
    public static func decode(_ bytes: [UInt8], name: String = "image") throws -> GrayImage {
        let pixels = try samples(bytes, magic: "P5", channels: 1, name: name)
        return try GrayImage(width: pixels.width, height: pixels.height, pixels: pixels.values)
    }

    /// The colour image in `bytes`, a binary PPM (`P6`, 8-bit; header as for ``decode(_:name:)``):
    /// R, G, B interleaved, rows packed.
    /// - Throws: `InputError` `.unsupportedFormat` or `.corrupt`, naming `name`.
    public static func decodeRGB(_ bytes: [UInt8], name: String = "image") throws -> (width: Int, height: Int, rgb: [UInt8]) {
        let pixels = try samples(bytes, magic: "P6", channels: 3, name: name)
        return (pixels.width, pixels.height, pixels.values)
    }

    /// The header and samples of a binary PGM (`P5`, one channel) or PPM (`P6`, three), scaled to 0...255.
    private static func samples(_ bytes: [UInt8], magic: String, channels: Int, name: String) throws
        -> (width: Int, height: Int, values: [UInt8]) {
        let kind = channels == 1 ? "PGM" : "PPM"
        var i = 0
        func skipSpaceAndComments() {
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "#") {
                    while i < bytes.count && bytes[i] != UInt8(ascii: "\n") { i += 1 }
                } else if [9, 10, 13, 32].contains(bytes[i]) {
                    i += 1
                } else {
                    return
                }
            }
        }
        func number() -> Int? {
            skipSpaceAndComments()
            var value = 0, digits = 0
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                // Nine digits at most: a longer number is no image size (it was read as two).
                guard digits < 9 else { return nil }
                value = value * 10 + Int(bytes[i] - UInt8(ascii: "0"))
                i += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), bytes[1] == Array(magic.utf8)[1] else {
            throw InputError(.unsupportedFormat, "\(name): not a binary \(kind) image (it does not start with \(magic))")
        }
        i = 2
        let width = number(), height = number(), maxValue = number()
        if let maxValue, maxValue > 255, maxValue < 65_536 {
            throw InputError(.unsupportedFormat, "\(name): a 16-bit \(kind) (maxval \(maxValue)): only 8-bit ones (maxval 1...255) are read")
        }
        guard let width, let height, let maxValue,
            width > 0, height > 0, (1...255).contains(maxValue), i < bytes.count, [9, 10, 13, 32].contains(bytes[i])
        else {
            throw InputError(.unsupportedFormat, "\(name): the \(kind) header is not '\(magic) width height maxval' with positive sides and maxval 1...255")
        }
        i += 1
        let (count, overflow) = width.multipliedReportingOverflow(by: height * channels)
        guard !overflow, bytes.count - i >= count else {
            throw InputError(.corrupt, "\(name): the \(kind) holds \(bytes.count - i) of its \(width)x\(height)\(channels == 1 ? "" : "x3") = \(count) samples")
        }
        var values = Array(bytes[i..<(i + count)])
        if maxValue < 255 {
            for k in values.indices { values[k] = UInt8(min(255, (Int(values[k]) * 255 + maxValue / 2) / maxValue)) }
        }
        return (width, height, values)
    }

    /// `image` as a binary PGM file's bytes.
    public static func encode(_ image: GrayImage) -> [UInt8] {
        Array("P5\n\(image.width) \(image.height)\n255\n".utf8) + image.pixels
    }
}

extension FaceTrackingError {
    /// This error as an `InputError` (for the command line's one-line messages).
    public var inputError: InputError {
        InputError(code == .badParameters ? .badOption : .unsupportedFormat, message)
    }
}
