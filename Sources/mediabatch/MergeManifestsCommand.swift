import ArgumentParser
import Foundation
import MediaBatchCore

/// Combines the manifests a sharded run's shards wrote into one as it reads them, refusing shards
/// that overlap. Exits 0 once merged, 2 when the manifests cannot be merged, writing nothing.
struct MergeManifestsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-manifests",
        abstract: "Combine the manifests of a run's shards into one manifest.")

    @Argument(help: "Where to write the merged manifest.")
    var output: String

    @Argument(help: "The shard manifests (as `run` writes them: manifest.shard-I-of-N.json).")
    var manifests: [String]

    func run() throws {
        do {
            let shards = try ShardManifests(manifests)
            var (items, outputs) = (0, 0)
            try ReportFile.write(output) { file in
                try Manifest.write({ body in
                    try shards.items { item in
                        (items, outputs) = (items + 1, outputs + item.variants.count)
                        try body(item)
                    }
                }, to: file)
            }
            printError("mediabatch: merged \(manifests.count) manifests: \(items) items, \(outputs) outputs")
        } catch let error as ReportMergeError {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
    }
}
