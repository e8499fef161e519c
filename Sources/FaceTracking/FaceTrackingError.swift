/// A face-tracking failure: a code a program can switch on and a message a person can act on.
public struct FaceTrackingError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What went wrong.
    public enum Code: String, Sendable {
        /// Image dimensions or pixel count that do not fit together.
        case badImage
        /// Cascade bytes that are not well-formed XML.
        case malformedXML
        /// An OpenCV 1.x cascade (`<haarcascade_frontalface ... type_id="opencv-haar-classifier">`),
        /// which OpenCV itself reads only through its legacy C code; convert it with OpenCV's
        /// `opencv_traincascade` / `CascadeClassifier.convert` to the `<cascade>` format.
        case oldFormatCascade
        /// A well-formed cascade of a kind this detector does not run (HOG features, a stage type
        /// other than BOOST, tilted Haar features).
        case unsupportedCascade
        /// A cascade with a missing element, a number that does not parse, or an index out of range.
        case invalidCascade
        /// Detection parameters out of range (a scale factor not above 1, negative sizes).
        case badParameters
        /// A tracker setting is outside its documented range, or not finite.
        case invalidSetting
        /// An image or view width or height is not a positive finite number.
        case invalidSize
    }

    /// What went wrong, for programs.
    public var code: Code
    /// What went wrong and where, for people (one line).
    public var message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
