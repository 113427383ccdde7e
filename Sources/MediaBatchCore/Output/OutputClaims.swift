import Foundation

/// Output paths (relative to the output root) taken in this run or recorded by an earlier one:
/// two inputs mapping to one output (IMG_1.heic and IMG_1.jpg both becoming IMG_1.jpg) is
/// reported, never silently overwritten, even when the first of them is unchanged and not
/// written again.
final class OutputClaims: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed: [String: String] = [:]
    /// The input an earlier run wrote this output for, if that input is still there; set once
    /// the run has opened its state database.
    var recordedOwner: (String) -> String? = { _ in nil }

    /// Claims `output` for `input`; returns the input that already holds it, if any.
    func claim(_ output: String, for input: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if let holder = claimed[output] ?? recordedOwner(output).flatMap({ $0 == input ? nil : $0 }) { return holder }
        claimed[output] = input
        return nil
    }
}
