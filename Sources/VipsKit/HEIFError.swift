import CHeif
import Foundation

/// A libheif call that failed, or an auxiliary image VipsKit does not hand on, in libheif's own
/// terms: its error code and subcode (`heif_error_code`, `heif_suberror_code`) and its message.
///
/// Unlike libvips, libheif returns the error with the call, so the message is this call's own.
public struct HEIFError: Error, CustomStringConvertible, Sendable {
    public let code: Int
    public let subcode: Int
    public let operation: String
    public let message: String

    /// Something libheif or VipsKit does not decode (a 10-bit or colour auxiliary image): the file
    /// itself may be fine, and a caller drops the part with this reason rather than the item.
    public var isUnsupported: Bool { code == Int(heif_error_Unsupported_feature.rawValue) }

    public var description: String { "\(operation): \(message)" }

    /// VipsKit's own refusal, with the code libheif uses for what it does not support itself.
    static func unsupported(_ subcode: heif_suberror_code, _ operation: String, _ message: String) -> HEIFError {
        HEIFError(code: Int(heif_error_Unsupported_feature.rawValue), subcode: Int(subcode.rawValue), operation: operation, message: message)
    }
}

/// The one choke point where libheif's error structs become Swift errors. The message lives in
/// the context that made it, so it is copied here, before any `defer` frees that context (and
/// some of libheif's end in a newline).
func checkHEIF(_ error: heif_error, _ operation: String) throws {
    guard error.code != heif_error_Ok else { return }
    let message = error.message.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    throw HEIFError(code: Int(error.code.rawValue), subcode: Int(error.subcode.rawValue), operation: operation,
                    message: message.isEmpty ? "failed" : message)
}
