/// What follows a JPEG's marker segments — its image data, then whatever was appended (MPF
/// images, Samsung's trailer, a motion photo's video) — with edited parts spliced in: each MPF
/// image rewritten as a JPEG of its own, Samsung's location record zeroed in place, the motion
/// photo's video without its location, in place. Where each
/// MPF image lands once spliced is what the index's offsets are set to.
struct JPEGTail {
    let jpeg: [UInt8]
    let start: Int
    /// Replaced ranges of `jpeg`, in file order, none overlapping.
    private var replacements: [(range: Range<Int>, bytes: [UInt8])] = []
    /// Each MPF image found, by its entry's index.
    private var images: [Int: Range<Int>] = [:]

    init(_ jpeg: [UInt8], from start: Int) {
        self.jpeg = jpeg
        self.start = start
    }

    /// Rewrites MPF image `index`, `size` bytes at `offset` in the file, as a JPEG of its own;
    /// one that is not where the index says, or not a JPEG, is left as it is.
    mutating func edit(image index: Int, at offset: Int, size: Int, _ editor: inout CopyEditor) throws {
        guard offset >= start, size > 0, size <= jpeg.count - offset else { return }
        let range = offset..<offset + size
        guard !images.values.contains(where: { $0.overlaps(range) }) else { return }
        images[index] = range
        guard let image = try? JPEGRewrite(Array(jpeg[range])) else { return }
        let before = editor.changes
        let rewritten = try image.rewritten(&editor, nested: true)
        if editor.changes != before { replace(range, with: rewritten) }
    }

    /// Zeroes the location records of Samsung's trailer, when the file ends in one.
    mutating func removeSamsungLocation(_ editor: inout CopyEditor) {
        guard jpeg.count - start >= 8, let edited = SamsungTrailer.removingLocation(from: Array(jpeg[start...])) else { return }
        let changed = zip(jpeg[start...].indices, edited.bytes).filter { jpeg[$0] != $1 }.map(\.0)
        guard let first = changed.first, let last = changed.last else { return }
        let range = first..<last + 1
        guard !replacements.contains(where: { $0.range.overlaps(range) }) else { return }
        replace(range, with: Array(edited.bytes[(first - start)...(last - start)]))
        for name in edited.removed { editor.drop("\(name) (Samsung trailer)") }
    }

    /// Edits the IPTC of an AFCP or a FotoStation trailer ending the file where it lies; an AFCP
    /// trailer's offsets are set again once the file is put together (`AFCPTrailer.move`).
    mutating func editTrailerIPTC(_ editor: inout CopyEditor) {
        let records = (AFCPTrailer(jpeg, after: start)?.iptc ?? []) + FotoStationTrailer.iptc(in: jpeg, after: start)
        for edit in editor.iimInPlace(records, of: jpeg, place: "trailer") where !replacements.contains(where: { $0.range.overlaps(edit.range) }) {
            replace(edit.range, with: edit.bytes)
        }
    }

    /// Removes location from the motion photo's video appended to the file: in Samsung's trailer,
    /// or where Google's XMP (`googleLengths`, from the end) says it is.
    mutating func editMovie(googleLengths: [Int], _ editor: inout CopyEditor) throws {
        let tail = Array(jpeg[start...])
        let found = SamsungTrailer.movie(in: tail).map { $0.lowerBound + start..<$0.upperBound + start }
            ?? GoogleMotionPhoto.video(in: jpeg, lengths: googleLengths)
        guard let range = found, range.lowerBound >= start, !replacements.contains(where: { $0.range.overlaps(range) }),
              case .replaced(let movie) = try editor.movie(Array(jpeg[range]), place: "the motion photo's video") else { return }
        replace(range, with: movie)
    }

    private mutating func replace(_ range: Range<Int>, with bytes: [UInt8]) {
        replacements.append((range, bytes))
        replacements.sort { $0.range.lowerBound < $1.range.lowerBound }
    }

    var bytes: [UInt8] {
        var output: [UInt8] = []
        var copied = start
        for (range, bytes) in replacements {
            output += jpeg[copied..<range.lowerBound]
            output += bytes
            copied = range.upperBound
        }
        return output + jpeg[copied...]
    }

    /// Where MPF image `index` is once the head has moved the tail by `shift`: its offset in the
    /// output and its size; nil for an image not found.
    func newPlace(of index: Int, shift: Int) -> (offset: Int, size: Int)? {
        guard let range = images[index] else { return nil }
        let moved = replacements.filter { $0.range.upperBound <= range.lowerBound }.reduce(0) { $0 + $1.bytes.count - $1.range.count }
        let size = replacements.first { $0.range == range }?.bytes.count ?? range.count
        return (range.lowerBound + shift + moved, size)
    }
}
