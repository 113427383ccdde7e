import Foundation

/// Every EXIF, XMP, IPTC-IIM and Photoshop block of one image, whatever container it came from
/// or goes to: the one model every writer uses.
///
/// A container reads all its copies of a kind into one (a TIFF keeps IPTC in tag 33723 and again
/// inside its Photoshop resources; a JPEG can carry two APP13 segments), the stages edit this
/// model once, and a container writes each kind once where it keeps it, replacing whatever an
/// encoder wrote there. A copy left unedited is how location leaks, so none is passed through.
/// ICC profiles are libvips' to carry: colour conversion decides them.
public struct MetadataBlocks: Equatable, Sendable {
    /// A TIFF structure: camera, dates, orientation, GPS, MakerNotes.
    public var exif: ExifData?
    /// One XMP packet, UTF-8.
    public var xmp: [UInt8]?
    /// IPTC-IIM datasets, bare (no Photoshop resource around them), every copy merged.
    public var iptc: [UInt8]?
    /// Photoshop image resources other than IPTC-IIM (0x0404) and its digest (0x0425), one after
    /// another, without the `Photoshop 3.0` header.
    public var photoshop: [UInt8]?
    /// Blocks found in the file and left out because they could not be read safely, e.g.
    /// "XMP (not well-formed XML)": what they hide cannot be checked. For the item's report.
    public var unreadable: [String]

    public init(exif: ExifData? = nil, xmp: [UInt8]? = nil, iptc: [UInt8]? = nil, photoshop: [UInt8]? = nil,
                unreadable: [String] = []) {
        self.exif = exif
        self.xmp = xmp
        self.iptc = iptc
        self.photoshop = photoshop
        self.unreadable = unreadable
    }

    public var isEmpty: Bool { exif == nil && xmp == nil && iptc == nil && photoshop == nil }
}

/// A file format's places for metadata: where each kind lives, every copy of it read, and each
/// written once. One conforming type per container (`JPEGMetadata`, `PNGMetadata`,
/// `WebPMetadata`, `HEIFMetadata`, `TIFFMetadata`).
public protocol MetadataContainer {
    /// Every block of the file at `path`, each kind merged from all its copies; a block that
    /// cannot be read is named in `unreadable` and left out.
    ///
    /// - Throws: `MetadataFormatError` when the container itself cannot be walked.
    static func readMetadata(path: String) throws -> MetadataBlocks

    /// `file`, as an encoder wrote it (pixels, ICC profile), with every EXIF, XMP, IPTC and
    /// Photoshop block it holds replaced by `blocks`' own, each written once.
    ///
    /// - Throws: `MetadataFormatError` when `file` is not of this container or a block cannot
    ///   be placed; the output is then not published.
    static func writingMetadata(_ blocks: MetadataBlocks, into file: [UInt8]) throws -> MetadataWriting

    /// The file at `path` as it is — its coded image, and every part no edit touches, byte for
    /// byte — with `edit` applied to every copy of every block it holds; nil when that changes
    /// nothing, so the file can be copied as it is. `edit` is given one copy's blocks at a time.
    ///
    /// - Throws: `MetadataFormatError` when the container cannot be walked or an edited block
    ///   cannot be placed; the output is then not published.
    static func rewritingMetadata(path: String, editing edit: BlockEdit) throws -> MetadataWriting?
}

/// What a rewrite in place does to every copy of every block, and to what lies outside them.
public struct BlockEdit {
    /// Whether location goes from records outside the blocks too (Samsung's network country in
    /// its trailer), as it goes from the blocks.
    public let removesLocation: Bool
    /// The edit of one copy's blocks.
    public let apply: (inout MetadataBlocks) -> Void

    public init(removesLocation: Bool, apply: @escaping (inout MetadataBlocks) -> Void) {
        self.removesLocation = removesLocation
        self.apply = apply
    }
}

extension MetadataContainer {
    public static func rewritingMetadata(path: String, editing edit: BlockEdit) throws -> MetadataWriting? {
        try rewritingWholeBlocks(path: path, editing: edit)
    }

    /// Every copy read into one model, edited once, and written back by `writingMetadata`: each
    /// block once, everything else in the file kept. A block that could not be read is left out
    /// even when the edit changes nothing else (what it hides cannot be checked). What a
    /// container does where it cannot edit a copy in place.
    static func rewritingWholeBlocks(path: String, editing edit: BlockEdit) throws -> MetadataWriting? {
        let blocks = try readMetadata(path: path)
        var edited = blocks
        edit.apply(&edited)
        guard edited != blocks || !blocks.unreadable.isEmpty else { return nil }
        let file = try WholeFile.bytes(path)
        return try writingMetadata(edited, into: file)
    }
}

/// A written file, and the kinds of `blocks` its container has no place for (WebP and IPTC-IIM),
/// named for the item's report.
public struct MetadataWriting: Equatable, Sendable {
    public let bytes: [UInt8]
    public let notCarried: [String]
    /// What a rewrite of a file in place removed besides the edit, for the report: copies that
    /// could not be read, and parts an edit invalidates (a C2PA manifest signed over the file).
    public let dropped: [String]

    public init(bytes: [UInt8], notCarried: [String] = [], dropped: [String] = []) {
        self.bytes = bytes
        self.notCarried = notCarried
        self.dropped = dropped
    }
}
