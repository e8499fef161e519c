import Testing

@testable import PulseDetection

struct FrameTorchControlTests {
    /// A camera whose covered-lens red grows with the torch level (auto-exposure at work).
    func run(redAtFullTorch: Double, covered: Bool = true, frames: Int = 400) -> (level: Float, locked: Bool, actions: [TorchLevelController.Action]) {
        var controller = TorchLevelController()
        var level = controller.initialLevel
        var actions: [TorchLevelController.Action] = []
        for i in 0..<frames {
            let red = min(255, redAtFullTorch * Double(level).squareRoot())
            let sample = covered
                ? ColorSample(time: Double(i) / 30, red: red, green: red / 6, blue: red / 10)
                : ColorSample(time: Double(i) / 30, red: 90, green: 85, blue: 80)
            if let action = controller.process(sample) {
                actions.append(action)
                if case let .setTorchLevel(l) = action { level = l }
            }
        }
        return (level, controller.isLocked, actions)
    }

    @Test func staysAtTheLowestLevelThatLightsTheFingerAndThenLocks() {
        // red = 400 * sqrt(level): 0.05 -> 89, 0.1 -> 126 (>= 100): one step up, then lock.
        let r = run(redAtFullTorch: 400)
        #expect(r.level == 0.1)
        #expect(r.locked)
        #expect(r.actions == [.setTorchLevel(0.1), .lockCamera])
    }

    @Test func aBrightFingerLocksAtTheStartLevel() {
        let r = run(redAtFullTorch: 2000)
        #expect(r.level == 0.05 && r.actions == [.lockCamera])
    }

    @Test func aDarkFingerClimbsToTheTopLevelAndLocksThere() {
        let r = run(redAtFullTorch: 50)
        #expect(r.level == 1.0 && r.locked)
        #expect(r.actions.count == 7)  // six steps up, then lock
    }

    @Test func aTorchThatRefusesTheNextLevelIsLockedAtTheLevelInForce() {
        // A hot phone caps the torch: after the step to 0.2 fails, the controller stops climbing
        // and locks once the light has settled.
        var controller = TorchLevelController()
        let dark = ColorSample(time: 0, red: 50, green: 5, blue: 2)
        var actions: [TorchLevelController.Action] = []
        for _ in 0..<(controller.settleFrames * 6) {
            guard let a = controller.process(dark) else { continue }
            actions.append(a)
            if a == .setTorchLevel(0.2) { controller.limitToCurrentLevel() }
        }
        #expect(actions == [.setTorchLevel(0.1), .setTorchLevel(0.2), .lockCamera])
        #expect(controller.isLocked && controller.levels[controller.levelIndex] == 0.2)
    }

    @Test func withoutAFingerOnTheLensNothingChanges() {
        let r = run(redAtFullTorch: 400, covered: false)
        #expect(r.actions.isEmpty && !r.locked)
    }

    @Test func waitsForExposureToSettleAfterEachChange() {
        var controller = TorchLevelController()
        let dark = ColorSample(time: 0, red: 50, green: 5, blue: 2)
        let actions = (0..<controller.settleFrames * 2).map { _ in controller.process(dark) }
        let indices = actions.indices.filter { actions[$0] != nil }
        #expect(indices == [controller.settleFrames - 1, 2 * controller.settleFrames - 1])
    }
}
