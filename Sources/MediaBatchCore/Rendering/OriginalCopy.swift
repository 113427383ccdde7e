import AVFormatKit
import Foundation
import MetadataKit
import PipelineModel

/// An output that keeps the input's coded bytes: an image no stage changed a pixel of, with its
/// metadata edited where it sits by its own container (every copy, every part: gain maps, vendor
/// segments and trailers stay); a movie with its location removed in place, every track and
/// sample kept; or the file as it is when no edit changes anything.
enum OriginalCopy {
    /// Writes the copy to `path`; returns what was removed, for the report.
    static func write(_ item: ItemContext, editing edits: [Stage.StripMetadata], to path: String) throws -> [String] {
        if item.format.isVideo { return try writeMovie(item, editing: edits, to: path) }
        guard !edits.isEmpty, let container = item.format.row.container?.metadata else {
            try FileManager.default.copyItem(atPath: item.input.path, toPath: path)
            return []
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
        guard let written else {
            try FileManager.default.copyItem(atPath: item.input.path, toPath: path)
            return []
        }
        try Data(written.bytes).write(to: URL(fileURLWithPath: path))
        return written.dropped + removed
    }

    /// Whether location goes: under any `stripMetadata` that removes it (a keep-list always does).
    private static func removesLocation(_ edits: [Stage.StripMetadata]) -> Bool {
        edits.contains { if case .remove(let groups) = $0 { groups.contains(.location) } else { true } }
    }

    /// A movie loses its location under any `stripMetadata` that removes it. The edit is in place; libavformat then reads the result back: the same streams and
    /// duration, or the output is not published.
    private static func writeMovie(_ item: ItemContext, editing edits: [Stage.StripMetadata], to path: String) throws -> [String] {
        guard removesLocation(edits), case .video(let video, _)? = try? item.header.get().content else {
            try FileManager.default.copyItem(atPath: item.input.path, toPath: path)
            return []
        }
        let report: MovieLocationReport
        do {
            report = try MovieLocationEditor.writeWithoutLocation(from: item.input.path, to: path)
        } catch let error as MovieFileError {
            throw StageFailure(.unsupportedMetadata, "cannot remove location from this \(item.format.rawValue): \(error.message)")
        }
        let written = try? AVFormat.probe(path: path)
        guard let written, written.streams == video.streams, written.durationSeconds == video.durationSeconds else {
            throw StageFailure(.encodeFailed, "the edited movie does not read back with the same streams and duration")
        }
        return report.removed
    }
}
