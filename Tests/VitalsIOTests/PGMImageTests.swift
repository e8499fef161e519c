import FaceTracking
import Testing

@testable import VitalsIO

struct PGMImageTests {
    @Test func readsABinaryPGMWithComments() throws {
        let bytes = Array("P5\n# a comment\n3 2 # width height\n255\n".utf8) + [0, 1, 2, 253, 254, 255]
        let image = try PGMImage.decode(bytes)
        #expect(image.width == 3 && image.height == 2)
        #expect(image.pixels == [0, 1, 2, 253, 254, 255])
    }

    @Test func aSmallerMaximumIsScaledTo255() throws {
        let image = try PGMImage.decode(Array("P5 2 1 15\n".utf8) + [15, 7])
        #expect(image.pixels == [255, 119])
    }

    @Test func encodingThenDecodingGivesTheImage() throws {
        let image = try GrayImage(width: 4, height: 3, pixels: (0..<12).map { UInt8($0 * 20) })
        #expect(try PGMImage.decode(PGMImage.encode(image)) == image)
    }

    @Test(arguments: [
        ("P2\n2 2\n255\n0 0 0 0", InputError.Code.unsupportedFormat),  // ASCII PGM
        ("P5\n2 2\n65535\n", .unsupportedFormat),  // 16-bit
        ("P5\n0 2\n255\n", .unsupportedFormat),
        ("P5\n2 2\n255\nabc", .corrupt),  // 3 of 4 pixels
        ("", .unsupportedFormat),
    ])
    func badFilesAreRefusedWithACode(text: String, code: InputError.Code) {
        #expect {
            try PGMImage.decode(Array(text.utf8), name: "x.pgm")
        } throws: { ($0 as? InputError)?.code == code && ($0 as? InputError)?.message.hasPrefix("x.pgm: ") == true }
    }

    /// Only a 16-bit image is told it is 16-bit (every header error said so, a 0x2 size too).
    @Test func aHeaderErrorNamesWhatIsWrong() {
        for (text, says) in [("P5\n2 2\n65535\n", "a 16-bit PGM (maxval 65535)"),
                             ("P5\n0 2\n255\n", "with positive sides and maxval 1...255")] {
            let error = #expect(throws: InputError.self) { try PGMImage.decode(Array(text.utf8), name: "x.pgm") }
            #expect(error?.message.contains(says) == true && error?.message.contains("16-bit") == (says.contains("16-bit")),
                    "\(String(describing: error))")
        }
    }
}
