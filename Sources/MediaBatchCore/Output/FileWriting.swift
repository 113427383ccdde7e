import Foundation

/// Writes an output's file at the temporary path `AtomicFile` gives it: from bytes in memory
/// (no `Data` copy in between), or as a copy of the input made by the kernel (sendfile(2): the
/// bytes never come up into this process). Failures are the system's (`POSIXError`), so a
/// report can say "No space left on device"; a full volume is `OutputVolumeFull`, with the
/// bytes the file needed.
enum FileWriting {
    static func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = try create(path)
        defer { close(descriptor) }
        try bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let wrote = Glibc.write(descriptor, buffer.baseAddress! + done, buffer.count - done)
                if wrote < 0 && errno == EINTR { continue }
                guard wrote > 0 else { throw Self.error(needing: buffer.count) }
                done += wrote
            }
        }
    }

    static func copy(_ source: String, to path: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Self.error() }
        defer { close(input) }
        var status = stat()
        guard fstat(input, &status) == 0 else { throw Self.error() }
        let output = try create(path)
        defer { close(output) }
        var offset = 0, size = Int(status.st_size)
        while offset < size {
            let sent = sendfile(output, input, &offset, size - offset)
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw sent == 0 ? POSIXError(.EIO) : Self.error(needing: size) }
        }
    }

    private static func create(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw error() }
        return descriptor
    }

    private static func error() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }

    private static func error(needing bytes: Int) -> Error {
        errno == ENOSPC || errno == EDQUOT ? OutputVolumeFull(neededBytes: bytes) : error()
    }
}

/// The output volume had no room (ENOSPC, or a quota's EDQUOT) for a file of `neededBytes`.
struct OutputVolumeFull: Error {
    let neededBytes: Int
}
