import Foundation
import PipelineModel

/// What stages need to know about the run beyond their own options.
struct RunEnvironment {
    let outputRoot: URL
    /// Where outputs are written before being renamed into place (same filesystem).
    let temporaryFolder: URL
    let limits: Pipeline.Limits

    /// Where a movie's finished renditions wait for its others (see `RenditionCache`): beside the
    /// temporary folder, which a run empties when it starts, and kept through it.
    var renditionFolder: URL {
        temporaryFolder.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("renditions").appendingPathComponent(temporaryFolder.lastPathComponent)
    }
}
