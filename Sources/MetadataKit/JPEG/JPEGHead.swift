/// A JPEG's marker segments before its image data, each metadata segment edited where it
/// stands (`CopyEditor`): EXIF and XMP (APP1), Photoshop resources (APP13, read across all its
/// segments as one and written back in place of the first), ExtendedXMP kept with the XMP it
/// extends; every other segment byte for byte.
struct JPEGHead {
    enum Kind {
        case other, exif, xmp, extendedXMP, photoshop
        /// The MPF index, whose offsets are set once the file is laid out.
        case mpf
        /// JUMBF (C2PA content credentials), signed over the whole file.
        case signature
    }

    struct Piece {
        let kind: Kind
        let bytes: [UInt8]
    }

    /// Where the MPF index was in the input, and what it says.
    struct MPF {
        let index: MPFIndex
        /// Where its TIFF header, from which its offsets count, is in the input.
        let tiffHeader: Int
    }

    private(set) var pieces: [Piece] = []
    private(set) var mpf: MPF?
    /// The XMP packet as the file had it (a motion photo's says where its video is).
    private(set) var xmp: [UInt8]?

    var bytes: [UInt8] { pieces.flatMap(\.bytes) }

    init(_ segments: ArraySlice<JPEGSegments.Segment>, in jpeg: [UInt8], editor: inout CopyEditor) throws {
        let photoshop = segments.filter { Self.kind(of: $0, in: jpeg) == .photoshop }
        let resources = photoshop.flatMap { jpeg[$0.payload].dropFirst(JPEGMetadata.photoshopSignature.count) }
        let photoshopOutcome = photoshop.isEmpty ? CopyEditor.Outcome.unchanged : try editor.photoshop(resources, place: "APP13")
        var xmpRemoved = false
        for segment in segments {
            let kind = Self.kind(of: segment, in: jpeg), payload = Array(jpeg[segment.payload])
            let outcome: CopyEditor.Outcome
            switch kind {
            case .exif: outcome = editor.exif(Array(payload.dropFirst(JPEGMetadata.exifSignature.count)), place: "APP1")
            case .xmp:
                xmp = xmp ?? Array(payload.dropFirst(JPEGMetadata.xmpSignature.count))
                outcome = editor.xmp(Array(payload.dropFirst(JPEGMetadata.xmpSignature.count)), place: "APP1")
            case .photoshop: outcome = segment == photoshop.first ? photoshopOutcome : photoshopOutcome == .unchanged ? .unchanged : .removed
            case .mpf:
                mpf = MPFIndex(payload: payload).map { MPF(index: $0, tiffHeader: segment.payload.lowerBound + MPFIndex.signature.count) }
                outcome = .unchanged
            case .other where editor.edit.removesLocation:
                guard let what = Self.uneditedPlaces(payload, marker: segment.marker) else { outcome = .unchanged; break }
                editor.drop("\(what) (it may hold location)")
                outcome = .removed
            default: outcome = .unchanged
            }
            if kind == .xmp, outcome == .removed { xmpRemoved = true }
            try append(segment, kind, outcome, in: jpeg)
        }
        try keepExtendedXMP(unless: xmpRemoved, &editor)
    }

    private mutating func append(_ segment: JPEGSegments.Segment, _ kind: Kind, _ outcome: CopyEditor.Outcome, in jpeg: [UInt8]) throws {
        switch outcome {
        case .unchanged: pieces.append(Piece(kind: kind, bytes: Array(jpeg[segment.range])))
        case .removed: break
        case .replaced(let payload):
            let signature = Self.signature(of: kind)
            // Photoshop resources continue across segments, each opening with the signature.
            let limit = kind == .photoshop ? JPEGSegments.maximumPayload - signature.count : payload.count
            guard payload.count + signature.count <= JPEGSegments.maximumPayload || kind == .photoshop else {
                throw MetadataFormatError(message: "an edited \(kind) block no longer fits its JPEG segment")
            }
            for start in stride(from: 0, to: max(payload.count, 1), by: max(limit, 1)) {
                let part = signature + payload[start..<min(start + limit, payload.count)]
                pieces.append(Piece(kind: kind, bytes: [0xFF, segment.marker, UInt8((part.count + 2) >> 8), UInt8((part.count + 2) & 0xFF)] + part))
            }
        }
    }

    /// ExtendedXMP goes with the XMP it extends, and when it places the photo (its depth and
    /// portrait maps never should: it is not edited, its digest being its name).
    private mutating func keepExtendedXMP(unless xmpRemoved: Bool, _ editor: inout CopyEditor) throws {
        let extended = pieces.filter { $0.kind == .extendedXMP }
        guard !extended.isEmpty else { return }
        let placesPhoto = editor.edit.removesLocation && XMPPacket.mayPlacePhoto(Self.extendedPacket(extended))
        guard xmpRemoved || placesPhoto else { return }
        pieces.removeAll { $0.kind == .extendedXMP }
        if placesPhoto { editor.drop("ExtendedXMP (it holds location)") } else { editor.noteChange() }
    }

    /// The ExtendedXMP packet its segments carry in parts: after the signature, a 32-digit
    /// GUID, the packet's length and the part's offset in it (big-endian), then the part.
    private static func extendedPacket(_ pieces: [Piece]) -> [UInt8] {
        let header = 4 + JPEGMetadata.extendedXMPSignature.count + 32
        let parts = pieces.compactMap { piece -> (offset: UInt32, data: ArraySlice<UInt8>)? in
            guard let offset = piece.bytes.uint32(at: header + 4), piece.bytes.count >= header + 8 else { return nil }
            return (offset, piece.bytes[(header + 8)...])
        }
        return parts.sorted { $0.offset < $1.offset }.flatMap(\.data)
    }

    /// Removes the parts an edit invalidates: a C2PA manifest's signature covers the whole file.
    mutating func dropSignatures(_ editor: inout CopyEditor) {
        guard pieces.contains(where: { $0.kind == .signature }) else { return }
        pieces.removeAll { $0.kind == .signature }
        editor.drop("C2PA content credentials (JUMBF): signed over the whole file, which changed")
    }

    /// Sets each MPF entry's size and offset (from the index's TIFF header, at `tiffHeader` in
    /// `output`) to where `place` says its image now is; entries it cannot place stay as they were.
    func updateIndex(_ mpf: MPF, in output: inout [UInt8], at tiffHeader: Int, place: (Int) -> (offset: Int, size: Int)?) {
        let payloadStart = tiffHeader - MPFIndex.signature.count
        let length = mpf.index.entries.last.map { $0.field + 12 } ?? 0
        var payload = Array(output[payloadStart..<payloadStart + length])
        for index in mpf.index.entries.indices.dropFirst() {
            guard let (offset, size) = place(index), offset >= tiffHeader else { continue }
            mpf.index.setting(index, size: size, offset: offset - tiffHeader, in: &payload)
        }
        output.replaceSubrange(payloadStart..<payloadStart + payload.count, with: payload)
    }

    /// Where the MPF segment starts in `bytes`.
    var mpfSegmentStart: Int? {
        guard let index = pieces.firstIndex(where: { $0.kind == .mpf }) else { return nil }
        return pieces[..<index].reduce(0) { $0 + $1.bytes.count }
    }

    static func kind(of segment: JPEGSegments.Segment, in jpeg: [UInt8]) -> Kind {
        let payload = jpeg[segment.payload]
        switch segment.marker {
        case 0xE1 where payload.starts(with: JPEGMetadata.exifSignature): return .exif
        case 0xE1 where payload.starts(with: JPEGMetadata.xmpSignature): return .xmp
        case 0xE1 where payload.starts(with: JPEGMetadata.extendedXMPSignature): return .extendedXMP
        case 0xED where payload.starts(with: JPEGMetadata.photoshopSignature): return .photoshop
        case 0xE2 where payload.starts(with: MPFIndex.signature): return .mpf
        // ISO 19566-5: "JP", a box instance number and a sequence number, then JUMBF boxes.
        case 0xEB where payload.starts(with: Array("JP".utf8)): return .signature
        default: return .other
        }
    }

    /// A segment exiftool reads metadata from that this editor does not, when it may place the
    /// photo: Photoshop 2.5's APP13 (`Adobe_Photoshop2.5:`), an APP1 XMP packet under a header
    /// other than Adobe's. Named, to go whole; nil for any other.
    static func uneditedPlaces(_ payload: [UInt8], marker: UInt8) -> String? {
        switch marker {
        case 0xED where payload.starts(with: Array("Adobe_Photoshop2.5:".utf8)):
            let places = (try? IPTCBlock.removingLocation(from: Array(payload.dropFirst(27)))).map { $0 != nil } ?? true
            return places ? "APP13 Adobe_Photoshop2.5" : nil
        case 0xE1 where XMPPacket.mayPlacePhoto(payload) && payload.firstOffset(of: Array("xmpmeta".utf8)) != nil:
            return "APP1 XMP under a non-standard header"
        default: return nil
        }
    }

    private static func signature(of kind: Kind) -> [UInt8] {
        switch kind {
        case .exif: return JPEGMetadata.exifSignature
        case .xmp: return JPEGMetadata.xmpSignature
        case .photoshop: return JPEGMetadata.photoshopSignature
        default: return []
        }
    }
}
