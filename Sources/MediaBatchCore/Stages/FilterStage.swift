import PipelineModel

/// Skips items the pipeline's `match` expression does not select (skipped is not failed). A
/// Live Photo's movie that `match` does not select goes along when its still is selected,
/// unless the pipeline says `"livePhotoVideo": "drop"`.
struct FilterStage: PipelineStage {
    let filter: Stage.Filter
    var name: Stage.Name { .filter }
    var readsPixels: Bool { false }

    func run(_ item: ItemContext) throws {
        guard !filter.match.matches(item.facts) else { return }
        if filter.livePhotoVideo == .keepWithStill, let pair = item.input.livePhoto, pair.role == .video,
           filter.match.matches(stillFacts(pair, of: item)) {
            return
        }
        let kinds = MediaKind.allCases.filter(item.facts.kinds.contains).map(\.rawValue)
        item.skip("filtered out (\(item.format.rawValue): \(kinds.joined(separator: ", ")))")
    }

    private func stillFacts(_ pair: LivePhotoPair, of movie: ItemContext) -> MediaFacts {
        let still = InputItem(root: movie.input.root, relativePath: pair.partner, livePhoto: LivePhotoPair(
            role: .still, partner: movie.input.relativePath, contentIdentifier: pair.contentIdentifier))
        // The still was sniffed when it was paired; it can only have vanished since.
        let format = (try? FormatSniffer.format(of: still.path)) ?? nil
        guard let format else { return MediaFacts(relativePath: still.relativePath, format: .jpeg, kinds: []) }
        return MediaClassifier.facts(of: still, format: format, header: try? ItemHeader(path: still.path, format: format))
    }
}
