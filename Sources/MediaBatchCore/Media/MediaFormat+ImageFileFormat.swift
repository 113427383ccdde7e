import PipelineModel
import VipsKit

extension MediaFormat {
    /// How libvips reads and writes this format; nil for videos, which libavformat probes and
    /// mediabatch copies or edits in place.
    var imageFileFormat: ImageFileFormat? {
        switch self {
        case .jpeg: return .jpeg
        case .png: return .png
        case .gif: return .gif
        case .webp: return .webp
        case .tiff: return .tiff
        case .heic: return .heic
        case .avif: return .avif
        case .mov, .mp4, .threeGP: return nil
        }
    }
}
