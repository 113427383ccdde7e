import Foundation

/// A file of JSON lines read back one line (or byte) at a time through a buffer that grows only
/// to the longest line, so that reading a spool run of any length costs the same memory. JSON
/// text never holds a raw newline: every line is one value.
final class JSONLinesReader {
    private let descriptor: Int32
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity = 1 << 16
    /// The unread bytes are `storage[start..<end]`.
    private var start = 0
    private var end = 0
    private var atEnd = false

    init(_ url: URL) throws {
        descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        storage = .allocate(capacity: capacity)
    }

    deinit {
        close(descriptor)
        storage.deallocate()
    }

    /// The next line without its newline; nil at the end of the file.
    func next() throws -> Data? {
        while true {
            if let newline = memchr(storage + start, 0x0A, end - start) {
                let length = newline.assumingMemoryBound(to: UInt8.self) - (storage + start)
                defer { start += length + 1 }
                return Data(bytes: storage + start, count: length)
            }
            guard !atEnd else { return nil }
            try refill()
        }
    }

    /// The next byte; nil at the end of the file.
    func nextByte() throws -> UInt8? {
        if start == end {
            guard !atEnd else { return nil }
            try refill()
            guard start < end else { return nil }
        }
        defer { start += 1 }
        return storage[start]
    }

    /// Moves the partial line to the front (doubling the buffer if it fills it) and reads on.
    private func refill() throws {
        memmove(storage, storage + start, end - start)
        end -= start
        start = 0
        if end == capacity {
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            larger.update(from: storage, count: end)
            storage.deallocate()
            storage = larger
            capacity *= 2
        }
        let count = read(descriptor, storage + end, capacity - end)
        guard count >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        end += count
        atEnd = count == 0
    }
}

/// A file of JSON lines (or any text) written through a buffer.
final class JSONLinesWriter {
    private let handle: FileHandle
    private var buffer = Data()

    init(_ url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: url)
    }

    func append(line: Data) throws {
        try write(line)
        try write(Data([0x0A]))
    }

    /// Bytes as they are, without a newline.
    func write(_ bytes: Data) throws {
        buffer.append(bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Writes what is buffered and closes the file.
    func close() throws {
        try flush()
        try handle.close()
    }

    private func flush() throws {
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
