import LibAVKit
import MediaFormats
import PipelineModel

/// Gives a video item its web renditions in place of its own file: one output per codec, the
/// movie upright, fitted to `maxPixelSize`, at most `maxFps`, HDR kept or tone-mapped, location
/// removed — encoded by `write` (see `MovieRendition`), or remuxed where the streams already fit.
/// Its poster, if any, stays. Images pass through.
struct VideoStage: PipelineStage {
    let options: Stage.Video
    let maxPixels: Int
    var name: Stage.Name { .video }

    /// Which outputs a movie has, not how its poster is made: changing a rendition redoes the
    /// renditions only (each output's spec holds its settings).
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format, format.isVideo else { return }
        fingerprint.outputs.append(Stage.video(options).fingerprint)
    }

    /// A movie without a video stream (sound only) has nothing to render; one whose frames are
    /// over `maxPixels` fails before a frame is decoded, as an image would.
    func check(_ item: ItemContext) throws {
        guard item.format.isVideo else { return }
        guard let frame = item.videoFrame else {
            throw StageFailure(.decodeFailed, "no video stream to render (streams: \(item.movieStreams.joined(separator: ", ")))")
        }
        try PosterStage.refuseFrames(frame, over: maxPixels)
    }

    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        guard let frame = item.videoFrame, let own = plan.outputs.firstIndex(where: { $0.role == .video }) else { return }
        let seconds = item.movieFacts?.seconds, written = Self.fitted(frame, options.maxPixelSize)
        let renditions = options.renditions.map { rendition in
            var output = PlannedOutput(format: rendition.codec.container, quality: rendition.quality, effort: nil)
            output.rendition = VideoRendition(rendition: rendition, maxPixelSize: options.maxPixelSize, maxFps: options.maxFps,
                                              reencode: options.reencode)
            output.movie = MovieFacts(size: written, seconds: seconds, codec: rendition.codec.rawValue)
            return output
        }
        plan.outputs.replaceSubrange(own...own, with: renditions)
        // One rendition at a time: the item costs its dearest.
        plan.estimatedBytes = max(plan.estimatedBytes, options.renditions.map {
            CostEstimator.renditionBytes(source: frame, output: written, codec: $0.codec)
        }.max() ?? 0)
        plan.encodingSeconds = options.renditions.map {
            CostEstimator.encodingSeconds(frame: frame, seconds: seconds ?? 0, fps: min(item.videoFramesPerSecond ?? 30, Double(options.maxFps)), codec: $0.codec)
        }.reduce(0, +)
    }

    /// As LibAVKit sizes it.
    static func fitted(_ frame: PixelSize, _ maxPixelSize: Int?) -> PixelSize {
        let size = LibAV.renditionSize((frame.width, frame.height), maxPixelSize: maxPixelSize)
        return PixelSize(width: size.width, height: size.height)
    }
}
