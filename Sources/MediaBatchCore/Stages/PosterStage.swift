import LibAVKit
import MediaFormats
import PipelineModel

/// Gives a video item a picture: the movie's frame that `at` names, upright (its display matrix
/// applied) and in sRGB (HDR tone-mapped), decoded by `write` (see `PictureRenderer`) and shaped
/// by the image stages after this one as a still's picture is. The movie's own output stays
/// (but with `movie: drop`); the poster is one more, at `write.posterPath`, in JPEG unless a stage
/// after says otherwise. Images pass through.
struct PosterStage: PipelineStage {
    let options: Stage.Poster
    let maxPixels: Int
    var name: Stage.Name { .poster }

    /// Which outputs a movie has, not how its own is made: changing `at` redoes the poster only.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format, format.isVideo else { return }
        fingerprint.outputs.append(Stage.poster(options).fingerprint)
    }

    /// A frame larger than `maxPixels` fails before any is decoded, as an image would.
    func check(_ item: ItemContext) throws {
        guard let frame = item.videoFrame else { return }
        try Self.refuseFrames(frame, over: maxPixels)
    }

    /// A movie's frames over `limits.maxPixels` fail before any is decoded (the `video` stage's too).
    static func refuseFrames(_ frame: PixelSize, over maxPixels: Int) throws {
        let pixels = frame.width * frame.height
        guard pixels <= maxPixels else {
            throw StageFailure(.tooManyPixels, "frames of \(frame.width)×\(frame.height) are \(pixels) pixels, over limits.maxPixels (\(maxPixels))")
        }
    }

    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        guard let frame = item.videoFrame else { return }
        // Decoded upright and in sRGB: nothing left to turn or convert.
        let source = Picture.Source(stored: frame, orientation: 1, needsConversion: false, hasProfile: false, poster: options.at)
        if options.movie == .drop { plan.outputs.removeAll { $0.role == .video } }
        let jpeg = MediaFormat.jpeg
        plan.outputs.append(PlannedOutput(format: jpeg, quality: jpeg.quality?.default ?? Defaults.keptFormatQuality, effort: nil,
                                          poster: options.at, picture: Picture(source: source)))
        plan.estimatedBytes += CostEstimator.posterBytes(frame: source.stored, codec: item.videoCodec)
        plan.upright = frame
    }
}

extension Stage.PosterTime {
    /// As LibAVKit takes it.
    var frameTime: PosterTime {
        switch self {
        case .auto: return .auto
        case .seconds(let seconds): return .seconds(seconds)
        case .percent(let percent): return .fraction(percent / 100)
        }
    }
}
