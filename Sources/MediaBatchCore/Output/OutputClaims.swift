import Foundation

/// Output paths (relative to the output root) taken in this run or recorded by an earlier one:
/// two inputs mapping to one output (IMG_1.heic and IMG_1.jpg both becoming IMG_1.jpg) is
/// reported, never silently overwritten, even when the first of them is unchanged and not
/// written again.
final class OutputClaims: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed: [String: String] = [:]
    /// The input an earlier run wrote an output for, if that input is still there.
    private let recordedOwner: (String) -> String?

    init(recordedOwner: @escaping (String) -> String? = { _ in nil }) {
        self.recordedOwner = recordedOwner
    }

    /// Claims every one of `outputs` for `input`, or none: returns the first output another
    /// input already holds, and that input.
    func claim(_ outputs: [String], for input: String) -> (output: String, holder: String)? {
        lock.lock()
        defer { lock.unlock() }
        for output in outputs {
            if let holder = claimed[output] ?? recordedOwner(output).flatMap({ $0 == input ? nil : $0 }) { return (output, holder) }
        }
        for output in outputs { claimed[output] = input }
        return nil
    }
}
