import Crypto
import Foundation

/// SHA-256 of a file's bytes, read in 1 MiB chunks so a 2 GB movie costs 1 MiB of memory.
public enum ContentHash {
    public static func ofFile(atPath path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hex(hasher.finalize())
    }

    public static func of(_ text: String) -> String {
        hex(SHA256.hash(data: Data(text.utf8)))
    }

    private static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
