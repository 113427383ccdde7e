import MediaFormats
import PipelineModel

extension StageName {
    public static let variants = StageName("variants")
}

/// One decode, many outputs: every listed size in every listed format, upright, in sRGB, fitted
/// to its box as the fit says, never upscaled. Sizes that would give an image the same output
/// (with `inside`, those at or above its longest side) collapse into one, under the smallest.
///
/// `write` decodes the largest variant once from the file (shrinking on load where the format
/// allows) and keeps it in memory; each smaller one is resized from the one above it: one
/// decode for every size costs less than one per size, and stays within a level of a direct
/// `vips_thumbnail` of each (bench/README.md, "Variants").
struct VariantsStage: PipelineStage, Equatable {
    /// Each variant's box, as listed; never upscaled.
    var sizes: [VariantSize]
    /// Each one of `MediaFormat.outputs`.
    var formats: [MediaFormat]
    /// The quality of each lossy format among `formats`.
    var quality: [MediaFormat: Int]
    /// The effort of each format among `formats` that has one.
    var effort: [MediaFormat: Int]
    /// None unless asked for.
    var placeholder: Placeholder?
    /// What becomes of a gain map, in every variant.
    var hdr = Defaults.hdr
    /// How every size is fitted to its box.
    var fit = Fit()

    /// A tiny preview of each item for the manifest, shown blurred while the real image loads.
    enum Placeholder: String, CaseIterable, Codable, Sendable {
        case thumbhash
    }

    enum Keys {
        static let sizes = Key("sizes", ValueSyntax<VariantSize>.variantSize.distinctList(of: "size"), .required,
                               "Each variant's box: a number N (N × N: with fit inside, the longest side) or {\"width\": W, \"height\": H} "
                               + "({size} is then WxH); sizes that would give an image the same output collapse into one.")
        static let formats = Key("formats", ValueSyntax<MediaFormat>.choice("an output format", from: MediaFormat.outputs).distinctList(of: "format"),
                                 .required, "Every size is written in every one of these formats.")
        static let quality = Key("quality", .perFormat("a lossy format", MediaFormat.outputs.filter(\.isLossy)) { .integer(in: $0.quality!.range) },
                                 .noDefault, "Quality of each lossy format among formats; by default \(FormatTable.defaults(\.quality)).")
        static let effort = Key("effort", .perFormat("a format with an effort", MediaFormat.outputs.filter { $0.effort != nil }) {
                                    .integer(in: $0.effort!.range)
                                }, .noDefault, "Encoder CPU effort of \(FormatTable.ranges(\.effort)) among formats (by default "
                                    + "\(FormatTable.defaults(\.effort))): lower is faster, with larger files.")
        static let placeholder = Key("placeholder", ValueSyntax<Placeholder>.choice("a placeholder"), .noDefault,
                                     "thumbhash: a ThumbHash of each item in the manifest, for blurred previews.")
    }

    static let syntax = [StageSyntax(
        spelling: "variants",
        help: "One decode, many outputs: every size in every format, upright, sRGB, never upscaled; in place of downsample and transcode.",
        options: [Keys.sizes.described, Keys.formats.described, Keys.quality.described,
                  Keys.effort.described, Keys.placeholder.described, HDRKeys.hdr.described] + FitKeys.described,
        rules: FitKeys.rules) { object in
            let formats = try object.value(Keys.formats)
            return VariantsStage(sizes: try object.value(Keys.sizes), formats: formats,
                                 quality: try perFormat(object, Keys.quality, of: formats, default: \.quality),
                                 effort: try perFormat(object, Keys.effort, of: formats, default: \.effort),
                                 placeholder: try object.optionalValue(Keys.placeholder), hdr: try object.value(HDRKeys.hdr),
                                 fit: try object.fit())
        }]

    static let placement = StagePlacement(
        rules: [.after(.decode), .notAfterLast], shapesPictures: true,
        replaces: ([.downsample, .transcode], "\"variants\" sizes and encodes every output itself, in place of \"downsample\" and \"transcode\""),
        needsLast: true)

    var fingerprint: String {
        func listed(_ values: [MediaFormat: Int]) -> String {
            values.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue):\($0.value)" }.joined(separator: ",")
        }
        return "variants(sizes=\(sizes.map(\.text).joined(separator: ",")),"
            + "formats=\(formats.map(\.rawValue).joined(separator: ",")),quality=\(listed(quality)),"
            + "effort=\(listed(effort)),placeholder=\(placeholder?.rawValue ?? "none")\(hdr.fingerprint)\(fit.fingerprint))"
    }

    func explanation(among stages: [any Stage]) -> String? {
        let formats = self.formats.map { format in
            [format.rawValue] + [quality[format].map { "q\($0)" }, effort[format].map { "effort \($0)" }].compactMap { $0 }
        }.map { $0.joined(separator: " ") }
        let boxes = sizes.map(\.text).joined(separator: ", ")
        let numbers = sizes.allSatisfy { if case .longestSide = $0 { true } else { false } }
        let fitted = fit == Fit() && numbers ? " px on the longest side" : " px, \(fit.explanation)"
        var text = "\(sizes.count) sizes × \(self.formats.count) formats = up to \(sizes.count * self.formats.count) outputs an image: "
            + boxes + fitted + " (never upscaled: sizes that would give an image the same output collapse into one, under the "
            + "smallest of them), each as " + formats.joined(separator: ", ") + "; one decode an image, sRGB, upright"
        if let placeholder { text += "; placeholder \(placeholder.rawValue)" }
        return text + "; " + hdr.explanation(formats: self.formats)
    }

    /// Sizes a format cannot hold: a side over its limit, or any size with `outside` (which overflows its box).
    func warning(among stages: [any Stage]) -> String? {
        let overflows = formats.compactMap { format -> String? in
            guard let limit = format.row.encoder?.maxSide else { return nil }
            let sizes = self.sizes.filter { !fit.keeps($0.box, within: limit) }
            return sizes.isEmpty ? nil : "\(format.rawValue) holds at most \(limit) pixels a side: "
                + sizes.map(\.text).joined(separator: ", ") + " may not fit"
        }
        return overflows.isEmpty ? nil : overflows.joined(separator: "; ") + " (a picture over it fails tooLargeForFormat)"
    }

    /// Every size and format of an item has a name of its own: {size} or {width} (not {width}
    /// alone where two boxes share a width) and {ext} where there are several; without this
    /// stage, no placeholder that names a variant.
    static func checkNames(_ template: PathTemplate, _ reader: JSONReader, posters: Bool, stage: VariantsStage?) throws {
        let sized = ["size", "width", "height"].filter(template.uses)
        guard let stage else {
            if let placeholder = sized.first { throw reader.fail("{\(placeholder)} names a variant: it needs a \"variants\" stage") }
            return
        }
        if stage.sizes.count > 1, sized.isEmpty {
            throw reader.fail("with \(stage.sizes.count) variant sizes, expected {size} or {width} in \"\(template.text)\", "
                              + "or every size would be written to the same file")
        }
        let widths = stage.sizes.map(\.box.width)
        if sized == ["width"], let twice = widths.indices.first(where: { widths[..<$0].contains(widths[$0]) }) {
            throw reader.fail("sizes \(stage.sizes[widths.firstIndex(of: widths[twice])!].text) and \(stage.sizes[twice].text) "
                              + "would be written to the same file: {width} alone names them, expected {size} or {height} too")
        }
        if stage.formats.count > 1, !template.uses("ext") {
            throw reader.fail("with \(stage.formats.count) variant formats, expected {ext} in \"\(template.text)\", "
                              + "or every format would be written to the same file")
        }
    }

    /// Which outputs there are, not how every one is made: an output whose own recipe is
    /// unchanged is kept when only the sizes or formats change.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard format != nil else { return }
        fingerprint.outputs.append(self.fingerprint)
    }

    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        guard let pictured = plan.outputs.first(where: { $0.picture != nil }), let base = pictured.picture, plan.upright != nil else { return }
        let variants = Self.variants(of: base, sizes: sizes, fit: fit)
        let made: [PlannedOutput] = variants.flatMap { size, picture in
            formats.map { format in
                var output = pictured
                output.mapPicture { _ in picture.inSRGB().keepingGainMap(hdr).animated(as: format).reencoded() }
                return PlannedOutput(format: format, quality: quality[format] ?? Defaults.keptFormatQuality, effort: effort[format],
                                     content: output.content, variant: .init(size: size, pixels: picture.size))
            }
        }
        // A still's picture becomes its variants; a movie keeps its own output beside its poster's.
        plan.outputs = plan.outputs.filter { $0.picture == nil } + made
        plan.placeholder = placeholder
        // A poster's cost is `PosterStage`'s.
        guard let header = item.costHeader(plan) else { return }
        plan.estimatedBytes = CostEstimator.estimate(variantsOf: header, pixels: variants.map(\.picture.scaled), formats: Set(formats))
    }

    /// The distinct variants of `picture`, in the order the sizes are listed: of sizes that fit it
    /// the same way, only the smallest box (the first listed of equal ones) stays.
    static func variants(of picture: Picture, sizes: [VariantSize], fit: Fit) -> [(size: VariantSize, picture: Picture)] {
        let fitted = sizes.map { (size: $0, picture: picture.fitted(in: $0.box, fit)) }
        return fitted.enumerated().filter { index, variant in
            !fitted.enumerated().contains { other, candidate in
                candidate.picture == variant.picture && (candidate.size.area, other) < (variant.size.area, index)
            }
        }.map(\.element)
    }

    /// A per-format option (`quality`, `effort`): each of the stage's `formats` that has the
    /// setting gets its default, overridden by what the stage gives, which may name only formats
    /// it writes.
    private static func perFormat(_ object: ObjectReader, _ key: Key<[MediaFormat: Int]>, of formats: [MediaFormat],
                                  default setting: KeyPath<FormatRow.Encoder, FormatRow.Setting?>) throws -> [MediaFormat: Int] {
        let takes = { (format: MediaFormat) in format.row.encoder?[keyPath: setting] != nil }
        var values = Dictionary(uniqueKeysWithValues: formats.compactMap { format in
            format.row.encoder?[keyPath: setting].map { (format, $0.default) }
        })
        guard let given = object.optional(key.name) else { return values }
        for (format, value) in try key.syntax.read(given) {
            guard formats.contains(format) else {
                let takers = formats.filter(takes).map(\.rawValue).joined(separator: ", ")
                throw given.child(format.rawValue, .string(format.rawValue))
                    .expected("one of this stage's formats that takes \(key.name) (\(takers.isEmpty ? "none does" : takers))")
            }
            values[format] = value
        }
        return values
    }
}

extension ValueSyntax where Value == [MediaFormat: Int] {
    /// `{"avif": 50, "webp": 75}`: a value for any of `formats`, each read by its own syntax.
    static func perFormat(_ what: String, _ formats: [MediaFormat], value: @escaping (MediaFormat) -> ValueSyntax<Int>) -> ValueSyntax {
        let schema = objectSchema(formats.map { DescribedKey(name: $0.rawValue, required: false, schema: value($0).schema) })
        return ValueSyntax(schema: schema, read: { reader in
            let object = try reader.object()
            var values: [MediaFormat: Int] = [:]
            for key in object.keys {
                let format = try reader.child(key, .string(key)).oneOf(what, formats.map { ($0.rawValue, $0) })
                values[format] = try value(format).read(object.required(key))
            }
            try object.finish()
            return values
        }, json: nil)
    }
}
