import PipelineModel
import VipsKit

/// The libvips loaders a pipeline's `input.formats` need; every other loader is blocked.
enum DecoderAllowList {
    static func loaderClasses(for formats: Set<MediaFormat>) -> [String] {
        formats.compactMap { format -> String? in
            switch format {
            case .jpeg: return "VipsForeignLoadJpeg"
            case .png: return "VipsForeignLoadPng"
            case .gif: return "VipsForeignLoadNsgif"
            case .webp: return "VipsForeignLoadWebp"
            case .tiff: return "VipsForeignLoadTiff"
            case .heic, .avif: return "VipsForeignLoadHeif"
            case .mov, .mp4, .threeGP: return nil // probed by libavformat, never decoded
            }
        }.sorted()
    }

    /// Starts libvips for this pipeline's formats.
    static func startLibvips(for formats: Set<MediaFormat>) throws {
        try Vips.start()
        Vips.allowOnlyLoaders(loaderClasses(for: formats))
    }
}
