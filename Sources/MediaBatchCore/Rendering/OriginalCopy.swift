import LibAVKit
import Foundation
import MetadataKit
import PipelineModel
import RunState

/// An output that keeps the input's coded bytes: an image no stage changed a pixel of, with its
/// metadata edited where it sits by its own container (every copy, every part: gain maps, vendor
/// segments and trailers stay); a movie with its location removed in place, every track and
/// sample kept; or the file as it is when no edit changes anything.
enum OriginalCopy {
    /// What a copy removed, for the report, and the SHA-256 of what was written (nil where it
    /// would take reading the file again: an edited movie).
    struct Written {
        let removed: [String]
        let contentHash: String?
    }

    /// Writes the copy to `path`.
    static func write(_ item: ItemContext, editing edits: [MetadataEdit], to path: String) throws -> Written {
        if item.format.isVideo { return try writeMovie(item, editing: edits, to: path) }
        guard !edits.isEmpty else { return try copy(item, to: path) }
        guard let container = item.format.row.container?.metadata.blocks else {
            // A copy of a PSD or an ORF would keep what the edit removes.
            guard !item.format.row.keepsUneditableMetadata else {
                throw StageFailure(.unsupportedMetadata, "cannot edit the metadata of a \(item.format.rawValue) in place: "
                                                         + "mediabatch has no editor for its container")
            }
            return try copy(item, to: path)
        }
        var removed: [String] = []
        let written: MetadataWriting?
        do {
            written = try container.rewritingMetadata(path: item.input.path, editing: BlockEdit(removesLocation: removesLocation(edits)) { blocks in
                var copy = ImageMetadata(blocks: blocks)
                copy.apply(edits)
                blocks = copy.blocks
                removed += copy.removed
            })
        } catch let error as MetadataFormatError {
            throw StageFailure(.unsupportedMetadata, "cannot edit the metadata of this \(item.format.rawValue) in place: \(error.message)")
        }
        guard let written else { return try copy(item, to: path) }
        try FileWriting.write(written.bytes, to: path)
        return Written(removed: written.dropped + removed, contentHash: ContentHash.of(bytes: written.bytes))
    }

    /// The file as it is: its hash is the input's.
    private static func copy(_ item: ItemContext, to path: String) throws -> Written {
        try FileWriting.copy(item.input.path, to: path)
        return Written(removed: [], contentHash: item.contentHash.isEmpty ? nil : item.contentHash)
    }

    /// Whether location goes: under any `stripMetadata` that removes it (a keep-list always does).
    private static func removesLocation(_ edits: [MetadataEdit]) -> Bool {
        edits.contains(where: \.removesLocation)
    }

    /// A movie loses its location under any `stripMetadata` that removes it, where its container
    /// carries one (QuickTime's `moov`, Matroska's tags; AVI, MPEG and ASF have no place for it:
    /// copied as they are). The edit is in place; libavformat then reads the result back: the
    /// same streams and duration, or the output is not published.
    private static func writeMovie(_ item: ItemContext, editing edits: [MetadataEdit], to path: String) throws -> Written {
        guard removesLocation(edits), let container = item.format.row.container?.metadata.movie,
              let video = item.video else { return try copy(item, to: path) }
        let report: MovieLocationReport
        do {
            report = try container.writeWithoutLocation(from: item.input.path, to: path)
        } catch let error as MovieFileError {
            throw StageFailure(.unsupportedMetadata, "cannot remove location from this \(item.format.rawValue): \(error.message)")
        }
        let written = try? LibAV.probe(path: path)
        guard let written, written.streams == video.streams, written.durationSeconds == video.durationSeconds else {
            throw StageFailure(.encodeFailed, "the edited movie does not read back with the same streams and duration")
        }
        return Written(removed: report.removed, contentHash: nil)
    }
}
