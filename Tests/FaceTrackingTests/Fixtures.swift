@testable import FaceTracking

/// Hand-written cascades, small enough to reason about.
enum Fixtures {
    /// One stage, one Haar stump on an 8x8 window: the centre 4x4 block's sum less a quarter of the
    /// window's, divided by the window's spread, must reach 0.5. A 4x4 square of 200 on black fills
    /// the centre block exactly only in the window 2 pixels up and left of it (value 0.67); shifted a
    /// pixel, the value drops to 0.28 or less.
    static let haarSquare = """
        <?xml version="1.0"?>
        <opencv_storage>
        <cascade type_id="opencv-cascade-classifier"><stageType>BOOST</stageType>
          <featureType>HAAR</featureType>
          <height>8</height>
          <width>8</width>
          <stageParams><maxWeakCount>1</maxWeakCount></stageParams>
          <featureParams><maxCatCount>0</maxCatCount></featureParams>
          <stageNum>1</stageNum>
          <stages>
            <_>
              <maxWeakCount>1</maxWeakCount>
              <stageThreshold>STAGE_THRESHOLD</stageThreshold>
              <weakClassifiers>
                <_><internalNodes>0 -1 0 0.5</internalNodes><leafValues>-1. 1.</leafValues></_>
              </weakClassifiers></_>
          </stages>
          <features>
            <_><rects><_>2 2 4 4 1.</_><_>0 0 8 8 -0.25</_></rects></_>
          </features>
        </cascade>
        </opencv_storage>
        """

    static func haar(stageThreshold: String = "0.") -> [UInt8] {
        Array(haarSquare.replacingOccurrences(of: "STAGE_THRESHOLD", with: stageThreshold).utf8)
    }

    /// One stage, one LBP stump on a 6x6 window of 2x2 blocks, accepting only code 0 (every outer
    /// block darker than the centre): a 2x2 bright square is found where it fills the centre block.
    static let lbpCentre = Array("""
        <?xml version="1.0"?>
        <opencv_storage>
        <cascade><stageType>BOOST</stageType>
          <featureType>LBP</featureType>
          <height>6</height>
          <width>6</width>
          <featureParams><maxCatCount>256</maxCatCount><featSize>1</featSize></featureParams>
          <stages>
            <_>
              <stageThreshold>0.</stageThreshold>
              <weakClassifiers>
                <_><internalNodes>0 -1 0 1 0 0 0 0 0 0 0</internalNodes><leafValues>1. -1.</leafValues></_>
              </weakClassifiers></_>
          </stages>
          <features>
            <_><rect>0 0 2 2</rect></_>
          </features>
        </cascade>
        </opencv_storage>
        """.utf8)

    /// A black `width` x `height` image with a `side` x `side` square of 200 at (`x`, `y`).
    static func square(width: Int = 40, height: Int = 30, x: Int, y: Int, side: Int) -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for r in y..<(y + side) { for c in x..<(x + side) { pixels[r * width + c] = 200 } }
        return try! GrayImage(width: width, height: height, pixels: pixels)
    }

    /// A deterministic pseudo-random image (a linear congruential generator).
    static func noise(width: Int, height: Int, seed: UInt64) -> GrayImage {
        var state = seed
        let pixels = (0..<(width * height)).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return try! GrayImage(width: width, height: height, pixels: pixels)
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// Cascade text edited for a test, and what reading it gives.
protocol CascadeEditing {}

extension CascadeEditing {
    /// The error reading `xml` as a cascade gives; nil when it reads.
    func failure(_ xml: String) -> FaceTrackingError? {
        do {
            _ = try CascadeClassifier(xml: Array(xml.utf8))
            return nil
        } catch {
            return error
        }
    }

    /// The Haar fixture with `target` replaced.
    func haar(replacing target: String, with replacement: String) -> String {
        String(decoding: Fixtures.haar(), as: UTF8.self).replacingOccurrences(of: target, with: replacement)
    }

    /// The LBP fixture with `target` replaced.
    func lbp(replacing target: String, with replacement: String) -> String {
        String(decoding: Fixtures.lbpCentre, as: UTF8.self).replacingOccurrences(of: target, with: replacement)
    }
}
