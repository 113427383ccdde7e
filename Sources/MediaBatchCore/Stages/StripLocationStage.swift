import PipelineModel
import VipsKit

/// Removes location from the output: the EXIF GPS IFD always, and the XMP and IPTC blocks
/// whole when they carry location (surgical XMP/IPTC editing is a later step). The rest of EXIF
/// (Make, Model, DateTimeOriginal, Copyright) stays.
struct StripLocationStage: PipelineStage {
    var name: Stage.Name { .stripLocation }
    var readsPixels: Bool { true }

    func run(_ item: ItemContext) throws {
        guard let image = item.image else { return }
        let doomed = LocationMetadata.fieldsCarryingLocation(in: image.fieldNames, blob: image.blob)
        guard !doomed.isEmpty else { return }
        do {
            item.image = try image.removingFields(doomed)
        } catch let error as VipsError {
            throw StageFailure(.encodeFailed, "cannot remove location fields: \(error.message)")
        }
    }
}
