import ArgumentParser
import PipelineModel

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a pipeline file without running it (exit 0 valid, 2 invalid).")

    @Argument(help: "The pipeline file.")
    var pipeline: String

    func run() throws {
        let loaded = try loadPipeline(pipeline)
        let stages = loaded.stages.map(\.name.rawValue).joined(separator: ", ")
        print("\(pipeline): valid (version \(loaded.version), \(loaded.stages.count) stages: \(stages))")
    }
}
