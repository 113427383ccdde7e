import MediaFormats
import PipelineModel

extension StageName {
    public static let transcode = StageName("transcode")
}

/// Changes the output format (of the images in `from`, or every image) and converts pictures to
/// sRGB (see `SRGB`), so colours survive the new format; the picture is encoded again even where
/// it is already sRGB in that format, at the quality asked.
struct TranscodeStage: PipelineStage, Equatable {
    /// Formats this stage applies to; nil means every image.
    var from: Set<MediaFormat>?
    /// One of `MediaFormat.outputs`.
    var to: MediaFormat
    var quality: Int
    /// The encoder's effort, for a format that has one (`MediaFormat.effort`).
    var effort: Int?
    /// What becomes of a gain map (an HDR photo's): kept where the output format carries one.
    var hdr = Defaults.hdr

    enum Keys {
        static let from = Key("from", ValueSyntax<MediaFormat>.choice("an image format", from: MediaFormat.inputs.filter { !$0.isVideo }).oneOrMore(),
                              .noDefault, "The image formats converted; absent: every image.")
        static let to = Key<MediaFormat>("to", .choice("an output format", from: MediaFormat.outputs), .required,
                                         "The output format: " + MediaFormat.outputs.map { $0.row.help }.joined(separator: "; ") + ".")
        static let quality = Key("quality", .integer(in: 1...100), .noDefault,
                                 "Encoder quality; by default \(FormatTable.defaults(\.quality)) (PNG is lossless).")
        static let effort = Key("effort", .integer(in: 0...9), .noDefault,
                                "Encoder CPU effort, for \(FormatTable.ranges(\.effort)) (by default \(FormatTable.defaults(\.effort))): "
                                    + "lower is faster, with larger files.")
    }

    static let syntax = [StageSyntax(
        spelling: "transcode",
        help: "Converts images (those in from, or all) to sRGB in another format.",
        options: [Keys.from.described, Keys.to.described, Keys.quality.described, Keys.effort.described, HDRKeys.hdr.described]) { object in
            let to = try object.value(Keys.to)
            return TranscodeStage(from: try object.optionalValue(Keys.from).map(Set.init), to: to,
                                  quality: try object.optionalValue(Keys.quality) ?? to.quality?.default ?? Defaults.keptFormatQuality,
                                  effort: try effort(object, for: to), hdr: try object.value(HDRKeys.hdr))
        }]

    static let placement = StagePlacement(rules: [.after(.decode), .notAfterLast], shapesPictures: true, needsLast: true)

    var fingerprint: String {
        let from = self.from.map { $0.map(\.rawValue).sorted().joined(separator: ",") } ?? "*"
        return "transcode(\(from)->\(to.rawValue),q=\(quality)\(effort.map { ",effort=\($0)" } ?? "")\(hdr.fingerprint))"
    }

    func explanation(among stages: [any Stage]) -> String? {
        let from = self.from.map { $0.map(\.rawValue).sorted().joined(separator: ", ") } ?? "every image"
        let effort = self.effort.map { " effort \($0)" } ?? ""
        return "\(from) → \(to.rawValue) q\(quality)\(effort), sRGB; " + hdr.explanation(formats: [to])
    }

    /// A format that holds fewer pixels a side than a phone's panorama or a scrolled screenshot has
    /// (21694, 36861: WebP, HEIC, AVIF), with no `downsample` before bounding both sides within it.
    func warning(among stages: [any Stage]) -> String? {
        guard let limit = to.row.encoder?.maxSide, limit < Self.phonePictureSides,
              !stages.prefix { ($0 as? Self) != self }.contains(where: { ($0 as? DownsampleStage).map { $0.fit.keeps($0.box, within: limit) } == true })
        else { return nil }
        return "\(to.rawValue) holds at most \(limit) pixels a side, and no downsample before bounds both sides within it: "
            + "a larger picture (a panorama, a scrolled screenshot) fails tooLargeForFormat"
    }

    /// What phones' panoramas and scrolled screenshots reach on their longest side.
    static let phonePictureSides = 40_000

    func applies(to format: MediaFormat) -> Bool {
        !format.isVideo && from?.contains(format) ?? true
    }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format else { return }
        if applies(to: format) { fingerprint.recipe.append(self.fingerprint) }
        // A movie's poster is one output of several: the movie's own stays when only this changes.
        if format.isVideo, from == nil { fingerprint.outputs.append(self.fingerprint) }
    }

    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        for index in plan.outputs.indices where plan.outputs[index].picture != nil {
            // A movie's poster is an image of no format of its own: converted unless `from` names the formats.
            guard applies(to: item.format) || plan.outputs[index].posterTime != nil && from == nil else { continue }
            plan.outputs[index].format = to
            plan.outputs[index].quality = quality
            plan.outputs[index].effort = effort
            plan.outputs[index].mapPicture { $0.inSRGB().keepingGainMap(hdr).animated(as: to).reencoded() }
        }
    }

    /// `effort` in the range of the format written; nil for a format without one.
    private static func effort(_ object: ObjectReader, for format: MediaFormat) throws -> Int? {
        guard let given = object.optional(Keys.effort.name) else { return format.effort?.default }
        guard let range = format.effort?.range else {
            throw given.expected("no effort: \(format.rawValue) takes none (\(FormatTable.ranges(\.effort)) do)")
        }
        let effort = try Keys.effort.syntax.read(given)
        guard range.contains(effort) else { throw given.expected("an integer from \(range.lowerBound) to \(range.upperBound) for \(format.rawValue)") }
        return effort
    }
}
