import Testing
@testable import FaceTracking

@Suite struct CascadeLoadingTests: CascadeEditing {
    @Test func readsAHaarCascade() throws {
        let c = try CascadeClassifier(xml: Fixtures.haar())
        #expect(c.featureType == .haar && c.windowWidth == 8 && c.windowHeight == 8)
        #expect(c.stageCount == 1 && c.treeCount == 1)
        #expect(c.haarFeatures == [.init(rects: [
            .init(x: 2, y: 2, width: 4, height: 4, weight: 1), .init(x: 0, y: 0, width: 8, height: 8, weight: -0.25),
        ])])
        // OpenCV keeps stage thresholds less 1e-5.
        #expect(c.stages[0].threshold == Float(0) - Float(1e-5))
    }

    @Test func readsAnLBPCascade() throws {
        let c = try CascadeClassifier(xml: Fixtures.lbpCentre)
        #expect(c.featureType == .lbp && c.lbpFeatures == [.init(x: 0, y: 0, blockWidth: 2, blockHeight: 2)])
        #expect(c.subsets == [1, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func notXMLIsMalformed() {
        #expect(failure("this is not xml")?.code == .malformedXML)
        #expect(failure("<opencv_storage><cascade>")?.code == .malformedXML)
        #expect(failure("")?.code == .malformedXML)
        #expect(failure(" \n\t")?.message == "cascade is empty")
        #expect(failure("this is not xml")?.message.contains("not well-formed XML") == true)
    }

    @Test("elements nested 100 000 deep are an error, not a stack overflow while the tree is freed")
    func deepNestingIsAnError() {
        let deep = "<?xml version=\"1.0\"?>\n" + String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000)
        let error = failure(deep)
        #expect(error?.code == .malformedXML)
        #expect(error?.message.contains("deeper than 256") == true)
        // A cascade's own depth is far from the limit.
        #expect(failure(String(repeating: "<a>", count: 200) + String(repeating: "</a>", count: 200))?.code == .invalidCascade)
    }

    @Test func anOldFormatCascadeIsNamedAsSuch() {
        let old = """
            <?xml version="1.0"?>
            <opencv_storage>
            <haarcascade_frontalface_alt type_id="opencv-haar-classifier">
              <size>20 20</size>
              <stages><_><trees></trees><stage_threshold>0.8</stage_threshold></_></stages>
            </haarcascade_frontalface_alt>
            </opencv_storage>
            """
        let error = failure(old)
        #expect(error?.code == .oldFormatCascade)
        #expect(error?.message.contains("OpenCV 1.x") == true)
    }

    @Test func otherDocumentsAreNotCascades() {
        #expect(failure("<svg></svg>")?.code == .invalidCascade)
        #expect(failure("<opencv_storage></opencv_storage>")?.code == .invalidCascade)
    }

    @Test func unsupportedKindsAreRefused() {
        #expect(failure(haar(replacing: "<featureType>HAAR", with: "<featureType>HOG"))?.code == .unsupportedCascade)
        #expect(failure(haar(replacing: "<stageType>BOOST", with: "<stageType>GENTLE"))?.code == .unsupportedCascade)
        #expect(failure(haar(replacing: "-0.25</_></rects>", with: "-0.25</_></rects><tilted>1</tilted>"))?.code == .unsupportedCascade)
    }

    @Test func inconsistentCascadesAreInvalidNamingTheProblem() {
        let missing = failure(haar(replacing: "<width>8</width>", with: ""))
        #expect(missing?.code == .invalidCascade)
        #expect(missing?.message.contains("<width>") == true)
        #expect(failure(haar(replacing: "0 -1 0 0.5", with: "0 -1 3 0.5"))?.code == .invalidCascade)  // no feature 3
        #expect(failure(haar(replacing: "0 -1 0 0.5", with: "0 -1 0 x"))?.code == .invalidCascade)
        #expect(failure(haar(replacing: "0 -1 0 0.5", with: "0 -1 0"))?.code == .invalidCascade)
        #expect(failure(haar(replacing: "0 -1 0 0.5", with: "0 1 0 0.5"))?.code == .invalidCascade)  // a loop
        #expect(failure(haar(replacing: "-1. 1.</leafValues>", with: "-1.</leafValues>"))?.code == .invalidCascade)
        #expect(failure(haar(replacing: "0 0 8 8 -0.25", with: "0 0 9 8 -0.25"))?.code == .invalidCascade)  // outside
        #expect(failure(haar(replacing: "<maxCatCount>0", with: "<maxCatCount>256"))?.code == .invalidCascade)
    }
}
