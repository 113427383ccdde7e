import DigestKit
import Foundation

/// SHA-256 of a file's bytes, read through one 256 KiB buffer so a 2 GB movie costs that much
/// memory (a fresh `Data` a chunk would cost a page fault a page: more system time than the
/// hashing).
public enum ContentHash {
    public static func ofFile(atPath path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(descriptor) }
        let hasher = Digest.Hasher(.sha256)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let got = read(descriptor, buffer.baseAddress!, buffer.count)
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path]) }
            guard got > 0 else { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<got]))
        }
        return hex(hasher.finalize())
    }

    public static func of(bytes: [UInt8]) -> String {
        hex(Digest.sha256(bytes))
    }

    public static func of(_ text: String) -> String {
        hex(Digest.sha256(Data(text.utf8)))
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// Two lower-case hex digits a byte (`String(format:)` a byte costs more than the SHA-256).
    private static func hex(_ digest: some Sequence<UInt8>) -> String {
        String(decoding: digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}
