import MediaFormats
import PipelineModel

extension StageName {
    public static let filter = StageName("filter")
}

/// Skips items the pipeline's `match` expression does not select (skipped is not failed). A
/// Live Photo's movie that `match` does not select goes along when its still is selected,
/// unless the pipeline says `"livePhotoVideo": "drop"`. Reads headers only; comes before
/// `decode`, which opens what it selects.
struct FilterStage: PipelineStage, Equatable {
    var match: MediaMatch
    /// What happens to a Live Photo's movie that `match` does not select when its still is selected.
    var livePhotoVideo: LivePhotoVideo = .keepWithStill

    enum LivePhotoVideo: String, CaseIterable, Sendable {
        /// The movie goes along, written next to its still's output under the same stem.
        case keepWithStill
        /// Only the still goes; the movie is filtered out.
        case drop
    }

    enum Keys {
        static let match = Key("match", .mediaMatch, .required, "What the item must be: a media kind, a predicate, or any/all/not of them.")
        static let livePhotoVideo = Key("livePhotoVideo", ValueSyntax<LivePhotoVideo>.choice("what to do with a Live Photo's movie"),
                                        .value(.keepWithStill), "A Live Photo's movie that match does not select: keepWithStill goes "
                                            + "along with its selected still, drop filters it out.")
    }

    static let syntax = [StageSyntax(
        spelling: "filter",
        help: "Keeps the items that match; the others are skipped, not failed. Reads headers only; comes before decode.",
        options: [Keys.match.described, Keys.livePhotoVideo.described]) { object in
            FilterStage(match: try object.value(Keys.match), livePhotoVideo: try object.value(Keys.livePhotoVideo))
        }]

    static let placement = StagePlacement(rules: [.before(.decode), .notAfterLast])

    var fingerprint: String { "filter(\(match.fingerprint),livePhotoVideo=\(livePhotoVideo.rawValue))" }

    /// The filter decides whether an item is written, not how: its selection, whatever the format.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        fingerprint.selection.append(self.fingerprint)
    }

    func check(_ item: ItemContext) throws {
        guard !match.matches(item.facts) else { return }
        if livePhotoVideo == .keepWithStill, let pair = item.input.livePhoto, pair.role == .video,
           item.stillFacts.map(match.matches) == true {
            return
        }
        let kinds = MediaKind.allCases.filter(item.facts.kinds.contains).map(\.rawValue)
        throw ItemSkipped(reason: "filtered out (\(item.format.rawValue): \(kinds.joined(separator: ", ")))")
    }
}
