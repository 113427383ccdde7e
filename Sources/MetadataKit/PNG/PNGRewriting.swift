import Foundation

extension PNGMetadata {
    /// The PNG with its image data and every chunk no edit touches byte for byte: each chunk
    /// holding a copy of a block (`eXIf`, XMP text, raw profiles) edited where it stands and
    /// written back in its own kind of chunk, compressed as it was; ImageMagick's one-property
    /// copies of location removed with the location.
    public static func rewritingMetadata(path: String, editing edit: BlockEdit) throws -> MetadataWriting? {
        let png = try WholeFile.bytes(path)
        var editor = CopyEditor(edit)
        var output = PNGStructure.signature
        output.reserveCapacity(png.count)
        for chunk in try chunks(of: png) {
            output += try edited(chunk, in: png, &editor)
        }
        guard editor.changes > 0 else { return nil }
        // Bytes after IEND, which some tools append, stay too.
        return MetadataWriting(bytes: output + png[(try chunks(of: png).last?.end ?? png.count)...], dropped: editor.dropped)
    }

    /// The chunk as the edit leaves it: itself, a new chunk of its type, or nothing.
    private static func edited(_ chunk: Chunk, in png: [UInt8], _ editor: inout CopyEditor) throws -> [UInt8] {
        let data = Array(png[chunk.data]), whole = Array(png[chunk.offset..<chunk.end])
        if chunk.type == exifType {
            return rebuilt(whole, chunk, editor.exif(data, place: "PNG eXIf chunk")) { $0 }
        }
        guard PNGText.types.contains(chunk.type), let keyword = PNGText.keyword(of: data[...]),
              let place = PNGTextPlace(keyword: keyword) else { return whole }
        if place == .propertyCopy {
            guard editor.edit.removesLocation, Self.placesPhoto(keyword) else { return whole }
            editor.noteChange()
            return []
        }
        let name = "PNG \(chunk.type) '\(keyword)'"
        guard let text = try? PNGText(type: chunk.type, data: data) else {
            editor.drop("\(place.kindName) in \(name) (cannot be read): unreadable, dropped")
            return []
        }
        if case .rawProfile = place { return try rebuiltProfile(whole, chunk, text, data, name, &editor) }
        return rebuilt(whole, chunk, editor.xmp(text.text, place: name)) { PNGText.data(keyword: keyword, text: $0, like: data, type: chunk.type) }
    }

    /// A raw profile's block edited as its kind, written back under the same name and keyword.
    private static func rebuiltProfile(_ whole: [UInt8], _ chunk: Chunk, _ text: PNGText, _ data: [UInt8], _ place: String,
                                       _ editor: inout CopyEditor) throws -> [UInt8] {
        guard let profile = try? PNGRawProfile(text: text.text) else {
            editor.drop("raw profile in \(place) (its hex does not add up): unreadable, dropped")
            return []
        }
        let kind = PNGTextPlace(keyword: text.keyword).flatMap { if case .rawProfile(let name?) = $0 { name } else { nil } }
            ?? PNGTextPlace.profileKind(named: profile.name)
        let outcome: CopyEditor.Outcome
        switch kind {
        // ImageMagick's "APP1" profile is EXIF, or XMP with its JPEG signature.
        case "app1" where profile.bytes.starts(with: xmpSignature):
            outcome = prefixed(editor.xmp(Array(profile.bytes.dropFirst(xmpSignature.count)), place: place), xmpSignature)
        case "exif", "app1": outcome = editor.exif(profile.bytes, place: place)
        case "xmp": outcome = editor.xmp(profile.bytes, place: place)
        case "iptc", "8bim": outcome = try editor.photoshop(profile.bytes, place: place)
        default: outcome = .unchanged
        }
        return rebuilt(whole, chunk, outcome) { bytes in
            PNGText.data(keyword: text.keyword, text: PNGRawProfile(name: profile.name, bytes: bytes).text, like: data, type: chunk.type)
        }
    }

    private static func prefixed(_ outcome: CopyEditor.Outcome, _ prefix: [UInt8]) -> CopyEditor.Outcome {
        guard case .replaced(let bytes) = outcome else { return outcome }
        return .replaced(prefix + bytes)
    }

    /// The chunk itself, none, or one of its type with the data `encode` makes of the new block.
    private static func rebuilt(_ whole: [UInt8], _ chunk: Chunk, _ outcome: CopyEditor.Outcome, encode: ([UInt8]) -> [UInt8]) -> [UInt8] {
        switch outcome {
        case .unchanged: return whole
        case .removed: return []
        case .replaced(let bytes): return Self.chunk(chunk.type, encode(bytes))
        }
    }

    /// Whether an ImageMagick property copy (`exif:GPSLatitude`) places the photo.
    private static func placesPhoto(_ keyword: String) -> Bool {
        guard let colon = keyword.firstIndex(of: ":") else { return false }
        let prefix = keyword[..<colon], name = String(keyword[keyword.index(after: colon)...])
        return XMPPacket.locationNamespaces.contains { $0.prefix == prefix && $0.placesPhoto(name) }
    }
}
