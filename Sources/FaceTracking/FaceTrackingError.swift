/// Why a tracker or a preview transform was refused: a code to switch on and a message naming the
/// value at fault.
public struct FaceTrackingError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Code: String, Sendable {
        /// A tracker setting is outside its documented range, or not finite.
        case invalidSetting
        /// An image or view width or height is not a positive finite number.
        case invalidSize
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}
