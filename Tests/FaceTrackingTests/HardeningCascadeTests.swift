import Testing
@testable import FaceTracking

/// Cascade files with numbers at the edges of Int: each is refused as an invalid cascade naming the
/// problem, never a trap while it is read (as `vitals faces --cascade` and `vitals bench --cascade` load them).
@Suite struct HardeningCascadeTests {
    func failure(_ xml: String) -> FaceTrackingError? {
        do {
            _ = try CascadeClassifier(xml: Array(xml.utf8))
            return nil
        } catch {
            return error
        }
    }

    func haar(replacing target: String, with replacement: String) -> String {
        String(decoding: Fixtures.haar(), as: UTF8.self).replacingOccurrences(of: target, with: replacement)
    }

    func lbp(replacing target: String, with replacement: String) -> String {
        String(decoding: Fixtures.lbpCentre, as: UTF8.self).replacingOccurrences(of: target, with: replacement)
    }

    @Test("a tree link of Int.min is no leaf of the tree (negating it trapped)")
    func linkAtIntMin() {
        let error = failure(haar(replacing: "0 -1 0 0.5", with: "-9223372036854775808 -1 0 0.5"))
        #expect(error?.code == .invalidCascade)
        #expect(error?.message.contains("tree node link -9223372036854775808") == true)
        #expect(failure(haar(replacing: "0 -1 0 0.5", with: "0 -9223372036854775808 0 0.5"))?.code == .invalidCascade)
    }

    @Test("a feature index beyond Int32 is refused (Int32(_:) trapped)")
    func featureIndexBeyondInt32() {
        for index in ["4294967296", "2147483648", "-2147483649", "9223372036854775807", "-9223372036854775808"] {
            let error = failure(haar(replacing: "0 -1 0 0.5", with: "0 -1 \(index) 0.5"))
            #expect(error?.code == .invalidCascade)
            #expect(error?.message.contains("feature \(index)") == true)
        }
        // Within Int32 but past the features, as before.
        #expect(failure(haar(replacing: "0 -1 0 0.5", with: "0 -1 2147483647 0.5"))?.message.contains("holds 1") == true)
    }

    @Test("a Haar rectangle whose corner overflows Int lies outside the window (x + width trapped)")
    func haarRectangleNearIntMax() {
        for rect in ["9223372036854775807 0 1 1 -0.25", "1 0 9223372036854775807 1 -0.25",
                     "0 9223372036854775807 1 1 -0.25", "0 1 1 9223372036854775807 -0.25"] {
            let error = failure(haar(replacing: "0 0 8 8 -0.25", with: rect))
            #expect(error?.code == .invalidCascade)
            #expect(error?.message.contains("lies outside the 8x8 window") == true)
        }
        // The window's own edge is still inside.
        #expect(failure(haar(replacing: "0 0 8 8 -0.25", with: "7 7 1 1 -0.25")) == nil)
    }

    @Test("an LBP block whose grid overflows Int lies outside the window (3 * side trapped)")
    func lbpBlockNearIntMax() {
        for rect in ["0 0 3074457345618258603 2", "0 0 2 3074457345618258603", "9223372036854775807 0 2 2",
                     "0 0 9223372036854775807 2"] {
            let error = failure(lbp(replacing: "<rect>0 0 2 2</rect>", with: "<rect>\(rect)</rect>"))
            #expect(error?.code == .invalidCascade)
            #expect(error?.message.contains("lie outside the 6x6 window") == true)
        }
        // Blocks that just fit, and one pixel too many.
        #expect(failure(lbp(replacing: "<rect>0 0 2 2</rect>", with: "<rect>0 0 2 2</rect>")) == nil)
        #expect(failure(lbp(replacing: "<rect>0 0 2 2</rect>", with: "<rect>1 0 2 2</rect>"))?.code == .invalidCascade)
        #expect(failure(lbp(replacing: "<rect>0 0 2 2</rect>", with: "<rect>0 0 1 1</rect>")) == nil)
    }
}
