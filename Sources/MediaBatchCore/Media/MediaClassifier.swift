import LibAVKit
import Foundation
import MediaFormats
import MetadataKit
import PipelineModel
import VipsKit

/// Turns an item's headers into the facts a filter decides on: its kinds, location, size,
/// capture date and camera. Nothing here decodes pixels; the "Media kinds" table in
/// docs/pipeline.md lists the same evidence.
enum MediaClassifier {
    static func facts(of input: InputItem, format: MediaFormat, header: ItemHeader?) -> MediaFacts {
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
            let tagged = movie?.creationDate.flatMap(ISODate.parseWithOffset) ?? movie?.creationTime.map { ($0, nil) }
            facts.capture = tagged.map { .init(date: $0.date, source: .metadata, utcOffsetSeconds: $0.utcOffsetSeconds) }
        case nil:
            break
        }
        if facts.capture == nil, let modified = try? FileManager.default.attributesOfItem(atPath: input.path)[.modificationDate] as? Date {
            facts.capture = .init(date: modified, source: .fileModified,
                                  utcOffsetSeconds: TimeZone.current.secondsFromGMT(for: modified))
        }
        return facts
    }
}

extension MediaFacts {
    /// What a still's metadata says: location, camera, capture date.
    fileprivate mutating func read(_ metadata: ImageMetadata) {
        hasLocation = !metadata.locationSources.isEmpty
        make = metadata.exif?.string(ExifTag.make, in: .ifd0)
        model = metadata.exif?.string(ExifTag.model, in: .ifd0)
        capture = metadata.captureDateText.flatMap(ISODate.parseWithOffset).map {
            .init(date: $0.date, source: .metadata, utcOffsetSeconds: $0.utcOffsetSeconds)
        }
    }
}
