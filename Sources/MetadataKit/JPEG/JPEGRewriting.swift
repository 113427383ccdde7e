import Foundation

extension JPEGMetadata {
    /// The JPEG with its coded image and every part no edit touches byte for byte: each EXIF,
    /// XMP and Photoshop segment edited where it sits (see `JPEGRewrite`), the MPF images after
    /// the primary one (gain maps, depth maps, previews) edited the same way and the index's
    /// offsets set to where they now are, Samsung's trailer without its location record, an AFCP or
    /// FotoStation trailer's IPTC edited (an AFCP's offsets set to where it now is). A C2PA
    /// manifest (JUMBF in APP11) is signed over the whole file: it goes as soon as anything changes.
    public static func rewritingMetadata(path: String, editing edit: BlockEdit) throws -> MetadataWriting? {
        let jpeg = try WholeFile.bytes(path)
        var editor = CopyEditor(edit)
        let rewritten = try JPEGRewrite(jpeg).rewritten(&editor)
        guard editor.changes > 0 else { return nil }
        return MetadataWriting(bytes: rewritten, dropped: editor.dropped)
    }
}

/// One JPEG file (or an MPF image inside one) rewritten with its metadata segments edited.
struct JPEGRewrite {
    let jpeg: [UInt8]
    /// The marker segments from SOI to SOS, SOS last.
    let segments: [JPEGSegments.Segment]

    init(_ jpeg: [UInt8]) throws {
        guard let segments = JPEGSegments.segments(of: jpeg), segments.last?.marker == 0xDA else {
            throw MetadataFormatError(message: "not a JPEG whose segments can be walked to its image data")
        }
        self.jpeg = jpeg
        self.segments = segments
    }

    /// The file as the edit leaves it. `nested`: an MPF image, whose own MPF entries are not followed.
    func rewritten(_ editor: inout CopyEditor, nested: Bool = false) throws -> [UInt8] {
        var head = try JPEGHead(segments.dropLast(), in: jpeg, editor: &editor)
        let imageData = segments.last!.range.lowerBound
        var tail = JPEGTail(jpeg, from: imageData)
        if !nested, let mpf = head.mpf {
            for (index, entry) in mpf.index.entries.enumerated() where index > 0 && entry.offset > 0 {
                try tail.edit(image: index, at: mpf.tiffHeader + entry.offset, size: entry.size, &editor)
            }
        }
        if !nested { tail.editTrailerIPTC(&editor) }
        if editor.edit.removesLocation && !nested {
            tail.removeSamsungLocation(&editor)
            try tail.editMovie(googleLengths: head.xmp.map(GoogleMotionPhoto.videoLengths) ?? [], &editor)
        }
        if editor.changes > 0 { head.dropSignatures(&editor) }
        var output = Array(jpeg[..<2]) + head.bytes
        let shift = output.count - imageData
        output += tail.bytes
        if !nested { AFCPTrailer(jpeg, after: imageData)?.move(in: &output, from: jpeg) }
        if let mpf = head.mpf, let segmentStart = head.mpfSegmentStart {
            // SOI, then the segment's marker and length, then its signature.
            let tiffHeader = 2 + segmentStart + 4 + MPFIndex.signature.count
            head.updateIndex(mpf, in: &output, at: tiffHeader) { tail.newPlace(of: $0, shift: shift) }
        }
        return output
    }
}
