import LibAVKit
import Foundation
import MediaFormats
import MetadataKit
import PipelineModel
import VipsKit

/// Turns an item's headers (and the files beside it) into the facts a filter decides on: its
/// kinds, location, size, capture time and camera. Nothing here decodes pixels; the "Media kinds"
/// table in docs/pipeline.md lists the same evidence.
enum MediaClassifier {
    static func facts(of input: InputItem, format: MediaFormat, header: ItemHeader?, sidecars: SidecarFacts = .none,
                      timeZone: TimeZone? = nil) -> MediaFacts {
        var facts = MediaFacts(relativePath: input.relativePath, format: format, kinds: [format.isVideo ? .videos : .images])
        if input.livePhoto != nil { facts.kinds.insert(.livePhotos) }
        switch header?.content {
        case .image(let image, let metadata, let structure)?:
            let evidence = ImageEvidence(path: input.path, image: image, metadata: metadata, structure: structure, format: format)
            facts.kinds.formUnion(evidence.kinds)
            facts.read(metadata)
            facts.hasGainMap = structure.gainMap != nil
            facts.width = image.width
            facts.height = image.height
        case .cameraRaw(let raw, let metadata, _)?:
            facts.kinds.insert(.rawPhotos)
            facts.read(metadata)
            // As stored, as an image's are: what a full develop makes before it is turned.
            facts.width = try? raw.get().developed.width
            facts.height = try? raw.get().developed.height
        case .video(let probe, let movie)?:
            facts.kinds.formUnion(VideoEvidence(probe: probe, movie: movie).kinds)
            facts.hasLocation = format.row.container?.metadata.movie?.carriesLocation(path: input.path, header: movie) ?? false
            facts.width = probe.width
            facts.height = probe.height
            facts.make = movie?.make
            facts.model = movie?.model
        case nil:
            break
        }
        facts.hasLocation = facts.hasLocation || sidecars.placePhoto
        facts.capture = CaptureTime(sidecarText: sidecars.captured, takeout: sidecars.takenAt)
            .capture(of: input, header: header, timeZone: timeZone)
        return facts
    }
}

extension MediaFacts {
    /// What a still's metadata says: location, camera.
    fileprivate mutating func read(_ metadata: ImageMetadata) {
        hasLocation = !metadata.locationSources.isEmpty
        make = metadata.exif?.string(ExifTag.make, in: .ifd0)
        model = metadata.exif?.string(ExifTag.model, in: .ifd0)
    }
}
