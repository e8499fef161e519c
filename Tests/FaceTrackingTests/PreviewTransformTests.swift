import FaceTracking
import SignalProcessing
import Testing

@Suite struct PreviewTransformTests {
    /// x 0.1...0.4, y 0.2...0.6: asymmetric on both axes, so every turn and flip moves it somewhere else.
    static let rect = NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4)

    static func expectClose(_ a: ViewRect, _ b: ViewRect, tolerance: Double = 1e-9,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance && abs(a.width - b.width) <= tolerance
                && abs(a.height - b.height) <= tolerance, "\(a) != \(b)", sourceLocation: sourceLocation)
    }

    @Test("each quarter turn and the mirror put the rectangle where it was worked out by hand",
          arguments: [
              // A 400×300 buffer shown 1:1 (turned buffers in a 300×400 view).
              (PreviewTransform.Rotation.none, false, ViewRect(x: 40, y: 60, width: 120, height: 120)),
              (.clockwise90, false, ViewRect(x: 120, y: 40, width: 120, height: 120)),     // u = 1 - y, v = x
              (.upsideDown, false, ViewRect(x: 240, y: 120, width: 120, height: 120)),     // u = 1 - x, v = 1 - y
              (.clockwise270, false, ViewRect(x: 60, y: 240, width: 120, height: 120)),    // u = y, v = 1 - x
              (.none, true, ViewRect(x: 240, y: 60, width: 120, height: 120)),             // u = 1 - x
              (.clockwise90, true, ViewRect(x: 60, y: 40, width: 120, height: 120)),       // u = y, v = x
          ])
    func rotationAndMirroring(rotation: PreviewTransform.Rotation, mirrored: Bool, expected: ViewRect) throws {
        let quarter = rotation == .clockwise90 || rotation == .clockwise270
        let t = try PreviewTransform(imageWidth: 400, imageHeight: 300, rotation: rotation,
                                     viewWidth: quarter ? 300 : 400, viewHeight: quarter ? 400 : 300,
                                     gravity: .resize, mirrored: mirrored)
        Self.expectClose(t.viewRect(for: Self.rect), expected)
    }

    @Test("a 90° clockwise turn takes the buffer's top-left corner to the view's top-right")
    func quarterTurnMovesCorners() throws {
        let t = try PreviewTransform(imageWidth: 400, imageHeight: 300, rotation: .clockwise90,
                                     viewWidth: 300, viewHeight: 400, gravity: .resize)
        let p = t.viewPoint(x: 0, y: 0)
        #expect(p.x == 300 && p.y == 0)
    }

    @Test("each gravity fits a 400×300 image into a 200×200 view as AVLayerVideoGravity does",
          arguments: [
              // Stretched: x by 0.5, y by 2/3.
              (PreviewTransform.Gravity.resize, ViewRect(x: 20, y: 40, width: 60, height: 80)),
              // Fitted: scale 0.5, 200×150 centred, 25-point bars above and below.
              (.resizeAspect, ViewRect(x: 20, y: 55, width: 60, height: 60)),
              // Filled: scale 2/3, 266.7×200, 33.3 points cropped left and right.
              (.resizeAspectFill, ViewRect(x: -20.0 / 3, y: 40, width: 80, height: 80)),
          ])
    func gravity(gravity: PreviewTransform.Gravity, expected: ViewRect) throws {
        let t = try PreviewTransform(imageWidth: 400, imageHeight: 300, viewWidth: 200, viewHeight: 200, gravity: gravity)
        Self.expectClose(t.viewRect(for: Self.rect), expected)
    }

    @Test("aspect fill shows the middle of the image on the cropped axis")
    func visibleRectUnderAspectFill() throws {
        let fill = try PreviewTransform(imageWidth: 400, imageHeight: 300, viewWidth: 200, viewHeight: 200)
        let v = fill.visibleImageRect
        #expect(abs(v.x - 0.125) < 1e-12 && v.y == 0 && abs(v.width - 0.75) < 1e-12 && v.height == 1)
        let fit = try PreviewTransform(imageWidth: 400, imageHeight: 300, viewWidth: 200, viewHeight: 200, gravity: .resizeAspect)
        #expect(fit.visibleImageRect == NormalizedRect(x: 0, y: 0, width: 1, height: 1))
    }

    @Test("a phone's front camera: 1920×1080 buffer, turned, mirrored, filling a 390×844 view")
    func portraitFrontCamera() throws {
        let t = try PreviewTransform(imageWidth: 1920, imageHeight: 1080, rotation: .clockwise90,
                                     viewWidth: 390, viewHeight: 844, gravity: .resizeAspectFill, mirrored: true)
        // Upright 1080×1920 scaled by 844/1920 = 0.4396 to 474.75×844: 42.375 points cropped each side.
        #expect(abs(t.scaledWidth - 474.75) < 1e-9 && t.scaledHeight == 844 && abs(t.originX + 42.375) < 1e-9)
        let centre = t.viewPoint(x: 0.5, y: 0.5)
        #expect(abs(centre.x - 195) < 1e-9 && abs(centre.y - 422) < 1e-9)
        // The buffer's top-left corner: turned to the top-right, mirrored to the top-left.
        let corner = t.viewPoint(x: 0, y: 0)
        #expect(abs(corner.x + 42.375) < 1e-9 && corner.y == 0)
    }

    @Test("view → image undoes image → view to 1e-9, for every gravity, turn and mirror")
    func inverseIsExact() throws {
        var g = SplitMix64(seed: 11)
        for gravity in PreviewTransform.Gravity.allCases {
            for rotation in PreviewTransform.Rotation.allCases {
                for mirrored in [false, true] {
                    let t = try PreviewTransform(imageWidth: 1280, imageHeight: 720, rotation: rotation,
                                                 viewWidth: 390, viewHeight: 844, gravity: gravity, mirrored: mirrored)
                    for _ in 0..<50 {
                        let r = NormalizedRect(x: g.uniform() * 1.2 - 0.1, y: g.uniform() * 1.2 - 0.1,
                                               width: g.uniform() * 0.5, height: g.uniform() * 0.5)
                        let back = t.normalizedRect(for: t.viewRect(for: r))
                        #expect(abs(back.x - r.x) < 1e-9 && abs(back.y - r.y) < 1e-9
                                && abs(back.width - r.width) < 1e-9 && abs(back.height - r.height) < 1e-9)
                        let v = ViewRect(x: g.uniform() * 390, y: g.uniform() * 844, width: g.uniform() * 100, height: g.uniform() * 100)
                        Self.expectClose(t.viewRect(for: t.normalizedRect(for: v)), v)
                    }
                }
            }
        }
    }

    @Test("an empty or non-finite size is refused with .invalidSize")
    func invalidSizesAreRefused() {
        for (w, h) in [(0.0, 300.0), (400, -1), (.nan, 300), (400, .infinity)] {
            #expect(throws: FaceTrackingError.self) {
                try PreviewTransform(imageWidth: w, imageHeight: h, viewWidth: 100, viewHeight: 100)
            }
            #expect(throws: FaceTrackingError.self) {
                try PreviewTransform(imageWidth: 100, imageHeight: 100, viewWidth: w, viewHeight: h)
            }
        }
        let error = #expect(throws: FaceTrackingError.self) {
            try PreviewTransform(imageWidth: 0, imageHeight: 1, viewWidth: 1, viewHeight: 1)
        }
        #expect(error?.code == .invalidSize && error?.message.contains("image width") == true)
    }
}

@Suite struct FaceGeometryTests {
    @Test("Vision's bottom-left-origin box becomes the same box with the origin at the top-left")
    func visionBoxConversion() {
        let r = NormalizedRect(bottomLeftOriginX: 0.1, y: 0.2, width: 0.3, height: 0.4)
        #expect(r.x == 0.1 && abs(r.y - 0.4) < 1e-15 && r.width == 0.3 && r.height == 0.4)
        let s = NormalizedRect(x: 0.1, y: 0.25, width: 0.3, height: 0.5)
        #expect(s.flippedVertically.flippedVertically == s)
        #expect(s.flippedVertically == NormalizedRect(x: 0.1, y: 0.25, width: 0.3, height: 0.5))  // centred vertically
    }

    @Test("intersection over union against hand-worked overlaps")
    func intersectionOverUnion() {
        let a = NormalizedRect(x: 0, y: 0, width: 0.2, height: 0.2)
        #expect(abs(a.intersectionOverUnion(NormalizedRect(x: 0.1, y: 0, width: 0.2, height: 0.2)) - 1.0 / 3) < 1e-12)
        #expect(abs(a.intersectionOverUnion(NormalizedRect(x: 0.1, y: 0.1, width: 0.2, height: 0.2)) - 1.0 / 7) < 1e-12)
        #expect(a.intersectionOverUnion(a) == 1)
        #expect(a.intersectionOverUnion(NormalizedRect(x: 0.2, y: 0, width: 0.2, height: 0.2)) == 0)  // touching
    }

    @Test("skin regions sit inside the face box where the layout puts them, mirrored left and right")
    func skinRegions() {
        let face = NormalizedRect(x: 0.2, y: 0.1, width: 0.4, height: 0.5)
        let r = SkinRegions(face: face)
        func close(_ a: NormalizedRect, _ b: NormalizedRect) -> Bool {
            abs(a.x - b.x) < 1e-12 && abs(a.y - b.y) < 1e-12 && abs(a.width - b.width) < 1e-12 && abs(a.height - b.height) < 1e-12
        }
        #expect(close(r.forehead, NormalizedRect(x: 0.3, y: 0.12, width: 0.2, height: 0.08)))
        #expect(close(r.leftCheek, NormalizedRect(x: 0.248, y: 0.35, width: 0.088, height: 0.11)))
        #expect(close(r.rightCheek, NormalizedRect(x: 0.464, y: 0.35, width: 0.088, height: 0.11)))
        #expect(abs((r.leftCheek.midX + r.rightCheek.midX) / 2 - face.midX) < 1e-12)
        for region in [r.forehead, r.leftCheek, r.rightCheek] {
            #expect(region.intersectionOverUnion(face) > 0 && region.minX >= face.minX && region.maxX <= face.maxX
                    && region.minY >= face.minY && region.maxY <= face.maxY)
        }
        #expect(r.forehead.intersectionOverUnion(r.leftCheek) == 0 && r.leftCheek.intersectionOverUnion(r.rightCheek) == 0)
    }
}
