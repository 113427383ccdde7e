import PipelineModel

/// What an item will become, decided from its header before any pixel is decoded. Each stage
/// adds its part in pipeline order (`decode` the cost of decoding, `downsample` a smaller one,
/// `transcode` the format, `write` the path); the run claims the planned paths and reserves the
/// estimate before admitting the item, and `write` writes exactly what was planned.
struct ItemPlan: Codable, Equatable, Sendable {
    /// Peak memory the item's pixel stages are expected to need.
    var estimatedBytes: Int
    /// What the item is written as: one output per item today, and room for several.
    var outputs: [PlannedOutput]

    /// Before any stage has said otherwise: the item as it is, copied byte for byte.
    init(format: MediaFormat) {
        estimatedBytes = CostEstimator.copyBytes
        outputs = [PlannedOutput(format: format, quality: Defaults.quality)]
    }

    /// Where `write` will publish the outputs, relative to the output root.
    var paths: [String] { outputs.compactMap(\.path) }
}

struct PlannedOutput: Codable, Equatable, Sendable {
    var format: MediaFormat
    /// For the lossy encoders (JPEG, WebP, HEIF).
    var quality: Int
    /// Relative to the output root; nil until `write` places it (without a `write`, no output).
    var path: String?
}
