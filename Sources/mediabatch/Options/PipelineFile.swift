import ArgumentParser
import Foundation
import MediaBatchCore
import PipelineModel

/// The pipeline file every command but `inspect` and `merge-reports` takes first.
struct PipelineFile: ParsableArguments {
    @Argument(help: "The pipeline file.")
    var pipeline: String

    /// Loads and validates the file, or exits 2 with the path-qualified reason.
    func load() throws -> Pipeline {
        do {
            return try Pipeline.load(contentsOf: URL(fileURLWithPath: pipeline), displayName: pipeline)
        } catch let error as PipelineError {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
    }

    /// A root folder from its command-line option, else from the pipeline file; exits 2 when neither names one.
    func root(_ option: String?, orPipeline pipelineRoot: URL?, key: String) throws -> URL {
        guard let root = option.map(commandLinePath) ?? pipelineRoot else {
            printError("error: no \(key) folder: set \(key).root in \(pipeline) or pass --\(key)")
            throw ExitCode(ExitStatus.invalid)
        }
        return root
    }
}

/// A file or folder named on the command line, relative to the working directory.
func commandLinePath(_ path: String) -> URL {
    URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
}
