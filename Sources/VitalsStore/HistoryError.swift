/// Why an ``AccelerometerHistory`` could not open, take samples or read them: a code a caller can
/// switch on and a message naming the file or the sample.
public struct HistoryError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// The folder cannot be made, listed or written (a missing parent, a file in its place, no permission).
        case folder
        /// A segment file in the folder is not one this version wrote (another program's file under
        /// the history's name pattern, a damaged header, or a copy whose times overlap another segment's).
        case foreignFile
        /// A sample's time or acceleration is not a finite number (or the time is beyond ``AccelerometerHistory/maximumTime``).
        case invalidSample
        /// A sample's time is not after the last one recorded (the history only grows forward in time).
        case timeNotIncreasing
        /// Another history (in this program or another) holds the folder's writer lock: it is appending.
        case inUse
        /// Reading or writing a segment failed (a full disk, a file removed underneath).
        case io
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
