import Foundation

extension WebPMetadata {
    /// The WebP with its image data and every chunk no edit touches byte for byte: each `EXIF`
    /// and XMP chunk (the misspelled `XMP\\0` too) edited where it stands; the RIFF size, and the
    /// `VP8X` flags of a kind no chunk holds any more, set to match.
    public static func rewritingMetadata(path: String, editing edit: BlockEdit) throws -> MetadataWriting? {
        let webp = try WholeFile.bytes(path)
        var editor = CopyEditor(edit)
        var body: [UInt8] = [], kept: Set<String> = []
        for chunk in try chunks(of: webp) {
            let payload = Array(webp[chunk.payload])
            let outcome: CopyEditor.Outcome
            switch chunk.fourCC {
            case exifFourCC: outcome = editor.exif(payload, place: "WebP EXIF chunk")
            case xmpFourCC, misspelledXMPFourCC: outcome = editor.xmp(payload, place: "WebP \(chunk.fourCC) chunk")
            default: outcome = .unchanged
            }
            switch outcome {
            case .unchanged: body += webp[chunk.offset..<chunk.payload.upperBound] + (chunk.size % 2 == 1 ? [0] : [])
            case .removed: continue
            case .replaced(let bytes): body += Self.chunk(chunk.fourCC, bytes)
            }
            kept.insert(chunk.fourCC)
        }
        guard editor.changes > 0 else { return nil }
        clearFlags(in: &body, keeping: kept)
        var output = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8) + body
        output.setUInt32(UInt32(output.count - 8), at: 4, bigEndian: false)
        return MetadataWriting(bytes: output, dropped: editor.dropped)
    }

    /// Clears the `VP8X` flag of EXIF or XMP when no chunk of that kind is left (`body` starts
    /// with `VP8X` when the file has one: it must come first).
    private static func clearFlags(in body: inout [UInt8], keeping kept: Set<String>) {
        guard body.fourCC(at: 0) == "VP8X", body.count > 8 else { return }
        if !kept.contains(exifFourCC) { body[8] &= ~exifFlag }
        if !kept.contains(xmpFourCC) { body[8] &= ~xmpFlag }
    }
}
