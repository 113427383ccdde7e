import PipelineModel

/// Removes the metadata groups the pipeline names (`stripLocation`: location only) from what
/// `write` will put in the output. Everything not named stays: camera, capture date,
/// copyright, the Live Photo content identifier.
struct StripMetadataStage: PipelineStage {
    let groups: Set<MetadataGroup>
    var name: Stage.Name { .stripMetadata }
    var phase: StagePhase { .pixels }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard format != nil else { return }
        fingerprint.recipe.append(Stage.stripMetadata(groups).fingerprint)
    }

    func run(_ item: ItemContext) throws {
        if var metadata = item.metadata {
            for group in MetadataGroup.allCases where groups.contains(group) {
                metadata.remove(group)
            }
            item.metadata = metadata
            item.removedMetadata = metadata.removed
        }
        if item.video != nil, groups.contains(.location) {
            item.stripVideoLocation = true
        }
    }
}
