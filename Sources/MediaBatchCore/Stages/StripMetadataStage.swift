import MediaFormats
import PipelineModel
import VipsKit

/// Removes metadata from what `write` will put in the output: the groups a pipeline names
/// (`stripLocation`: location only; everything else stays: camera, capture date, copyright, the
/// Live Photo content identifier), or, with a keep-list, everything but what it names.
///
/// A keep-list that drops the ICC profile or the orientation tag first makes the pixels what a
/// reader assumes without them: sRGB, and upright.
struct StripMetadataStage: PipelineStage {
    let options: Stage.StripMetadata
    var name: Stage.Name { .stripMetadata }
    var phase: StagePhase { .pixels }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard format != nil else { return }
        fingerprint.recipe.append(Stage.stripMetadata(options).fingerprint)
    }

    func run(_ item: ItemContext) throws {
        switch options {
        case .remove(let groups):
            for group in MetadataGroup.allCases where groups.contains(group) { item.metadata?.remove(group) }
            item.stripVideoLocation = item.video != nil && groups.contains(.location)
        case .keep(let kept):
            item.metadata?.keepOnly(kept)
            item.stripVideoLocation = item.video != nil
            try prepare(item, keepingICC: kept.contains(.icc), keepingOrientation: kept.contains(.orientation))
        }
    }

    private func prepare(_ item: ItemContext, keepingICC: Bool, keepingOrientation: Bool) throws {
        guard let image = item.image else { return }
        do {
            let upright = keepingOrientation ? image : try image.upright()
            item.image = keepingICC ? upright : try SRGB.converting(upright)
            // Variants are upright and sRGB already.
        } catch let error as VipsError {
            throw StageFailure(.decodeFailed, error.message)
        }
    }
}
