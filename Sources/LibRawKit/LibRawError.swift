import CLibRaw

/// A LibRaw call that failed: its return code as a case, and LibRaw's own words for it.
public struct LibRawError: Error, CustomStringConvertible, Sendable {
    /// LibRaw's `LibRaw_errors`, by value.
    public enum Code: Int32, Sendable {
        case unspecified = -1
        case fileUnsupported = -2
        case requestForNonexistentImage = -3
        case outOfOrderCall = -4
        case noThumbnail = -5
        case unsupportedThumbnail = -6
        case inputClosed = -7
        case notImplemented = -8
        case insufficientMemory = -100007
        case dataError = -100008
        case ioError = -100009
        case cancelledByCallback = -100010
        case badCrop = -100011
        case tooBig = -100012
        case mempoolOverflow = -100013
        /// A return code this list does not know (a newer LibRaw's); `errno` values are positive.
        case other = 0
    }

    public let code: Code
    public let operation: String
    public let message: String

    public var description: String { "\(operation): \(message)" }
}

/// The one choke point where LibRaw's return codes become Swift errors.
func check(_ returnCode: Int32, _ operation: String) throws {
    guard returnCode != LIBRAW_SUCCESS.rawValue else { return }
    let message = returnCode > 0 ? String(cString: strerror(returnCode)) : String(cString: libraw_strerror(returnCode))
    throw LibRawError(code: LibRawError.Code(rawValue: returnCode) ?? .other, operation: operation, message: message)
}
