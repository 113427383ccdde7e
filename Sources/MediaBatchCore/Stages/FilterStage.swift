import MediaFormats
import PipelineModel

/// Skips items the pipeline's `match` expression does not select (skipped is not failed). A
/// Live Photo's movie that `match` does not select goes along when its still is selected,
/// unless the pipeline says `"livePhotoVideo": "drop"`.
struct FilterStage: PipelineStage {
    let filter: Stage.Filter
    var name: Stage.Name { .filter }

    /// The filter decides whether an item is written, not how: its selection, whatever the format.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        fingerprint.selection.append(Stage.filter(filter).fingerprint)
    }

    func check(_ item: ItemContext) throws {
        guard !filter.match.matches(item.facts) else { return }
        if filter.livePhotoVideo == .keepWithStill, let pair = item.input.livePhoto, pair.role == .video,
           stillFacts(pair, of: item).map(filter.match.matches) == true {
            return
        }
        let kinds = MediaKind.allCases.filter(item.facts.kinds.contains).map(\.rawValue)
        throw ItemSkipped(reason: "filtered out (\(item.format.rawValue): \(kinds.joined(separator: ", ")))")
    }

    /// Nil when the still has vanished since it was paired.
    private func stillFacts(_ pair: LivePhotoPair, of movie: ItemContext) -> MediaFacts? {
        let still = InputItem(root: movie.input.root, relativePath: pair.partner, livePhoto: LivePhotoPair(
            role: .still, partner: movie.input.relativePath, contentIdentifier: pair.contentIdentifier))
        guard let format = (try? FormatSniffer.format(of: still.path)) ?? nil else { return nil }
        return MediaClassifier.facts(of: still, format: format, header: try? ItemHeader(path: still.path, format: format))
    }
}
