import CCrypto
import Foundation

/// SHA-256 and MD5 through the system's libcrypto (OpenSSL): the functions Debian's own packages
/// use, so a security update reaches mediabatch without a rebuild. libcrypto's names stay here.
public enum Digest {
    /// A digest computed chunk by chunk (a file through one buffer).
    public final class Hasher {
        private let context: OpaquePointer

        public init(_ algorithm: Algorithm) {
            context = check(EVP_MD_CTX_new())
            check(EVP_DigestInit_ex(context, algorithm.md, nil))
        }

        deinit { EVP_MD_CTX_free(context) }

        public func update(_ bytes: UnsafeRawBufferPointer) {
            check(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count))
        }

        public func finalize() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            check(EVP_DigestFinal_ex(context, &digest, &length))
            return Array(digest.prefix(Int(length)))
        }
    }

    public enum Algorithm {
        case sha256, md5

        fileprivate var md: OpaquePointer {
            switch self {
            case .sha256: return EVP_sha256()
            case .md5: return EVP_md5()
            }
        }
    }

    public static func sha256(_ bytes: some ContiguousBytes) -> [UInt8] { hash(bytes, .sha256) }

    public static func md5(_ bytes: some ContiguousBytes) -> [UInt8] { hash(bytes, .md5) }

    private static func hash(_ bytes: some ContiguousBytes, _ algorithm: Algorithm) -> [UInt8] {
        let hasher = Hasher(algorithm)
        bytes.withUnsafeBytes(hasher.update)
        return hasher.finalize()
    }
}

/// libcrypto's one choke point. Its digests fail only when it cannot allocate, which Swift
/// treats as fatal everywhere else too: a trap with libcrypto's reason, not an error to handle.
@discardableResult
private func check(_ status: Int32) -> Int32 {
    precondition(status == 1, "libcrypto: \(String(cString: ERR_error_string(ERR_get_error(), nil)))")
    return status
}

private func check(_ context: OpaquePointer?) -> OpaquePointer {
    guard let context else { preconditionFailure("libcrypto: cannot allocate a digest context") }
    return context
}
