import LibRawKit
import MediaFormats
import PipelineModel

extension StageName {
    public static let decode = StageName("decode")
}

/// Opens the item for the pixel stages: the header read before the stages (libvips has read only
/// an image's header, LibRaw a camera RAW's; libavformat has probed a video's container and
/// streams) becomes the plan's picture, or fails the item when it could not be read or is over
/// `maxPixels` (a frame's) or `maxFrames` (the header's count: a 10 000-frame GIF is refused
/// unread), a movie over `maxVideoDuration` or `maxVideoFrames`. An animation keeps its frames
/// unless `animated` is false. Nothing is decoded here: `write` decodes what the stages planned,
/// once — a RAW's preview or its develop, as `raw` says (see `RawDecoding`).
struct DecodeStage: PipelineStage, Equatable {
    /// An animation (GIF, WebP) keeps every frame, its delays and loop count where the output
    /// format animates; false: its first frame alone. Animations stay animations, as sharp's
    /// `animated: true` and eleventy-img keep them.
    var animated = true
    /// Where a camera RAW's picture comes from.
    var raw = RawSource.auto

    /// A camera RAW's picture: LibRaw's develop of the sensor data, or the JPEG preview the camera embedded.
    enum RawSource: String, CaseIterable, Codable, Sendable {
        /// The preview where it is as large as every later stage needs, else a develop (which costs far more).
        case auto
        case develop
        /// The preview, even smaller than asked (the report says by how much).
        case preview
    }

    enum Keys {
        static let animated = Key("animated", .boolean, .value(true),
                                  "An animated GIF or WebP keeps every frame, its delays and loop count in formats that animate "
                                  + "(GIF, WebP; the others get its first frame, and the report says so); false: the first frame only.")
        static let raw = Key("raw", ValueSyntax<RawSource>.choice("auto, develop or preview"), .value(.auto),
                             "A camera RAW's picture: auto takes its embedded preview where its longest side is at least what the later "
                             + "stages need, else develops it with LibRaw (at half size where they need at most half); develop always "
                             + "develops; preview always takes the preview, even smaller than asked.")
    }

    static let syntax = [StageSyntax(
        spelling: "decode",
        help: "Opens each item header-first (libvips for images, LibRaw for camera RAW, libavformat for videos); stages that shape pictures need it before them.",
        options: [Keys.animated.described, Keys.raw.described]) { object in
            DecodeStage(animated: try object.value(Keys.animated), raw: try object.value(Keys.raw))
        }]

    static let placement = StagePlacement()

    /// `raw` at its default adds nothing, so pipelines that do not name it keep the fingerprint
    /// their items were recorded with.
    var fingerprint: String { "decode(animated=\(animated)\(raw == .auto ? "" : ",raw=\(raw.rawValue)"))" }

    func explanation(among stages: [any Stage]) -> String? {
        let animation = animated ? "animated GIF and WebP keep every frame, delay and loop count in GIF and WebP; other formats get the first frame"
            : "animations: the first frame only"
        let camera = switch raw {
        case .auto: "camera RAW: its embedded preview where it is as large as the later stages need, else developed by LibRaw"
        case .develop: "camera RAW: developed by LibRaw (half-size where the later stages need at most half)"
        case .preview: "camera RAW: its embedded preview, even where it is smaller than the later stages need"
        }
        return animation + "; " + camera
    }

    /// The limits decide whether, not how: an output does not depend on them. Nor does an option
    /// for a format it never applies to (`animated` for a still, `raw` for anything but a camera
    /// RAW, or at its default): it adds nothing, so those items keep the fingerprint they were
    /// recorded with.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format else { return }
        if format.row.animates {
            fingerprint.recipe.append(DecodeStage(animated: animated).fingerprint)
        } else if format.isCameraRaw, raw != .auto {
            fingerprint.recipe.append(DecodeStage(raw: raw).fingerprint)
        } else {
            fingerprint.recipe.append("decode")
        }
    }

    func check(_ item: ItemContext) throws {
        let limits = item.environment.limits
        switch try item.header.get().content {
        case .cameraRaw(let facts, _, _):
            let developed = try Self.rawFacts(facts, item.format).developed
            try refuseTooMany(developed.width, developed.height, item)
        case .image(let image, _, _):
            try refuseTooMany(image.width, image.height, item)
            guard image.pageCount <= limits.maxFrames else {
                throw StageFailure(.tooManyFrames, "\(image.pageCount) frames, over limits.maxFrames (\(limits.maxFrames))")
            }
        case .video(let probe, _):
            try refuseTooLong(seconds: probe.durationSeconds ?? 0, framesPerSecond: probe.framesPerSecond ?? 0, limits)
        }
    }

    /// A movie's length and frame count as its header states them: an hour-long or a billion-frame
    /// header is refused before a frame is decoded.
    private func refuseTooLong(seconds: Double, framesPerSecond: Double, _ limits: Pipeline.Limits) throws {
        let maxSeconds = limits.maxVideoDurationSeconds, maxFrames = limits.maxVideoFrames
        guard seconds <= Double(maxSeconds) else {
            throw StageFailure(.tooLong, "\(Int(seconds.rounded())) s long, over limits.maxVideoDuration (\(maxSeconds) s)")
        }
        let frames = seconds * framesPerSecond
        guard frames <= Double(maxFrames) else {
            throw StageFailure(.tooManyFrames, "\(Int(frames.rounded())) frames (\(seconds) s at \(framesPerSecond) fps), over limits.maxVideoFrames (\(maxFrames))")
        }
    }

    private func refuseTooMany(_ width: Int, _ height: Int, _ item: ItemContext) throws {
        let pixels = width * height, limits = item.environment.limits, limit = limits.maxPixels(decoding: item.format)
        let which = limits.maxPixels != nil ? "" : limit == Defaults.maxPixels ? ", its default" : ", its default where the decoder streams"
        guard pixels <= limit else {
            throw StageFailure(.tooManyPixels, "\(width)×\(height) is \(pixels) pixels, over limits.maxPixels (\(limit)\(which))")
        }
        guard !limits.isBomb(pixels: pixels, bytes: item.bytesIn) else {
            throw StageFailure(.tooManyPixels, "\(width)×\(height) is \(pixels) pixels from \(item.bytesIn) bytes, over "
                               + "\(Defaults.bombPixelsPerByte) pixels a byte: a decompression bomb (setting limits.maxPixels admits it)")
        }
    }

    /// A RAW of a format this build decodes that LibRaw cannot read is a decode failure, like a
    /// truncated JPEG: damaged, or from a camera this LibRaw does not know. (A format with no
    /// decoder here never reaches this stage: the format table's row says so.)
    private static func rawFacts(_ facts: Result<RawFacts, LibRawError>, _ format: MediaFormat) throws -> RawFacts {
        do {
            return try facts.get()
        } catch {
            let why = error.code == .fileUnsupported ? " (damaged, or from a camera this LibRaw does not know)" : ""
            throw StageFailure(.decodeFailed, "LibRaw cannot read this \(format.rawValue)\(why): \(error.message)")
        }
    }

    /// An image's primary picture, as stored (every frame, or the first; a RAW's, with where it
    /// comes from), costing what decoding it whole costs until a stage shrinks it; a video is
    /// copied, its size, length and codec known.
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        if let movie = item.video?.facts { plan.mapOutputs { $0.content = .original(movie: movie) } }
        guard var source = item.pictureSource else { return }
        if let raw = item.rawFacts {
            let turned = (5...8).contains(raw.orientation)
            source.decoder = .raw(RawDecoding(mode: self.raw, developed: source.upright, preview: raw.preview.map {
                PixelSize(width: turned ? $0.height : $0.width, height: turned ? $0.width : $0.height)
            }, undevelopable: item.rawCutOff, orientation: raw.orientation))
        }
        let picture = animated ? Picture(source: source) : Picture(source: source).firstFrameOnly()
        plan.upright = source.upright
        plan.mapOutputs { $0.content = .picture(picture) }
        if let header = item.costHeader(plan) { plan.estimatedBytes = CostEstimator.estimate(image: header, maxPixelSize: nil) }
    }
}
