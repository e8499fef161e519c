import Testing
@testable import PulseDetection

@Suite struct ColorSampleTests {
    @Test(arguments: [
        (255.0, 0.0, 0.0, 0.0), (0, 255, 0, 120), (0, 0, 255, 240), (255, 255, 0, 60), (255, 0, 128, 329.882352941),
    ])
    func hueMatchesTheHSVDefinition(r: Double, g: Double, b: Double, hue: Double) {
        let c = ColorSample(time: 0, red: r, green: g, blue: b)
        #expect(abs(c.hue - hue) < 1e-6)
    }

    @Test func greyHasNoHueOrSaturation() {
        let c = ColorSample(time: 0, red: 80, green: 80, blue: 80)
        #expect(c.hue == 0)
        #expect(c.saturation == 0)
        #expect(abs(c.value - 80.0 / 255) < 1e-12)
    }
}

@Test func signedHueIsContinuousWhereAFingertipsGreenAndBlueCross() {
    // Red-dominant, green and blue crossing: hue jumps 359 -> 0, the signed hue moves smoothly.
    let below = ColorSample(time: 0, red: 200, green: 40, blue: 40.5)
    let above = ColorSample(time: 0, red: 200, green: 40.5, blue: 40)
    #expect(below.hue > 359 && above.hue < 1)
    #expect(abs(above.signedHue - below.signedHue) < 0.5)
    #expect(below.signedHue < 0 && above.signedHue > 0)
    #expect(ColorSample(time: 0, red: 10, green: 200, blue: 10).signedHue == 120)
    #expect(ColorSample(time: 0, red: 10, green: 10, blue: 200).signedHue == -120)
}
