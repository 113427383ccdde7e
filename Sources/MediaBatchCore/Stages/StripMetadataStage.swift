import MediaFormats
import PipelineModel

/// Removes metadata from every output: the groups a pipeline names (`stripLocation`: location
/// only; everything else stays: camera, capture date, copyright, the Live Photo content
/// identifier), or, with a keep-list, everything but what it names. The edit is planned here and
/// applied by `write` to every copy of every block: in the file's own container, in place, when no
/// pixel changes (nothing else in the file moves or is encoded again); into the encoder's file
/// otherwise. A movie loses its location in either case.
///
/// A keep-list that drops the ICC profile or the orientation tag first makes the pictures what a
/// reader assumes without them: sRGB without a profile, and upright.
struct StripMetadataStage: PipelineStage {
    let options: Stage.StripMetadata
    var name: Stage.Name { .stripMetadata }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard format != nil else { return }
        fingerprint.recipe.append(Stage.stripMetadata(options).fingerprint)
    }

    /// A still copied with its metadata edited is held in memory twice, as read and as rewritten.
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        plan.metadataEdits.append(options)
        if !item.format.isVideo, plan.outputs.contains(where: { $0.isCopy(of: item.format) }) {
            plan.estimatedBytes = max(plan.estimatedBytes, CostEstimator.copyBytes + 2 * item.bytesIn)
        }
        guard case .keep(let kept) = options else { return }
        if !kept.contains(.icc) { plan.mapPictures { $0.withoutProfile() } }
        if !kept.contains(.orientation) { plan.mapPictures { $0.turnedUpright() } }
    }
}
