/// Samsung's SEF trailer, which its phones append to JPEGs and keep in a HEIF's `sefd` box:
/// records (capture time, the network's country code, the motion photo's video) and, at the end,
/// a directory — "SEFH", a version, a count, then 12-byte entries (two zero bytes, the record's
/// type, its distance back from the directory, its size; little-endian) — followed by the
/// directory's size and "SEFT".
enum SamsungTrailer {
    static let end = Array("SEFT".utf8)
    /// `MCC_Data`: the mobile country code of the network the phone was on (exiftool's
    /// `Samsung:MCCData`, in its Location group).
    static let locationTypes: [UInt16: String] = [0x0AA1: "Samsung:MCCData"]

    /// `trailer` (the bytes up to and including "SEFT") without its location records, in place:
    /// each one's directory entry taken out (later entries move up, the count drops, the freed
    /// entry is zeroed) and its data zeroed, so that readers no longer find it and nothing else
    /// moves. Nil when it holds none, or when its directory does not add up (then it is not
    /// Samsung's, or not one this can edit safely, and is left as it is).
    static func removingLocation(from trailer: [UInt8]) -> (bytes: [UInt8], removed: [String])? {
        guard let (directory, count) = directory(of: trailer) else { return nil }
        var edited = trailer, removed: [String] = [], remaining = count
        for index in (0..<count).reversed() {
            let entry = directory + 12 + index * 12
            guard let type = trailer.uint16(at: entry + 2, bigEndian: false), let name = locationTypes[type],
                  let back = trailer.uint32(at: entry + 4, bigEndian: false).map(Int.init),
                  let length = trailer.uint32(at: entry + 8, bigEndian: false).map(Int.init),
                  back <= directory, length <= back else { continue }
            edited.replaceSubrange(directory - back..<directory - back + length, with: repeatElement(0, count: length))
            let entriesEnd = directory + 12 + remaining * 12
            edited.replaceSubrange(entry..<entriesEnd - 12, with: edited[entry + 12..<entriesEnd])
            edited.replaceSubrange(entriesEnd - 12..<entriesEnd, with: repeatElement(0, count: 12))
            remaining -= 1
            removed.append(name)
        }
        guard !removed.isEmpty else { return nil }
        edited.setUInt32(UInt32(remaining), at: directory + 8, bigEndian: false)
        return (edited, removed)
    }

    /// Where the directory starts, and how many entries it has; nil when `trailer` does not end
    /// in one that adds up.
    private static func directory(of trailer: [UInt8]) -> (start: Int, count: Int)? {
        guard trailer.count >= 8, Array(trailer.suffix(4)) == end,
              let size = trailer.uint32(at: trailer.count - 8, bigEndian: false).map(Int.init), size >= 12, size <= trailer.count - 8
        else { return nil }
        let directory = trailer.count - 8 - size
        guard trailer.fourCC(at: directory) == "SEFH", let count = trailer.uint32(at: directory + 8, bigEndian: false).map(Int.init),
              12 + count * 12 <= size else { return nil }
        return (directory, count)
    }

    /// `MotionPhoto_Data`: the motion photo's video, after the record's name.
    static let motionPhotoType: UInt16 = 0x0A30

    /// Where in `trailer` the record of `type` holds an ISO-BMFF movie: from its `ftyp` box to
    /// the record's end. Nil when there is no such record, or no movie in it.
    static func movie(in trailer: [UInt8], type: UInt16 = motionPhotoType) -> Range<Int>? {
        guard let (directory, count) = directory(of: trailer) else { return nil }
        for index in 0..<count {
            let entry = directory + 12 + index * 12
            guard trailer.uint16(at: entry + 2, bigEndian: false) == type,
                  let back = trailer.uint32(at: entry + 4, bigEndian: false).map(Int.init),
                  let length = trailer.uint32(at: entry + 8, bigEndian: false).map(Int.init), back <= directory, length <= back
            else { continue }
            let record = directory - back..<directory - back + length
            // The record opens with its type and name; the movie starts at its `ftyp` box.
            let head = Array(trailer[record.lowerBound..<min(record.upperBound, record.lowerBound + 128)])
            guard let ftyp = head.firstOffset(of: Array("ftyp".utf8)), ftyp >= 4 else { return nil }
            return record.lowerBound + ftyp - 4..<record.upperBound
        }
        return nil
    }
}
