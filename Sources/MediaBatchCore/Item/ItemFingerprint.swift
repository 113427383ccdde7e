/// What an item's outputs and its selection depend on, stage by stage: the state database keeps
/// a hash of each and redoes the item when either changes.
struct ItemFingerprint {
    /// What shapes every output: mediabatch's output version, libvips' version, each stage that applies.
    var recipe: [String]
    /// What decides which outputs there are (`variants`' sizes and formats): when only this
    /// changes, outputs whose own recipe is unchanged are kept.
    var outputs: [String] = []
    /// What decides whether the item is selected: the filter.
    var selection: [String] = []
}
