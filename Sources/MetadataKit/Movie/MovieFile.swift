import Foundation

/// A movie file's top-level layout and its `moov` box in memory. `moov` is kilobytes to a few
/// megabytes while `mdat` can be gigabytes, so media data is never read.
struct MovieFile {
    /// Where `moov` sits in the file.
    let moovBox: ISOBox
    /// The `moov` box's bytes, header included; offsets inside are relative to `moovBox.start`.
    let moov: [UInt8]
    /// Why the file's location cannot be removed by rewriting `moov` alone (fragments, metadata
    /// outside `moov`); nil when it can. Readers ignore it.
    let editingRefusal: MovieFileError?

    /// Far above any real `moov` (hours of video index in tens of megabytes); a larger claim is
    /// a lying header, refused before allocating for it.
    static let largestMoov = 256 << 20
    /// Identifies an XMP packet stored in a top-level `uuid` box (Adobe's convention for MP4).
    static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]

    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MovieFileError("cannot open \(path)")
        }
        defer { try? handle.close() }
        try self.init(named: path, size: Int(try handle.seekToEnd()), reading: handle.readBytes)
    }

    /// A movie held in memory (a motion photo's video inside a still).
    init(bytes: [UInt8], named name: String) throws {
        try self.init(named: name, size: bytes.count) { offset, count in
            guard offset >= 0, count >= 0, offset + count <= bytes.count else {
                throw MovieFileError("\(name) ends inside the \(count) bytes expected at offset \(offset)")
            }
            return Array(bytes[offset..<offset + count])
        }
    }

    /// The movie `name` of `size` bytes, read through `read` (offset, count).
    private init(named name: String, size: Int, reading read: (Int, Int) throws -> [UInt8]) throws {
        var moovBox: ISOBox?
        var refusal: MovieFileError?
        var offset = 0
        while size - offset >= 8 {
            let box = try ISOBox.parse(header: try read(offset, min(16, size - offset)), at: offset, limit: size)
            offset = box.end
            switch box.type {
            case "moov":
                guard moovBox == nil else { throw MovieFileError("\(name) has more than one 'moov' box") }
                moovBox = box
            case "moof":
                refusal = refusal ?? MovieFileError("\(name) is a fragmented movie ('moof' at offset \(box.start)); its fragments cannot be edited in place")
            case "meta", "udta":
                refusal = refusal ?? MovieFileError("\(name) has a top-level '\(box.type)' box; metadata outside 'moov' is not edited")
            case "uuid" where try Self.isXMPCarryingLocation(box, read):
                refusal = refusal ?? MovieFileError("\(name) has location in a top-level XMP 'uuid' box, which is not edited")
            default:
                break
            }
        }
        guard let moovBox else { throw MovieFileError("\(name) has no 'moov' box") }
        guard moovBox.size <= Self.largestMoov else {
            throw MovieFileError("\(name): 'moov' claims \(moovBox.size) bytes, more than the \(Self.largestMoov) accepted")
        }
        self.moovBox = moovBox
        editingRefusal = refusal
        moov = try read(moovBox.start, moovBox.size)
    }

    private static func isXMPCarryingLocation(_ box: ISOBox, _ read: (Int, Int) throws -> [UInt8]) throws -> Bool {
        let payloadSize = box.size - box.headerSize
        guard payloadSize >= xmpUUID.count, try read(box.payloadStart, xmpUUID.count) == xmpUUID else { return false }
        guard payloadSize <= largestMoov else {
            throw MovieFileError("top-level XMP 'uuid' box at offset \(box.start) is too large to inspect")
        }
        return XMPPacket.carriesLocation(try read(box.payloadStart + xmpUUID.count, payloadSize - xmpUUID.count))
    }
}
