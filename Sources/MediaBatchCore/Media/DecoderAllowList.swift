import MediaFormats
import PipelineModel
import VipsKit

/// Starts libvips with only the loaders a pipeline's `input.formats` need: every other loader is
/// blocked, so a file reaches only the decoders the pipeline asked for. The process that reads
/// and encodes pixels (a worker for untrusted input, the run's own otherwise) also gets the
/// loaders and savers that libvips blocks as untrusted and the formats need (JPEG XL's,
/// ImageMagick's for BMP and PSD), by name; no other process has them.
enum DecoderAllowList {
    static func startLibvips(for formats: Set<MediaFormat>, encoding: Bool) throws {
        try Vips.start()
        let decoders = formats.compactMap(\.row.decoder)
        Vips.allowOnlyLoaders(for: decoders)
        guard encoding else { return }
        Vips.allowUntrustedLoaders(for: decoders)
        Vips.allowSavers(for: MediaFormat.outputs.compactMap { $0.row.encoder?.codec })
    }
}
