import MediaFormats
import PipelineModel

extension StageName {
    public static let downsample = StageName("downsample")
}

/// Fits pictures to a box as the fit says (by default within `maxPixelSize` on their longest
/// side), never upscaling, with the orientation applied first (EXIF for JPEG, irot/imir for
/// HEIF). A picture that already fits and is stored upright is left as it is, and so is copied
/// rather than encoded again. libvips shrinks on load, so a 48 MP JPEG is never fully decoded to
/// make a 2048 px one, nor a crop of one.
struct DownsampleStage: PipelineStage, Equatable {
    /// `maxPixelSize` N is the box N × N.
    var box: Box
    var fit = Fit()

    enum Keys {
        static let maxPixelSize = Key("maxPixelSize", .positiveInteger, .noDefault,
                                      "The box maxPixelSize × maxPixelSize: with fit inside, the longest side's maximum, in pixels. Not with width or height.")
        static let width = Key("width", .positiveInteger, .noDefault, "The box's width, in pixels; alone, images are scaled to it.")
        static let height = Key("height", .positiveInteger, .noDefault, "The box's height, in pixels; alone, images are scaled to it.")

        /// maxPixelSize, or width and/or height.
        static let rules: [String: JSONValue] = [
            "anyOf": .array([maxPixelSize, width, height].map { ["required": [.string($0.name)]] }),
            "not": ["required": [.string(maxPixelSize.name)], "anyOf": [["required": [.string(width.name)]], ["required": [.string(height.name)]]]],
        ]
    }

    static let syntax = [StageSyntax(
        spelling: "downsample",
        help: "Fits images to a box (maxPixelSize, or width and/or height) as fit says, never upscaling; orientation applied first.",
        options: [Keys.maxPixelSize.described, Keys.width.described, Keys.height.described] + FitKeys.described,
        rules: Keys.rules.merging(FitKeys.rules) { _, new in new }) { object in
            let side = try object.optionalValue(Keys.maxPixelSize)
            let width = try object.optionalValue(Keys.width), height = try object.optionalValue(Keys.height)
            let fit = try object.fit()
            if side != nil, let other = object.optional(width != nil ? Keys.width.name : Keys.height.name) {
                throw other.fail("maxPixelSize is the box maxPixelSize × maxPixelSize: give it, or width and height, not both")
            }
            guard let box = side.map({ Box(width: $0, height: $0) }) ?? (width ?? height).map({ _ in Box(width: width, height: height) }) else {
                throw object.reader.fail("expected \"maxPixelSize\", \"width\" or \"height\": the box images are fitted to")
            }
            return DownsampleStage(box: box, fit: fit)
        }]

    static let placement = StagePlacement(rules: [.after(.decode), .notAfterLast], shapesPictures: true, needsLast: true)

    /// A square box fitted inside is `maxPixelSize` and has its text, so pipelines that name no
    /// other box or fit keep the fingerprint their items were recorded with.
    var fingerprint: String {
        if let side = box.width, box.height == side, fit == Fit() { return "downsample(\(side))" }
        return "downsample(width=\(box.width.map(String.init) ?? "*"),height=\(box.height.map(String.init) ?? "*")\(fit.fingerprint))"
    }

    func explanation(among stages: [any Stage]) -> String? {
        let box = [box.width.map { "width \($0)" }, box.height.map { "height \($0)" }].compactMap { $0 }.joined(separator: " × ")
        return "\(box) px, \(fit.explanation); never upscaled, upright"
    }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format else { return }
        // A movie's poster is one output of several: the movie's own stays when only this changes.
        if format.isVideo { fingerprint.outputs.append(self.fingerprint) } else {
            fingerprint.recipe.append(self.fingerprint)
        }
    }

    /// Shrinking on load lowers the cost of decoding (see `CostEstimator`).
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        guard plan.outputs.contains(where: { $0.picture != nil }) else { return }
        plan.mapPictures { $0.fitted(in: box, fit) }
        // A poster's cost is `PosterStage`'s.
        guard let header = item.costHeader(plan) else { return }
        plan.estimatedBytes = CostEstimator.estimate(image: header,
                                                     maxPixelSize: plan.outputs.compactMap { $0.picture?.scaled.longestSide }.max())
    }
}
