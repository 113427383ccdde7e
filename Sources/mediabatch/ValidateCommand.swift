import ArgumentParser
import PipelineModel

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a pipeline file without running it (exit 0 valid, 2 invalid).")

    @OptionGroup
    var file: PipelineFile

    func run() throws {
        let loaded = try file.load()
        let stages = loaded.stages.map(\.name.rawValue).joined(separator: ", ")
        print("\(file.pipeline): valid (version \(loaded.version), \(loaded.stages.count) stages: \(stages))")
    }
}
