/// Chooses the lowest torch level that lights a fingertip well enough, and says when the camera's
/// automatic exposure, white balance and focus may be locked. A value-type state machine: feed it
/// each frame's mean colour with the torch level in force; it answers with what to change.
///
/// Why: a torch on full for minutes heats the phone and drains the battery, and even the lowest
/// level usually shows a clear pulse (seed 000). The controller starts low and steps up only while
/// a finger covers the lens (red dominates) but the frame is too dark; after each step it waits for
/// the camera's auto-exposure to follow. Once the frame is bright enough, or the torch is at its
/// top level, it asks for exposure, white balance and focus to be locked so automatic adjustments
/// do not masquerade as pulse, and then changes nothing more.
public struct TorchLevelController: Sendable, Equatable {
    /// What the camera should do after a frame.
    public enum Action: Sendable, Equatable {
        /// Set the torch to this level (0...1).
        case setTorchLevel(Float)
        /// Lock exposure, white balance and focus now: the light is settled.
        case lockCamera
    }

    /// Torch levels tried in order (fractions of the maximum), at least one. The first is the start
    /// level.
    public var levels: [Float] = [0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0]
    /// Mean red (0...255) a covered lens must reach to count as well lit: high enough that an
    /// 8-bit pulse of about 1 % spans a few levels.
    public var minimumRed: Double = 100
    /// A covered lens: red at least this many times green and blue (torch light through skin).
    public var redDominance: Double = 2
    /// Frames to wait after a change for auto-exposure to follow (about 0.5 s at 30 fps).
    public var settleFrames: Int = 15

    /// Index into `levels` of the level in force.
    public private(set) var levelIndex = 0
    /// True once the lock was requested; nothing changes after that.
    public private(set) var isLocked = false
    /// Index into `levels` of the highest level the torch can take now, once
    /// ``limitToCurrentLevel()`` said so (nil: the last of `levels`).
    public private(set) var topIndex: Int?
    private var framesSinceChange = 0

    public init() {}

    /// The torch level to switch on with.
    /// - Precondition: `levels` is not empty.
    public var initialLevel: Float {
        precondition(!levels.isEmpty, "TorchLevelController: levels must hold at least one torch level")
        return levels[0]
    }

    /// The torch refused the level last asked for (a hot phone caps it): the level in force is the
    /// top from now on, so the controller locks once the light has settled instead of stepping on.
    public mutating func limitToCurrentLevel() {
        topIndex = levelIndex
    }

    /// Takes one frame's mean colour; returns what to change, if anything.
    /// - Complexity: O(1).
    public mutating func process(_ sample: ColorSample) -> Action? {
        guard !isLocked else { return nil }
        framesSinceChange += 1
        guard framesSinceChange >= settleFrames else { return nil }
        let covered = sample.red >= redDominance * max(sample.green, sample.blue, 1)
        guard covered else { return nil }  // no finger: brightness says nothing about the torch
        if sample.red >= minimumRed || levelIndex >= (topIndex ?? levels.count - 1) {
            isLocked = true
            return .lockCamera
        }
        levelIndex += 1
        framesSinceChange = 0
        return .setTorchLevel(levels[levelIndex])
    }
}
