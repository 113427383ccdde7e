import MediaFormats
import MetadataKit
import PipelineModel

/// Container structure libvips does not expose: a HEIF's auxiliary images and groups, a JPEG's
/// MPF images and trailer, an APNG's frame count.
enum ImageStructure {
    case heif(HEIFStructure)
    case jpeg(JPEGStructure)
    case png(PNGStructure)
    /// Not a container with more to say, or one whose structure could not be read (the
    /// header libvips read is what counts; classification then has less evidence).
    case none

    init(path: String, format: MediaFormat) {
        switch format {
        case .heic, .avif: self = (try? HEIFStructure(path: path)).map(ImageStructure.heif) ?? .none
        case .jpeg: self = (try? JPEGStructure(path: path)).map(ImageStructure.jpeg) ?? .none
        case .png: self = (try? PNGStructure(path: path)).map(ImageStructure.png) ?? .none
        default: self = .none
        }
    }
}

extension ImageStructure {
    /// The HDR gain map the file carries for its primary image, read from its structure alone.
    var gainMap: GainMapKind? {
        switch self {
        case .jpeg(let jpeg): return jpeg.gainMapKind
        case .heif(let heif): return heif.gainMapKind
        case .png, .none: return nil
        }
    }
}
