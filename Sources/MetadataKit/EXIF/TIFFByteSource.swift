import Foundation

/// The bytes of a TIFF structure, read where asked: a block in memory, or a file through a
/// `FileHandle` (TIFFs run to gigabytes; only directories and the values asked for are read).
protocol TIFFByteSource {
    var size: Int { get }
    /// `count` bytes at `offset`, or nil when they are not all there.
    func bytes(at offset: Int, count: Int) -> [UInt8]?
}

extension Array: TIFFByteSource where Element == UInt8 {
    var size: Int { count }

    func bytes(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= self.count - count else { return nil }
        return Array(self[offset..<offset + count])
    }
}

struct TIFFFileSource: TIFFByteSource {
    let handle: FileHandle
    let size: Int

    func bytes(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= size - count else { return nil }
        return try? handle.readBytes(at: offset, count: count)
    }
}
