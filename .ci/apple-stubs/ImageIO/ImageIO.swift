// Stand-in declarations for type-checking Sources/VitalsApple on Linux (see ../README.md): the
// symbols the adapters use, approximating the signatures in Apple's documentation. Not the framework.
public enum CGImagePropertyOrientation: UInt32, Sendable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left
}
