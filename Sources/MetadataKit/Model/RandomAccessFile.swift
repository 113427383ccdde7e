import Foundation

/// A file read at offsets through a window: walking the small headers of a container's chunks
/// costs a system call per window rather than per header, and large chunks (image data) are
/// skipped unread. Files can be far larger than memory allows; only what is asked for is read.
final class RandomAccessFile {
    private static let windowSize = 64 << 10

    let size: Int
    private let handle: FileHandle
    private var window: [UInt8] = []
    private var windowStart = 0

    /// - Throws: `MetadataFormatError` when the file cannot be opened.
    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw MetadataFormatError(message: "cannot open \(path)") }
        self.handle = handle
        do {
            size = Int(try handle.seekToEnd())
        } catch {
            try? handle.close()
            throw MetadataFormatError(message: "cannot read \(path): \(error.localizedDescription)")
        }
    }

    deinit { try? handle.close() }

    /// `count` bytes from `offset`.
    ///
    /// - Throws: `MetadataFormatError` when they are not all in the file.
    func bytes(at offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0, count <= size - offset else {
            throw MetadataFormatError(message: "file ends inside the \(count) bytes expected at offset \(offset)")
        }
        if offset >= windowStart, offset + count <= windowStart + window.count {
            return Array(window[offset - windowStart..<offset - windowStart + count])
        }
        if count > Self.windowSize { return try read(at: offset, count: count) }
        window = try read(at: offset, count: min(Self.windowSize, size - offset))
        windowStart = offset
        return Array(window[..<count])
    }

    private func read(at offset: Int, count: Int) throws -> [UInt8] {
        do {
            try handle.seek(toOffset: UInt64(offset))
            let data = try handle.read(upToCount: count) ?? Data()
            guard data.count == count else { throw MetadataFormatError(message: "file shrank while it was read") }
            return [UInt8](data)
        } catch let error as MetadataFormatError {
            throw error
        } catch {
            throw MetadataFormatError(message: "cannot read at offset \(offset): \(error.localizedDescription)")
        }
    }
}
