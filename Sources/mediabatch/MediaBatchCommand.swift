import ArgumentParser
import Foundation
import PipelineModel

@main
struct MediaBatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediabatch",
        abstract: "Run declarative JSON media pipelines over folders of photos and videos.",
        discussion: """
            Exit codes: 0 every item succeeded or was filtered out; 1 at least one item failed; \
            2 the pipeline file or the command line is invalid (nothing was processed); \
            130/143 interrupted by SIGINT/SIGTERM.
            """,
        subcommands: [RunCommand.self, ValidateCommand.self, InspectCommand.self, StatusCommand.self, MergeReportsCommand.self,
                      WorkerCommand.self])

    /// ArgumentParser exits 64 on usage errors; mediabatch promises 2 for anything invalid.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(code == .validationFailure ? ExitStatus.invalid : code.rawValue)
        }
    }
}

/// The exit codes mediabatch documents.
enum ExitStatus {
    static let success: Int32 = 0
    static let itemsFailed: Int32 = 1
    static let invalid: Int32 = 2
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// A root folder from its command-line option, else from the pipeline file; exits 2 when neither names one.
func root(_ option: String?, orPipeline pipelineRoot: URL?, key: String, pipeline: String) throws -> URL {
    let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    guard let root = option.map({ URL(fileURLWithPath: $0, relativeTo: cwd) }) ?? pipelineRoot else {
        printError("error: no \(key) folder: set \(key).root in \(pipeline) or pass --\(key)")
        throw ExitCode(ExitStatus.invalid)
    }
    return root
}

/// A file named on the command line, relative to the working directory.
func commandLinePath(_ path: String) -> URL {
    URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
}

/// Loads and validates a pipeline file, or exits 2 with the path-qualified reason.
func loadPipeline(_ path: String) throws -> Pipeline {
    do {
        return try Pipeline.load(contentsOf: URL(fileURLWithPath: path), displayName: path)
    } catch let error as PipelineError {
        printError("error: \(error)")
        throw ExitCode(ExitStatus.invalid)
    }
}
