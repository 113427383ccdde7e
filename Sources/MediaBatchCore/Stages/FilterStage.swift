import PipelineModel

/// Skips items the pipeline's `match` expression does not select. Skipped is not failed.
struct FilterStage: PipelineStage {
    let match: MediaMatch
    var name: Stage.Name { .filter }
    var readsPixels: Bool { false }

    func run(_ item: ItemContext) throws {
        guard !match.matches(.init(format: item.format)) else { return }
        item.skip("filtered out (\(item.format.rawValue))")
    }
}
