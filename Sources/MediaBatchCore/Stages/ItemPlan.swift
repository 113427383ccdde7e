import MediaFormats
import PipelineModel

/// What an item will become, decided from its header before any pixel is decoded. Each stage
/// adds its part in pipeline order (`decode` the cost of decoding, `downsample` a smaller one,
/// `transcode` the format, `variants` every size and format, `write` the paths); the run claims
/// the planned paths and reserves the estimate before admitting the item, and `write` writes
/// exactly what was planned.
struct ItemPlan: Codable, Equatable, Sendable {
    /// Peak memory the item's pixel stages are expected to need.
    var estimatedBytes: Int
    /// What the item is written as: one output unless `variants` plans several.
    var outputs: [PlannedOutput]
    /// An image's size as it is shown (orientation applied), from its header.
    var upright: PixelSize?

    /// Before any stage has said otherwise: the item as it is, copied byte for byte.
    init(format: MediaFormat) {
        estimatedBytes = CostEstimator.copyBytes
        outputs = [PlannedOutput(format: format, quality: Defaults.keptFormatQuality, effort: format.effort?.default)]
    }

    /// Where `write` will publish the outputs, relative to the output root.
    var paths: [String] { outputs.compactMap(\.path) }
}

struct PlannedOutput: Codable, Equatable, Sendable {
    var format: MediaFormat
    /// For the lossy encoders (JPEG, WebP, HEIF, AVIF).
    var quality: Int
    /// For the encoders with an effort worth choosing (WebP, AVIF).
    var effort: Int?
    /// Relative to the output root; nil until `write` places it (without a `write`, no output).
    var path: String?
    /// Set by `variants`: the size as listed and the exact pixels the output will have.
    var variant: Variant?
    /// Set by the header phase when an earlier run wrote this very output from the same recipe
    /// and it is still as written: `write` leaves it alone.
    var reused = false

    struct Variant: Codable, Hashable, Sendable {
        let size: Int
        let pixels: PixelSize
    }

    /// What shapes this output beyond what every output of the item shares, for the state
    /// database: an output is reused only when this and the shared recipe are unchanged.
    var spec: String {
        let variantPart = variant.map { " size \($0.size) \($0.pixels.width)x\($0.pixels.height)" } ?? ""
        return "\(format.rawValue) q\(quality)\(effort.map { " effort \($0)" } ?? "")\(variantPart)"
    }
}

struct PixelSize: Codable, Equatable, Hashable, Sendable {
    let width: Int
    let height: Int

    var longestSide: Int { max(width, height) }

    /// Scaled so that the longest side is `longestSide`, each side at least 1 pixel.
    func fitting(longestSide target: Int) -> PixelSize {
        let scale = Double(target) / Double(longestSide)
        func side(_ value: Int) -> Int { value == longestSide ? target : max(1, Int((Double(value) * scale).rounded())) }
        return PixelSize(width: side(width), height: side(height))
    }
}
