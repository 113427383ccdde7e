import LibRawKit
import MediaFormats
import PipelineModel

/// Opens the item for the pixel stages: the header read before the stages (libvips has read only
/// an image's header, LibRaw a camera RAW's; libavformat has probed a video's container and
/// streams) becomes the plan's picture, or fails the item when it could not be read or is over
/// `maxPixels` (a frame's) or `maxFrames` (the header's count: a 10 000-frame GIF is refused
/// unread), a movie over `maxVideoDuration` or `maxVideoFrames`. An animation keeps its frames unless `animated` is false. Nothing is decoded here:
/// `write` decodes what the stages planned, once — a RAW's preview or its develop, as `raw` says
/// (see `RawDecoding`).
struct DecodeStage: PipelineStage {
    let options: Stage.Decode
    let maxPixels: Int
    let maxFrames: Int
    /// A movie's limits, from its header: `limits.maxVideoDuration`, `limits.maxVideoFrames`.
    let maxVideoSeconds: Int
    let maxVideoFrames: Int
    var name: Stage.Name { .decode }

    /// The limits decide whether, not how: an output does not depend on them. Nor does an option
    /// for a format it never applies to (`animated` for a still, `raw` for anything but a camera
    /// RAW, or at its default), whose items keep the fingerprint they had before it.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format else { return }
        if format.row.animates {
            fingerprint.recipe.append(Stage.decode(.init(animated: options.animated)).fingerprint)
        } else if format.isCameraRaw, options.raw != Defaults.rawSource {
            fingerprint.recipe.append(Stage.decode(.init(raw: options.raw)).fingerprint)
        } else {
            fingerprint.recipe.append("decode")
        }
    }

    func check(_ item: ItemContext) throws {
        switch try item.header.get().content {
        case .cameraRaw(let facts, _, _):
            let developed = try Self.rawFacts(facts, item.format).developed
            try refuseTooMany(developed.width, developed.height)
        case .image(let image, _, _):
            try refuseTooMany(image.width, image.height)
            guard image.pageCount <= maxFrames else {
                throw StageFailure(.tooManyFrames, "\(image.pageCount) frames, over limits.maxFrames (\(maxFrames))")
            }
        case .video(let probe, _):
            try refuseTooLong(seconds: probe.durationSeconds ?? 0, framesPerSecond: probe.framesPerSecond ?? 0)
        }
    }

    /// A movie's length and frame count as its header states them: an hour-long or a billion-frame
    /// header is refused before a frame is decoded.
    private func refuseTooLong(seconds: Double, framesPerSecond: Double) throws {
        guard seconds <= Double(maxVideoSeconds) else {
            throw StageFailure(.tooLong, "\(Int(seconds.rounded())) s long, over limits.maxVideoDuration (\(maxVideoSeconds) s)")
        }
        let frames = seconds * framesPerSecond
        guard frames <= Double(maxVideoFrames) else {
            throw StageFailure(.tooManyFrames, "\(Int(frames.rounded())) frames (\(seconds) s at \(framesPerSecond) fps), over limits.maxVideoFrames (\(maxVideoFrames))")
        }
    }

    private func refuseTooMany(_ width: Int, _ height: Int) throws {
        let pixels = width * height
        guard pixels <= maxPixels else {
            throw StageFailure(.tooManyPixels, "\(width)×\(height) is \(pixels) pixels, over limits.maxPixels (\(maxPixels))")
        }
    }

    /// A RAW LibRaw does not know is media this build cannot decode: skipped, not failed.
    private static func rawFacts(_ facts: Result<RawFacts, LibRawError>, _ format: MediaFormat) throws -> RawFacts {
        do {
            return try facts.get()
        } catch where error.code == .fileUnsupported {
            throw ItemSkipped(reason: "unsupported format: \(format.rawValue) (\(format.row.help)): LibRaw does not read this file")
        } catch {
            throw StageFailure(.decodeFailed, "LibRaw cannot read the \(format.rawValue) header: \(error.message)")
        }
    }

    /// An image's primary picture, as stored (every frame, or the first; a RAW's, with where it
    /// comes from), costing what decoding it whole costs until a stage shrinks it; a video is copied, its size,
    /// length and codec known.
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        if let movie = item.movieFacts { plan.outputs = plan.outputs.map { var output = $0; output.movie = movie; return output } }
        guard var source = item.pictureSource else { return }
        if let raw = item.rawFacts {
            let turned = (5...8).contains(raw.orientation)
            source.raw = RawDecoding(mode: options.raw, developed: source.upright, preview: raw.preview.map {
                PixelSize(width: turned ? $0.height : $0.width, height: turned ? $0.width : $0.height)
            }, undevelopable: item.rawCutOff, orientation: raw.orientation)
        }
        let picture = options.animated ? Picture(source: source) : Picture(source: source).firstFrameOnly()
        plan.upright = source.upright
        for index in plan.outputs.indices { plan.outputs[index].picture = picture }
        if let header = item.costHeader(plan) { plan.estimatedBytes = CostEstimator.estimate(image: header, maxPixelSize: nil) }
    }
}
