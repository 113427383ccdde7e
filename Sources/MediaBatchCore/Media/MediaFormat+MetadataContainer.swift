import MetadataKit
import PipelineModel

extension MediaFormat {
    /// Where this format keeps EXIF, XMP and IPTC, read from inputs and written into outputs;
    /// nil where mediabatch reads and writes none (GIF, and videos, which are edited in place).
    var metadataContainer: MetadataContainer.Type? {
        switch self {
        case .jpeg: return JPEGMetadata.self
        case .png: return PNGMetadata.self
        case .webp: return WebPMetadata.self
        case .tiff: return TIFFMetadata.self
        case .heic, .avif: return HEIFMetadata.self
        case .gif, .mov, .mp4, .threeGP: return nil
        }
    }
}
