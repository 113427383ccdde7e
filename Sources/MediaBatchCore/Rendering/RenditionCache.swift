import Foundation
import LibAVKit
import RunState

/// Renditions finished for a movie whose other outputs are not, kept under the output root
/// (`.mediabatch/renditions/SHARD/`) until the movie's files are published: a run killed while a
/// movie's second rendition was encoding does not encode its first again. Each is named by the
/// input's hash and the rendition's recipe, and is a hard link to the finished file (no copy),
/// removed when the movie fails or once its file is published (`StagedFile.keptCopy`).
struct RenditionCache {
    let folder: URL

    /// Where `rendition` of `item` is kept.
    func path(_ item: ItemContext, _ rendition: VideoRendition) -> String? {
        guard !item.contentHash.isEmpty else { return nil } // a dry run's, which writes nothing
        let key = ContentHash.of(item.contentHash + " " + rendition.fingerprint)
        return folder.appending(path: "\(key).\(rendition.rendition.codec.container.fileExtension)").path
    }

    /// Links the rendition kept from a killed run to `destination`; false when there is none, or
    /// what is there does not read as a movie.
    func take(_ item: ItemContext, _ rendition: VideoRendition, to destination: String) -> Bool {
        guard let kept = path(item, rendition), FileManager.default.fileExists(atPath: kept), (try? LibAV.probe(path: kept)) != nil else { return false }
        unlink(destination)
        return link(kept, destination) == 0
    }

    /// Keeps the finished rendition at `finished` until `forget`.
    func keep(_ item: ItemContext, _ rendition: VideoRendition, finished: String) {
        guard let kept = path(item, rendition) else { return }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        unlink(kept)
        link(finished, kept)
    }

    /// The movie failed: what was kept for it goes — unless it failed because the process is
    /// exiting (a worker whose run was killed), when it is the rerun's.
    func forget(_ item: ItemContext, _ renditions: [VideoRendition]) {
        TemporaryFiles.shared.unlessExiting {
            for rendition in renditions { if let kept = path(item, rendition) { unlink(kept) } }
        }
    }
}
