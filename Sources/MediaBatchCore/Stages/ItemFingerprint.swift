/// What an item's outputs and its selection depend on, stage by stage: the state database keeps
/// a hash of each and redoes the item when either changes.
struct ItemFingerprint {
    /// What shapes the outputs: mediabatch's output version, libvips' version, each stage that applies.
    var recipe: [String]
    /// What decides whether the item is selected: the filter.
    var selection: [String] = []
}
