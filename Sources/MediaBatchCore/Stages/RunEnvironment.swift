import Foundation
import PipelineModel

/// What stages need to know about the run beyond their own options.
struct RunEnvironment {
    let outputRoot: URL
    /// Where outputs are written before being renamed into place (same filesystem).
    let temporaryFolder: URL
    let limits: Pipeline.Limits
    /// The pipeline's stages with operations of their own on pictures, by name.
    let effects: [StageName: any PictureEffect]
    /// The pipeline's stages that read each item's photo once its outputs are made, in order.
    let photoReaders: [any PhotoReader]
    /// `input.timeZone` and `input.sidecars`.
    let timeZone: TimeZone?
    let sidecars: Pipeline.Sidecars

    init(outputRoot: URL, temporaryFolder: URL, limits: Pipeline.Limits, input: Pipeline.Input? = nil, stages: [any PipelineStage] = []) {
        self.outputRoot = outputRoot
        self.temporaryFolder = temporaryFolder
        self.limits = limits
        timeZone = input?.timeZone
        sidecars = input?.sidecars ?? Defaults.sidecars
        effects = Dictionary(uniqueKeysWithValues: stages.compactMap { $0 as? any PictureEffect }.map { ($0.name, $0) })
        photoReaders = stages.compactMap { $0 as? any PhotoReader }
    }

    /// Where a movie's finished renditions wait for its others (see `RenditionCache`): beside the
    /// temporary folder, which a run empties when it starts, and kept through it.
    var renditionFolder: URL {
        temporaryFolder.deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "renditions").appending(path: temporaryFolder.lastPathComponent)
    }
}
