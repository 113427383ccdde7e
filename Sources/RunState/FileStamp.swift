import Foundation

/// A file's size and modification time (nanoseconds): the cheap first test of "has it changed?".
/// Only when the stamp differs is the content hashed, so `touch` alone redoes nothing.
public struct FileStamp: Equatable, Sendable {
    public let size: Int64
    public let modifiedNanoseconds: Int64

    public init(size: Int64, modifiedNanoseconds: Int64) {
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    /// nil when the file cannot be stat'ed (vanished, unreadable folder).
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int64(info.st_size)
        modifiedNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}
