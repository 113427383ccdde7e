/// A libavformat call that failed.
public struct AVFormatError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let message: String
    public var description: String { "\(operation): \(message)" }
}

/// The one choke point where libavformat return codes become Swift errors.
func check(_ returnCode: Int32, _ operation: String, _ library: LibAVFormat) throws {
    guard returnCode < 0 else { return }
    var buffer = [CChar](repeating: 0, count: 256)
    _ = library.strerror(returnCode, &buffer, buffer.count)
    throw AVFormatError(operation: operation, message: String(cString: buffer))
}
