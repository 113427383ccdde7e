import ArgumentParser
import MediaBatchCore
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
        // A line for each stage that has something to say, in the stage list's order.
        for type in StageList.catalog.types {
            for stage in loaded.stages where stage.name == type.name {
                if let explanation = stage.explanation(among: loaded.stages) { print("  \(stage.name): \(explanation)") }
                if let warning = stage.warning(among: loaded.stages) { print("  warning: \(stage.name): \(warning)") }
            }
        }
        if let manifest = loaded.output.manifest { print("  manifest: \(manifest), under the output root") }
    }
}
