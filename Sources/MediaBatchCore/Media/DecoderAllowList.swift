import MediaFormats
import PipelineModel
import VipsKit

/// Starts libvips with only the loaders a pipeline's `input.formats` need: every other loader is
/// blocked, so a file reaches only the decoders the pipeline asked for. The process that encodes
/// (a worker for untrusted input, the run's own otherwise) also gets the savers the output formats
/// need that libvips blocks as untrusted (JPEG XL's), by name; no other process has them.
enum DecoderAllowList {
    static func startLibvips(for formats: Set<MediaFormat>, encoding: Bool) throws {
        try Vips.start()
        Vips.allowOnlyLoaders(for: formats.compactMap(\.row.decoder))
        if encoding { Vips.allowSavers(for: MediaFormat.outputs.compactMap { $0.row.encoder?.codec }) }
    }
}
