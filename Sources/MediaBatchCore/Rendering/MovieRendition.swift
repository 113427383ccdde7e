import LibAVKit
import PipelineModel
import RunState

/// A movie's web rendition, written by LibAVKit to a temporary path: the `video` stage's settings
/// as LibAVKit takes them, the container's tags that a rendition keeps (see `RenditionTags`), and
/// LibAVKit's failures as the item's.
enum MovieRendition {
    struct Written {
        let contentHash: String
        /// RFC 6381's name of its video, for `<source type=…>`.
        let codecs: String?
    }

    /// A rendition a killed run finished is taken from `cache` as it is; a new one is kept there
    /// until the movie's other outputs are made.
    static func write(_ item: ItemContext, _ rendition: VideoRendition, editing edits: [MetadataEdit], to path: String,
                      cache: RenditionCache) throws -> Written {
        if !cache.take(item, rendition, to: path) {
            do {
                let codec = rendition.rendition.codec.rawValue, input = item.input.relativePath
                _ = try LibAV.rendition(of: item.input.path, to: path, settings(rendition), keepTag: { RenditionTags.keeps($0, editing: edits) },
                                        progress: { done, total in
                                            ItemProgress.shared.report(.init(item: input, work: codec, done: done, total: total))
                                        })
            } catch {
                throw StageFailure(error.code == .encodeFailed ? .encodeFailed : .decodeFailed,
                                   "cannot make the \(rendition.rendition.codec.rawValue) rendition: \(error)")
            }
            cache.keep(item, rendition, finished: path)
        }
        return Written(contentHash: try ContentHash.ofFile(atPath: path), codecs: LibAV.codecsParameter(of: path))
    }

    /// What the movie had that no rendition carries, for the report: its location keys.
    static func removed(from item: ItemContext) -> [String] {
        let dropped = ((try? LibAV.tags(of: item.input.path)) ?? []).map(\.0).filter(RenditionTags.isLocation)
        return dropped.isEmpty ? [] : ["QuickTime location (\(dropped.joined(separator: ", ")))"]
    }

    private static func settings(_ planned: VideoRendition) -> RenditionSettings {
        let rendition = planned.rendition
        return RenditionSettings(codec: RenditionSettings.Codec(rawValue: rendition.codec.rawValue)!, crf: rendition.quality,
                                 maxPixelSize: planned.maxPixelSize, maxFps: planned.maxFps,
                                 audio: RenditionSettings.Audio(rawValue: rendition.audio.rawValue)!, keepHDR: rendition.hdr == .keep,
                                 copyWhereFits: planned.reencode == .needed)
    }
}

/// Which of a movie's container tags (as libavformat names them) a rendition keeps: its date,
/// camera, copyright and Live Photo identifier, as `stripMetadata` leaves them; never its
/// location; nothing technical (brands, encoder, handlers: the rendition's own are written).
enum RenditionTags {
    static let byKind: [KeptMetadata: Set<String>] = [
        .date: ["creation_time", "date", "com.apple.quicktime.creationdate"],
        .camera: ["make", "model", "com.apple.quicktime.make", "com.apple.quicktime.model", "com.apple.quicktime.software",
                  "com.android.manufacturer", "com.android.model", "com.android.version"],
        .copyright: ["copyright", "com.apple.quicktime.copyright"],
        .livePhoto: ["com.apple.quicktime.content.identifier"],
    ]

    static func keeps(_ key: String, editing edits: [MetadataEdit]) -> Bool {
        guard let kind = byKind.first(where: { $0.value.contains(key) })?.key else { return false }
        return edits.allSatisfy { edit in
            switch edit {
            case .keep(let kept): return kept.contains(kind)
            // Apple's MakerNote holds a Live Photo's identifier in the still: the movie's goes with it.
            case .remove(let groups): return !(kind == .livePhoto && groups.contains(.makerNotes))
            }
        }
    }

    /// QuickTime's location keys and atoms as libavformat names them (`©xyz` is `location`).
    static func isLocation(_ key: String) -> Bool {
        key.hasPrefix("location") || key.hasPrefix("com.apple.quicktime.location")
    }
}
