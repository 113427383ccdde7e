import ArgumentParser
import MediaBatchCore
import PipelineModel

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema (draft 2020-12) of pipeline files, for editors.",
        discussion: """
            Built from the definitions `validate` reads. The schema cannot check stage order, \
            dates a month lacks, sizes under a byte or whether folders exist: `validate` does. \
            The package installs it as /usr/share/mediabatch/pipeline.schema.json.
            """)

    func run() {
        print(PipelineSchema.text(), terminator: "")
    }
}
