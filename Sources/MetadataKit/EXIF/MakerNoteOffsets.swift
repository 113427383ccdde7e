/// Keeps a MakerNote's offsets valid when the note moves within its EXIF block (compacting a
/// TIFF's EXIF, writing EXIF into a TIFF output).
///
/// MakerNotes are IFDs of their maker's making, and they address their values in one of two
/// ways. Apple, Nikon (type 3, with its own TIFF header), Fujifilm, Olympus (new style), Pentax
/// ("PENTAX "), Kyocera, Motorola count from the note itself: they survive any move byte for
/// byte. Canon, Sony, Panasonic, Samsung, Casio and most others count from the EXIF block's TIFF
/// header: moved, their values seem to be elsewhere. Like exiftool (MakerNotes.pm `LocateIFD`,
/// WriteExif.pl's fixups), such a note's IFD is found and its offsets are moved with it.
///
/// Limits, where exiftool knows each maker's layout and this does not: only the note's first IFD
/// is rebased, not IFDs nested inside it (Olympus type 1 and Pentax sub-directories, Nikon type 2
/// never seen here) nor offsets kept inside values (Canon's preview image start, which points
/// past the EXIF block into the JPEG and means nothing in a re-encoded file anyway). A note
/// whose layout is not recognised is kept byte for byte, as libexif and exiftool keep unknown ones.
/// A Nikon type-3 note declared shorter than it is keeps the few bytes it reaches past its count.
enum MakerNoteOffsets {
    /// Prefixes of notes whose offsets count from the note (or a TIFF header inside it), from
    /// exiftool's MakerNotes.pm (`Base => '$start ...'`).
    static let selfContained: [[UInt8]] = [
        "Apple iOS\0", "Nikon\0\u{2}", "FUJIFILM", "GENERALE", "OLYMPUS\0", "OM SYSTEM\0", "PENTAX \0", "KYOCERA",
        "MOT\0", "ISLMAKERNOTE000\0", "LEICA0", "GE\u{C}\0\0\0\u{16}\0\0\0",
    ].map { Array($0.utf8) }

    /// What a Nikon type-3 note's "Nikon\0\2\0\0\0" header takes before its TIFF header: some
    /// COOLPIX cameras leave it out of the note's declared count, so the note's last values and its
    /// empty NikonScan directory lie up to this many bytes past the declared end.
    static let uncountedNikonHeader = 10

    /// How many bytes the note that starts `note` really takes: its declared length, or up to
    /// `uncountedNikonHeader` more where a Nikon type-3 note's own directories and values reach past
    /// it (exiftool reads them there). `note` holds the note's bytes and what follows, as far as
    /// the EXIF block goes; never more than the declared length plus that header is claimed, so no
    /// other tag's bytes (a GPS directory) can travel inside a note.
    static func length(ofNote note: [UInt8], declared: Int) -> Int {
        let header = uncountedNikonHeader
        guard note.starts(with: Array("Nikon\0\u{2}".utf8)), note.count > header + 8, hasTIFFHeader(note) else { return declared }
        let limit = min(note.count, declared + header)
        let bigEndian = note[header] == 0x4D
        var end = declared
        var pending = [note.uint32(at: header + 4, bigEndian: bigEndian).map(Int.init)].compactMap { $0 }
        // IFD0 and the sub-directories Nikon points to from it (NikonPreview 0x11, NikonScan 0xE10).
        for _ in 0..<3 {
            guard let directory = pending.popLast().map({ header + $0 }),
                  let count = note.uint16(at: directory, bigEndian: bigEndian).map(Int.init) else { break }
            end = max(end, directory + 2 + count * 12 + 4)
            for index in 0..<count {
                let at = directory + 2 + index * 12
                guard let tag = note.uint16(at: at, bigEndian: bigEndian), let type = note.uint16(at: at + 2, bigEndian: bigEndian),
                      let values = note.uint32(at: at + 4, bigEndian: bigEndian).map(Int.init),
                      let offset = note.uint32(at: at + 8, bigEndian: bigEndian).map(Int.init) else { continue }
                let length = values * ExifData.typeSize(type)
                if length > 4 { end = max(end, header + offset + length) }
                if [0x0011, 0x0E10].contains(tag), length == 4 { pending.append(offset) }
            }
        }
        return end <= limit ? end : declared
    }

    /// `note`, which sat at offset `old` of its EXIF block, as it must read at offset `new`.
    static func rebased(_ note: [UInt8], from old: Int, to new: Int) -> [UInt8] {
        guard old != new, !selfContained.contains(where: note.starts(with:)), !hasTIFFHeader(note),
              let ifd = locateIFD(note) else { return note }
        let values = outOfLineValues(note, ifd)
        // Offsets from the TIFF header put every value inside the note as it sat; offsets from
        // the note (a layout not listed above) put them inside it counted from 0.
        guard !values.isEmpty, values.allSatisfy({ $0.offset >= old && $0.offset + $0.length <= old + note.count }) else {
            return note
        }
        var rebased = note
        for value in values {
            rebased.setUInt32(UInt32(truncatingIfNeeded: value.offset - old + new), at: value.field, bigEndian: ifd.bigEndian)
        }
        return rebased
    }

    /// Nikon type 3 and others carry a TIFF header of their own in the first 32 bytes.
    private static func hasTIFFHeader(_ note: [UInt8]) -> Bool {
        stride(from: 0, through: min(32, note.count - 4), by: 2).contains { at in
            let mark = Array(note[at..<at + 4])
            return mark == [0x49, 0x49, 0x2A, 0x00] || mark == [0x4D, 0x4D, 0x00, 0x2A]
        }
    }

    /// The first plausible IFD in the note's first 32 bytes (after a maker's header such as
    /// "SONY DSC \0\0\0" or "Panasonic\0\0\0"), in whichever byte order gives it 1–255 entries of
    /// known types, as exiftool's `LocateIFD` looks for it.
    static func locateIFD(_ note: [UInt8]) -> (start: Int, count: Int, bigEndian: Bool)? {
        for start in stride(from: 0, through: 32, by: 2) {
            for bigEndian in [false, true] {
                guard let count = note.uint16(at: start, bigEndian: bigEndian).map(Int.init), (1...255).contains(count),
                      start + 2 + count * 12 <= note.count else { continue }
                let plausible = (0..<count).allSatisfy { index in
                    let at = start + 2 + index * 12
                    guard let type = note.uint16(at: at + 2, bigEndian: bigEndian),
                          let entries = note.uint32(at: at + 4, bigEndian: bigEndian) else { return false }
                    return (1...13).contains(type) && entries & 0xFF00_0000 == 0
                }
                if plausible { return (start, count, bigEndian) }
            }
        }
        return nil
    }

    /// Each value that does not fit its entry: where its offset field sits in the note, the
    /// offset it holds and the value's length.
    private static func outOfLineValues(_ note: [UInt8], _ ifd: (start: Int, count: Int, bigEndian: Bool))
        -> [(field: Int, offset: Int, length: Int)] {
        (0..<ifd.count).compactMap { index in
            let at = ifd.start + 2 + index * 12
            guard let type = note.uint16(at: at + 2, bigEndian: ifd.bigEndian),
                  let count = note.uint32(at: at + 4, bigEndian: ifd.bigEndian).map(Int.init),
                  let offset = note.uint32(at: at + 8, bigEndian: ifd.bigEndian).map(Int.init) else { return nil }
            let length = count * (type == 13 ? 4 : ExifData.typeSize(type))
            return length > 4 ? (at + 8, offset, length) : nil
        }
    }
}
