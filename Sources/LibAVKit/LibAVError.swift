/// A call into FFmpeg's libraries that failed, or a movie they read that has nothing to show.
public struct LibAVError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        /// A library could not be loaded, or lacks a function.
        case unavailable
        /// A library call returned an error.
        case failed
        /// The movie has no video stream, no decoder for it, or no frame that decodes.
        case noPicture
        /// An encoder or the muxer failed (or is missing) while writing a rendition.
        case encodeFailed
    }

    public let code: Code
    public let operation: String
    public let message: String
    public var description: String { "\(operation): \(message)" }

    init(_ code: Code = .unavailable, operation: String, message: String) {
        self.code = code
        self.operation = operation
        self.message = message
    }
}
