import Foundation

/// A file's bytes in memory, for the rewrites that keep everything of it but what they edit:
/// read straight into the array (no `Data` in between, whose copy costs as much as the read).
enum WholeFile {
    /// - Throws: `MetadataFormatError` when the file cannot be read whole.
    static func bytes(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw MetadataFormatError(message: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw MetadataFormatError(message: "cannot read \(path)") }
        let size = Int(status.st_size)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while count < size {
                let got = read(descriptor, buffer.baseAddress! + count, size - count)
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { failed = true; return }
                count += got
            }
        }
        guard !failed else { throw MetadataFormatError(message: "cannot read \(path) whole") }
        return bytes
    }
}
