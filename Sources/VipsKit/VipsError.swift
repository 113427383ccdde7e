import CVips

/// A libvips call that failed, with libvips' own explanation.
///
/// libvips keeps one error buffer per process, so under concurrency the text can include lines
/// from other items; the return code is the truth and callers attribute the error to their item.
public struct VipsError: Error, CustomStringConvertible, Sendable {
    /// Which side failed, decided from return codes where the call was made (never from the
    /// message): reading the picture (its header, its pixels, or a conversion of them), or
    /// encoding it.
    public enum Side: Sendable {
        case decode, encode
    }

    public let side: Side
    public let operation: String
    public let message: String

    public var description: String { "\(operation): \(message)" }
}

/// The one choke point where libvips return codes become Swift errors.
@discardableResult
func check(_ returnCode: Int32, _ operation: String, side: VipsError.Side = .decode) throws -> Int32 {
    guard returnCode == 0 else { throw takeError(operation, side) }
    return returnCode
}

/// The pointer-returning variant of `check`: libvips signals failure with NULL.
func check<T>(_ pointer: T?, _ operation: String) throws -> T {
    guard let pointer else { throw takeError(operation, .decode) }
    return pointer
}

private func takeError(_ operation: String, _ side: VipsError.Side) -> VipsError {
    let raw = vips_error_buffer().map { String(cString: $0) } ?? ""
    vips_error_clear()
    // The buffer also collects non-fatal notes ("bad seek" from HEIF sources), errno-less
    // "unix error: Unknown error -1" lines (a failed write's last words, which would push out
    // the line naming its errno) and, under concurrency, other items' lines: keep the newest
    // real errors.
    let lines = raw.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty && !$0.contains("bad seek") && !$0.hasSuffix("Unknown error -1") }
    var distinct: [String] = []
    for line in lines.suffix(3) where !distinct.contains(line) { distinct.append(line) }
    return VipsError(side: side, operation: operation, message: distinct.isEmpty ? "failed" : distinct.joined(separator: "; "))
}
