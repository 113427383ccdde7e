import Foundation
import PipelineModel

/// What stages need to know about the run beyond their own options.
struct RunEnvironment {
    let outputRoot: URL
    /// Where outputs are written before being renamed into place (same filesystem).
    let temporaryFolder: URL
    let limits: Pipeline.Limits
}
