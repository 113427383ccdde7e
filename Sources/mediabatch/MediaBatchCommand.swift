import ArgumentParser
import Foundation
import MediaBatchCore

@main
struct MediaBatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediabatch",
        abstract: "Run declarative JSON media pipelines over folders of photos and videos.",
        discussion: """
            Exit codes: 0 every item succeeded or was filtered out; 1 at least one item failed; \
            2 the pipeline file or the command line is invalid (nothing was processed); \
            130/143 interrupted by SIGINT/SIGTERM. Installed from the Debian package: example pipelines \
            in /usr/share/doc/mediabatch/examples, the JSON Schema of pipeline files (what `mediabatch \
            schema` prints) in /usr/share/mediabatch/pipeline.schema.json.
            """,
        version: MediaBatchVersion.current,
        subcommands: [RunCommand.self, ValidateCommand.self, SchemaCommand.self, InspectCommand.self, StatusCommand.self,
                      MergeReportsCommand.self, MergeManifestsCommand.self, HTMLCommand.self, DuplicatesCommand.self,
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
