import Foundation

/// Output paths (relative to the output root) taken in this run or recorded by an earlier one:
/// two inputs mapping to one output (IMG_1.heic and IMG_1.jpg both becoming IMG_1.jpg) is
/// reported, never silently overwritten, even when the first of them is unchanged and not
/// written again.
///
/// A million claims must not hold two million paths in memory: each claim (output and input) is
/// appended to a log file beside the run's spool, and only the output's hash and where its claim
/// is in the log are kept (about 30 bytes a claim). A hash seen again is checked against the log,
/// so two outputs that share a hash are still told apart. Claims the log cannot take (a full
/// disk) are kept in memory instead: never lost, only dearer.
final class OutputClaims: @unchecked Sendable {
    private let lock = NSLock()
    private let log: URL
    private let descriptor: Int32
    private var logLength: off_t = 0
    /// Where each claimed output's claim starts in the log, by the output's hash.
    private var offsets: [Int: off_t] = [:]
    /// Claims not in the log: their output's hash was taken by another output, or the log failed.
    private var inMemory: [String: String] = [:]
    /// The input an earlier run wrote each output for, if that input is still there.
    private let recordedOwners: ([String]) -> [String?]

    init(log: URL, recordedOwners: @escaping ([String]) -> [String?] = { $0.map { _ in nil } }) {
        self.log = log
        // Registered before it exists: an abort between the two would leave it.
        TemporaryFiles.shared.register(log.path)
        descriptor = open(log.path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        self.recordedOwners = recordedOwners
        if descriptor < 0 { TemporaryFiles.shared.unregister(log.path) }
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
            unlink(log.path)
            TemporaryFiles.shared.unregister(log.path)
        }
    }

    /// Claims every one of `outputs` for `input`, or none: returns the first output another
    /// input already holds, and that input. `successorOf` names an input whose recorded outputs
    /// pass to this one (the other file of a RAW+JPEG pair, which this run leaves to it).
    func claim(_ outputs: [String], for input: String, successorOf: String? = nil) -> (output: String, holder: String)? {
        lock.lock()
        defer { lock.unlock() }
        for (output, owner) in zip(outputs, recordedOwners(outputs)) {
            let recorded = owner.flatMap { $0 == input || $0 == successorOf ? nil : $0 }
            if let holder = holder(of: output) ?? recorded { return (output, holder) }
        }
        for output in outputs { record(output, input) }
        return nil
    }

    private func holder(of output: String) -> String? {
        if let holder = inMemory[output] { return holder }
        guard let offset = offsets[output.hashValue] else { return nil }
        // A log that cannot be read back still stops the overwrite.
        guard let (claimed, holder) = readClaim(at: offset) else { return "another input (the claims log cannot be read)" }
        return claimed == output ? holder : nil
    }

    private func record(_ output: String, _ input: String) {
        // Two lengths, then the two paths' bytes.
        let bytes = Array(output.utf8), holder = Array(input.utf8)
        let claim = withUnsafeBytes(of: (UInt32(bytes.count), UInt32(holder.count))) { Array($0) } + bytes + holder
        guard offsets[output.hashValue] == nil, pwrite(descriptor, claim, claim.count, logLength) == claim.count else {
            return inMemory[output] = input
        }
        offsets[output.hashValue] = logLength
        logLength += off_t(claim.count)
    }

    private func readClaim(at offset: off_t) -> (output: String, input: String)? {
        var lengths: (UInt32, UInt32) = (0, 0)
        guard withUnsafeMutableBytes(of: &lengths, { pread(descriptor, $0.baseAddress, $0.count, offset) }) == 8 else { return nil }
        var paths = [UInt8](repeating: 0, count: Int(lengths.0 + lengths.1))
        guard pread(descriptor, &paths, paths.count, offset + 8) == paths.count else { return nil }
        return (String(decoding: paths[..<Int(lengths.0)], as: UTF8.self), String(decoding: paths[Int(lengths.0)...], as: UTF8.self))
    }
}
