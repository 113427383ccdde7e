import CZlib

/// zlib streams (RFC 1950), through the system zlib. PNG keeps compressed text (XMP,
/// ImageMagick's and exiftool's raw profiles) in them, and libpng and exiftool read them with
/// zlib: what it refuses, they refuse.
enum Zlib {
    /// What one metadata block may inflate to: well past any real one (an XMP packet with a
    /// preview image is a few MB), well short of what a zip bomb would make.
    static let outputLimit = 16 << 20
    /// Output is inflated this much at a time: a bomb costs the limit and this, never more.
    private static let chunkSize = 64 << 10

    /// The data `stream` holds. Bytes after its checksum are ignored, as zlib ignores them.
    ///
    /// - Throws: `MetadataFormatError` with zlib's message when it refuses the stream (a header
    ///   that is not zlib's or asks for a preset dictionary, data that is not DEFLATE, a checksum
    ///   that differs), when the stream ends early, or when the data would pass `limit` bytes:
    ///   inflating stops there.
    static func decompress(_ stream: [UInt8], limit: Int = outputLimit) throws -> [UInt8] {
        try withStream { z in
            try check(inflateInit_(z, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)), z.pointee)
            defer { inflateEnd(z) }
            var output: [UInt8] = [], chunk = [UInt8](repeating: 0, count: chunkSize)
            return try stream.withUnsafeBufferPointer { input in
                // zlib never writes through `next_in`. Metadata chunks are far below 4 GiB; a
                // longer input would end early, not wrap.
                z.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                z.pointee.avail_in = uInt(clamping: input.count)
                while true {
                    // Room for one byte past the limit at most: if inflate fills it, the data passes.
                    let room = min(chunk.count - 1, limit - output.count) + 1
                    let code = chunk.withUnsafeMutableBufferPointer { buffer in
                        z.pointee.next_out = buffer.baseAddress
                        z.pointee.avail_out = uInt(room)
                        return inflate(z, Z_NO_FLUSH)
                    }
                    try check(code, z.pointee)
                    output += chunk[..<(room - Int(z.pointee.avail_out))]
                    guard output.count <= limit else { throw MetadataFormatError(message: "zlib stream: inflates past \(limit) bytes") }
                    if code == Z_STREAM_END { return output }
                }
            }
        }
    }

    /// A zlib stream of `data`, at zlib's best compression: metadata text is small, so the
    /// slowest level costs little.
    ///
    /// deflate fails only when memory runs out (or libz is older than the zlib.h it was built
    /// with), where Swift's own allocations trap too: so does this, with zlib's message.
    static func compress(_ data: [UInt8]) -> [UInt8] {
        do {
            return try withStream { z in
                try check(deflateInit_(z, Z_BEST_COMPRESSION, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)), z.pointee)
                defer { deflateEnd(z) }
                // deflateBound's room lets one deflate call with Z_FINISH write the whole stream.
                var output = [UInt8](repeating: 0, count: Int(deflateBound(z, uLong(data.count))))
                let code = data.withUnsafeBufferPointer { input in
                    output.withUnsafeMutableBufferPointer { buffer in
                        z.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                        z.pointee.avail_in = uInt(input.count)
                        z.pointee.next_out = buffer.baseAddress
                        z.pointee.avail_out = uInt(buffer.count)
                        return deflate(z, Z_FINISH)
                    }
                }
                try check(code, z.pointee)
                precondition(code == Z_STREAM_END, "deflate wrote more than deflateBound")
                return Array(output[..<Int(z.pointee.total_out)])
            }
        } catch {
            fatalError("\(error)")
        }
    }

    /// A `z_stream` at an address that does not move: zlib's state points back to it and
    /// refuses a call made with a copy.
    private static func withStream<Result>(_ body: (UnsafeMutablePointer<z_stream>) throws -> Result) rethrows -> Result {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        return try body(stream)
    }

    /// zlib's return codes as errors, for every call in this file: `Z_OK` and `Z_STREAM_END` go
    /// on, anything else throws with zlib's message for it.
    private static func check(_ code: Int32, _ stream: z_stream) throws {
        guard code != Z_OK, code != Z_STREAM_END else { return }
        // No progress with all input read: inflate wants more than the stream has. zlib
        // leaves `msg` unset for this, and zError's "buffer error" would not say so.
        if code == Z_BUF_ERROR, stream.avail_in == 0 { throw MetadataFormatError(message: "zlib stream: ends early") }
        let message = stream.msg.map { String(cString: $0) } ?? String(cString: zError(code))
        throw MetadataFormatError(message: "zlib stream: \(message)")
    }
}
