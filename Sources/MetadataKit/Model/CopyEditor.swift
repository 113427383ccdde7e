/// Edits one copy of a block at a time, as a container met it in the file, for a rewrite that
/// keeps everything else in place (`rewritingMetadata`): the copy is read as `MetadataCopies`
/// reads every copy, given to the edit as blocks of its own, and said to be unchanged (its bytes
/// stay as they are), removed, or replaced. A copy that cannot be read is removed and named in
/// `dropped`: what it hides cannot be checked.
struct CopyEditor {
    enum Outcome: Equatable {
        case unchanged
        case removed
        case replaced([UInt8])
    }

    let edit: BlockEdit
    /// Copies removed because they could not be read, described for the report.
    private(set) var dropped: [String] = []
    /// How many copies and parts have been removed or replaced so far.
    private(set) var changes = 0

    init(_ edit: BlockEdit) {
        self.edit = edit
    }

    /// An EXIF block (a TIFF structure, after any `Exif\0\0`): its new TIFF structure.
    mutating func exif(_ tiff: [UInt8], place: String) -> Outcome {
        var copies = MetadataCopies()
        copies.addExif(tiff, rank: 0, place: place)
        return outcome(copies.blocks) { $0.exif?.tiff }
    }

    /// An XMP packet.
    mutating func xmp(_ packet: [UInt8], place: String) -> Outcome {
        var copies = MetadataCopies()
        copies.addXMP(packet, rank: 0, place: place)
        return outcome(copies.blocks) { $0.xmp }
    }

    /// Bare IPTC-IIM datasets.
    mutating func iim(_ datasets: [UInt8], place: String) -> Outcome {
        var copies = MetadataCopies()
        copies.addIPTC(datasets, place: place)
        return outcome(copies.blocks) { $0.iptc }
    }

    /// Bare IPTC-IIM at each of `ranges` of `file` (a trailer's records), edited where it lies:
    /// the datasets kept move up and the range is zero-padded (IIM readers stop at the padding);
    /// one that cannot be read is zeroed. The ranges to replace and their bytes, each as long.
    mutating func iimInPlace(_ ranges: [Range<Int>], of file: [UInt8], place: String) -> [(range: Range<Int>, bytes: [UInt8])] {
        ranges.filter { !$0.isEmpty }.compactMap { range in
            let zeros = [UInt8](repeating: 0, count: range.count)
            switch iim(Array(file[range]), place: place) {
            case .unchanged: return nil
            case .replaced(let bytes): return (range, InPlace.padded(bytes, to: range.count, as: .iptc) ?? zeros)
            case .removed: return (range, zeros)
            }
        }
    }

    /// A movie inside the file (a motion photo's video): without its location, in place, when
    /// the edit removes location.
    ///
    /// - Throws: `MetadataFormatError` when it holds location that cannot be removed in place
    ///   (the item then fails, as a movie file of the same kind would).
    mutating func movie(_ bytes: [UInt8], place: String) throws -> Outcome {
        guard edit.removesLocation else { return .unchanged }
        do {
            guard let edited = try MovieLocationEditor.removingLocation(fromEmbedded: bytes, named: place) else { return .unchanged }
            dropped += edited.removed.map { "\($0) (\(place))" }
            changes += 1
            return .replaced(edited.bytes)
        } catch let error as MovieFileError {
            throw MetadataFormatError(message: "cannot remove location from \(place): \(error.message)")
        }
    }

    /// The blocks of one copy through the edit: nothing read means the copy goes.
    private mutating func outcome(_ read: MetadataBlocks, _ bytes: (MetadataBlocks) -> [UInt8]?) -> Outcome {
        guard read.unreadable.isEmpty else {
            dropped += read.unreadable.map { "\($0): unreadable, dropped" }
            changes += 1
            return .removed
        }
        var edited = read
        edit.apply(&edited)
        guard edited != read else { return .unchanged }
        changes += 1
        return bytes(edited).map(Outcome.replaced) ?? .removed
    }

    /// Records a change made outside the blocks (a vendor segment's location, say).
    mutating func noteChange() {
        changes += 1
    }

    /// Records a part removed for the edit's sake (a signature the edit breaks).
    mutating func drop(_ part: String) {
        dropped.append(part)
        changes += 1
    }
}
