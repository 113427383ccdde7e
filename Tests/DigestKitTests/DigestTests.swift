import DigestKit
import XCTest

/// libcrypto's digests against the published test vectors (FIPS 180-2's for SHA-256, RFC 1321's for MD5).
final class DigestTests: XCTestCase {
    func testSHA256MatchesFIPSVectors() {
        XCTAssertEqual(hex(Digest.sha256(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex(Digest.sha256([UInt8]())), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testMD5MatchesRFC1321Vectors() {
        XCTAssertEqual(hex(Digest.md5(Array("message digest".utf8))), "f96b697d7cb7938d525a2f31aaf161d0")
        XCTAssertEqual(hex(Digest.md5(Data())), "d41d8cd98f00b204e9800998ecf8427e")
    }

    /// A file hashed through a buffer, a chunk at a time, gives the digest of its bytes at once.
    func testChunksGiveTheWholeDigest() {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let hasher = Digest.Hasher(.sha256)
        for start in stride(from: 0, to: bytes.count, by: 4096) {
            bytes[start..<min(start + 4096, bytes.count)].withUnsafeBytes(hasher.update)
        }
        XCTAssertEqual(hasher.finalize(), Digest.sha256(bytes))
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
