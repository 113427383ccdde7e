import PipelineModel

/// The one place that maps a pipeline's stages, in order, to their implementations.
enum StageFactory {
    static func make(_ stages: [Stage], _ environment: RunEnvironment) -> [PipelineStage] {
        stages.map { stage -> PipelineStage in
            switch stage {
            case .filter(let filter): return FilterStage(filter: filter)
            case .decode(let options):
                let limits = environment.limits
                return DecodeStage(options: options, maxPixels: limits.maxPixels, maxFrames: limits.maxFrames,
                                   maxVideoSeconds: limits.maxVideoDurationSeconds, maxVideoFrames: limits.maxVideoFrames)
            case .poster(let options): return PosterStage(options: options, maxPixels: environment.limits.maxPixels)
            case .video(let options): return VideoStage(options: options)
            case .downsample(let options): return DownsampleStage(options: options)
            case .transcode(let options): return TranscodeStage(options: options)
            case .variants(let options): return VariantsStage(options: options)
            case .stripMetadata(let options): return StripMetadataStage(options: options)
            case .write(let options): return WriteStage(options: options, environment: environment)
            }
        }
    }
}
