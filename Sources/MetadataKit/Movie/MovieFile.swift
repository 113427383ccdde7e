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
        var moovBox: ISOBox?
        var refusal: MovieFileError?
        for box in try ISOBox.topLevelBoxes(of: handle) {
            switch box.type {
            case "moov":
                guard moovBox == nil else { throw MovieFileError("\(path) has more than one 'moov' box") }
                moovBox = box
            case "moof":
                refusal = refusal ?? MovieFileError("\(path) is a fragmented movie ('moof' at offset \(box.start)); its fragments cannot be edited in place")
            case "meta", "udta":
                refusal = refusal ?? MovieFileError("\(path) has a top-level '\(box.type)' box; metadata outside 'moov' is not edited")
            case "uuid" where try Self.isXMPCarryingLocation(box, handle):
                refusal = refusal ?? MovieFileError("\(path) has location in a top-level XMP 'uuid' box, which is not edited")
            default:
                break
            }
        }
        guard let moovBox else { throw MovieFileError("\(path) has no 'moov' box") }
        guard moovBox.size <= Self.largestMoov else {
            throw MovieFileError("\(path): 'moov' claims \(moovBox.size) bytes, more than the \(Self.largestMoov) accepted")
        }
        self.moovBox = moovBox
        editingRefusal = refusal
        moov = try handle.readBytes(at: moovBox.start, count: moovBox.size)
    }

    private static func isXMPCarryingLocation(_ box: ISOBox, _ handle: FileHandle) throws -> Bool {
        let payloadSize = box.size - box.headerSize
        guard payloadSize >= xmpUUID.count,
              try handle.readBytes(at: box.payloadStart, count: xmpUUID.count) == xmpUUID else { return false }
        guard payloadSize <= largestMoov else {
            throw MovieFileError("top-level XMP 'uuid' box at offset \(box.start) is too large to inspect")
        }
        let packet = try handle.readBytes(at: box.payloadStart + xmpUUID.count, count: payloadSize - xmpUUID.count)
        return XMPPacket.carriesLocation(packet)
    }
}
