/// A malformed, unsupported or unsafe-to-edit movie file, said in words a run report can show.
public struct MovieFileError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One box (QuickTime "atom") of an ISO base media file, by absolute offsets in the byte space
/// it was read from: the file for top-level boxes, the in-memory `moov` for everything inside.
struct ISOBox: Equatable {
    let type: String
    let start: Int
    let headerSize: Int
    let size: Int

    var payloadStart: Int { start + headerSize }
    var end: Int { start + size }
    var range: Range<Int> { start..<end }

    /// Reads the header whose first bytes (up to 16) are `header`, found at `start` in a
    /// container ending at `limit`. A size that runs past the container throws: trusting it
    /// would make every later offset wrong.
    static func parse(header: [UInt8], at start: Int, limit: Int) throws -> ISOBox {
        guard let compactSize = header.uint32(at: 0), let type = header.fourCC(at: 4) else {
            throw MovieFileError("box header at offset \(start) is cut off")
        }
        let headerSize: Int, size: Int
        switch compactSize {
        case 0: // "extends to the end of the enclosing container"
            (headerSize, size) = (8, limit - start)
        case 1: // a 64-bit size follows the type
            guard let largeSize = header.uint64(at: 8) else {
                throw MovieFileError("'\(type)' box at offset \(start) has a cut-off 64-bit size")
            }
            (headerSize, size) = (16, Int(exactly: largeSize) ?? Int.max)
        default:
            (headerSize, size) = (8, Int(compactSize))
        }
        guard size >= headerSize, size <= limit - start else {
            throw MovieFileError("'\(type)' box at offset \(start) claims \(size) bytes where \(limit - start) remain")
        }
        return ISOBox(type: type, start: start, headerSize: headerSize, size: size)
    }

    /// The boxes packed back to back in `range` of `bytes`. Fewer than 8 bytes left over at the
    /// end are not a box: QuickTime closes some `udta` lists with a 32-bit zero.
    static func boxes(in bytes: [UInt8], _ range: Range<Int>) throws -> [ISOBox] {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else {
            throw MovieFileError("box list \(range) lies outside its \(bytes.count) bytes")
        }
        var boxes: [ISOBox] = []
        var offset = range.lowerBound
        while range.upperBound - offset >= 8 {
            let header = Array(bytes[offset..<min(offset + 16, range.upperBound)])
            let box = try parse(header: header, at: offset, limit: range.upperBound)
            boxes.append(box)
            offset = box.end
        }
        return boxes
    }

    /// The first box of `type` directly inside this one.
    func child(_ type: String, in bytes: [UInt8]) throws -> ISOBox? {
        try ISOBox.boxes(in: bytes, payloadStart..<end).first { $0.type == type }
    }

    /// This box's header, read from `bytes`, followed by `payload`: the size is rewritten, the
    /// type and the header form (32- or 64-bit size) are kept.
    func rebuilt(withPayload payload: [UInt8], from bytes: [UInt8]) -> [UInt8] {
        let size = headerSize + payload.count
        var header = [UInt8](repeating: 0, count: headerSize)
        header[4..<8] = bytes[start + 4..<start + 8]
        if headerSize == 16 {
            header.setUInt32(1, at: 0)
            header.setUInt32(UInt32(truncatingIfNeeded: size >> 32), at: 8)
            header.setUInt32(UInt32(truncatingIfNeeded: size), at: 12)
        } else {
            header.setUInt32(UInt32(size), at: 0)
        }
        return header + payload
    }

    /// A new box with a 32-bit size: `type`, then `payload`.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 4) + [UInt8](fourCC: type)
        header.setUInt32(UInt32(truncatingIfNeeded: 8 + payload.count), at: 0)
        return header + payload
    }
}
