import PipelineModel
import VipsKit

/// Starts libvips with only the loaders a pipeline's `input.formats` need: every other loader is
/// blocked, so a file reaches only the decoders the pipeline asked for.
enum DecoderAllowList {
    static func startLibvips(for formats: Set<MediaFormat>) throws {
        try Vips.start()
        Vips.allowOnlyLoaders(for: formats.compactMap(\.imageFileFormat))
    }
}
