import Foundation

/// A `moov` box rewritten without location, as long as the original so that every chunk
/// offset into `mdat` stays valid.
public struct MovieLocationEdit: Equatable, Sendable {
    /// Where `moov` starts in the file.
    public let moovOffset: Int
    public let moov: [UInt8]
    /// What went, by box path: `moov/udta/©xyz`, `moov/meta/keys:com.apple.quicktime.location.ISO6709`.
    public let removed: [String]
}

public struct MovieLocationReport: Equatable, Sendable {
    /// Box paths as in `MovieLocationEdit.removed`; empty when the file carried no location.
    public let removed: [String]
}

/// Removes location from MOV/MP4/3GP files without remuxing. Only metadata boxes inside `moov`
/// change, each keeping its size (a zeroed `free` box takes the bytes it gave up), so media data,
/// every track (iPhone `mebx` timed metadata, which FFmpeg cannot remux, included) and every
/// chunk offset stay byte-identical.
public enum MovieLocationEditor {
    /// The rewritten `moov`, or nil when there is no location to remove.
    public static func removingLocation(fromFileAt path: String) throws -> MovieLocationEdit? {
        let file = try MovieFile(path: path)
        if let refusal = file.editingRefusal { throw refusal }
        guard let edit = try removingLocation(fromMoov: file.moov) else { return nil }
        return MovieLocationEdit(moovOffset: file.moovBox.start, moov: edit.moov, removed: edit.removed)
    }

    /// Writes `output` as a copy of `input` with its `moov` rewritten; a file without location
    /// is copied unchanged. `output` is overwritten: point it at a temporary path and rename.
    public static func writeWithoutLocation(from input: String, to output: String) throws -> MovieLocationReport {
        let edit = try removingLocation(fromFileAt: input)
        try copy(input, to: output, overwriting: edit.map { [(offset: $0.moovOffset, bytes: $0.moov)] } ?? [])
        return MovieLocationReport(removed: edit?.removed ?? [])
    }

    /// A movie carried inside a still (a motion photo's video, `name` saying where), without its
    /// location, in place; nil when it has none.
    ///
    /// - Throws: `MovieFileError` when the bytes are no movie or its location cannot be removed
    ///   in place.
    static func removingLocation(fromEmbedded movie: [UInt8], named name: String) throws -> (bytes: [UInt8], removed: [String])? {
        let file = try MovieFile(bytes: movie, named: name)
        if let refusal = file.editingRefusal { throw refusal }
        guard let edit = try removingLocation(fromMoov: file.moov) else { return nil }
        var edited = movie
        edited.replaceSubrange(file.moovBox.range, with: edit.moov)
        return (edited, edit.removed)
    }

    static func removingLocation(fromMoov moov: [UInt8]) throws -> (moov: [UInt8], removed: [String])? {
        var rewriter = try MoovRewriter(moov)
        try rewriter.removeLocation()
        guard !rewriter.removed.isEmpty else { return nil }
        // Read the result back before anyone writes it: it must parse and carry no location.
        var check = try MoovRewriter(rewriter.bytes)
        try check.removeLocation()
        guard check.removed.isEmpty else {
            throw MovieFileError("location remained after rewriting 'moov': \(check.removed.joined(separator: ", "))")
        }
        return (rewriter.bytes, rewriter.removed)
    }

    /// Copies `input` to `output`, then writes each patch's bytes over the copy at its offset.
    static func copy(_ input: String, to output: String, overwriting patches: [(offset: Int, bytes: [UInt8])]) throws {
        guard let reader = FileHandle(forReadingAtPath: input) else { throw MovieFileError("cannot open \(input)") }
        defer { try? reader.close() }
        // A file that cannot be created is a write failure (full, read-only), not a metadata one: its errno says which.
        let descriptor = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let writer = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? writer.close() }
        while let chunk = try reader.read(upToCount: 1 << 20), !chunk.isEmpty {
            try writer.write(contentsOf: chunk)
        }
        for patch in patches {
            try writer.seek(toOffset: UInt64(patch.offset))
            try writer.write(contentsOf: patch.bytes)
        }
    }
}
