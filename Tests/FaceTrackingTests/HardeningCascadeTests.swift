import Testing
@testable import FaceTracking

/// Cascade files with numbers at the edges of Int: each is refused as an invalid cascade naming the
/// problem, never a trap while it is read (as `vitals faces --cascade` and `vitals bench --cascade` load them).
@Suite struct HardeningCascadeTests: CascadeEditing {
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

    @Test("a comment with a byte that is not UTF-8 is malformed XML, not a trap in Foundation's XMLParser")
    func commentThatIsNotUTF8() {
        let bytes = Array("<?xml version=\"1.0\"?>\n<!-- tree ".utf8) + [0x8E] + Array(" -->\n<opencv_storage></opencv_storage>\n".utf8)
        do {
            _ = try CascadeClassifier(xml: bytes)
            Issue.record("a cascade that is not UTF-8 was read")
        } catch {
            #expect(error.code == .malformedXML)
            #expect(error.message.contains("not UTF-8 text") && error.message.contains("line 2"), "\(error.message)")
        }
        // Such a byte in an element's text is refused the same way (libxml2 said "characterRefAtEOF").
        let text = Array("<opencv_storage>".utf8) + [0xE9, 0x8E] + Array("</opencv_storage>".utf8)
        #expect((try? XMLTree.parse(text)) == nil)
        do { _ = try XMLTree.parse(text) } catch { #expect(error.message.contains("not UTF-8 text")) }
        // A document that declares another encoding is converted by the parser, as before.
        let latin1 = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<opencv_storage><!-- ".utf8) + [0xE9]
            + Array(" --></opencv_storage>".utf8)
        do { _ = try CascadeClassifier(xml: latin1) } catch { #expect(error.message.contains("<opencv_storage> is empty"), "\(error.message)") }
        // Multi-byte UTF-8 anywhere is fine; the line named is the bad byte's.
        #expect((try? XMLTree.parse(Array("<a><!-- é → ✓ --></a>".utf8)))?.name == "a")
        do { _ = try XMLTree.parse(Array("<a>\n\n".utf8) + [0xC3]) } catch { #expect(error.message.contains("on line 3"), "\(error.message)") }
    }

    @Test("a value beyond single precision is refused, not rounded to infinity")
    func valuesBeyondSinglePrecision() {
        for (target, replacement) in [("<stageThreshold>0.", "<stageThreshold>-1e39"), ("-1. 1.</leafValues>", "-1. 3.5e38</leafValues>"),
                                      ("0 -1 0 0.5", "0 -1 0 -1e300"), ("0 0 8 8 -0.25", "0 0 8 8 1e39")] {
            let error = failure(haar(replacing: target, with: replacement))
            #expect(error?.code == .invalidCascade, "\(replacement)")
            #expect(error?.message.contains("is not a finite number") == true, "\(replacement)")
        }
        // The largest single-precision values are read.
        #expect(failure(haar(replacing: "-1. 1.</leafValues>", with: "-3.4e38 3.4e38</leafValues>")) == nil)
    }
}
