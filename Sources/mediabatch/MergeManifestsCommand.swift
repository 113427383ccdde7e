import ArgumentParser
import Foundation
import MediaBatchCore

/// Combines the manifests a sharded run's shards wrote into one, refusing shards that overlap.
/// Exits 0 once merged, 2 when the manifests cannot be merged.
struct MergeManifestsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-manifests",
        abstract: "Combine the manifests of a run's shards into one manifest.")

    @Argument(help: "Where to write the merged manifest.")
    var output: String

    @Argument(help: "The shard manifests (as `run` writes them: manifest.shard-I-of-N.json).")
    var manifests: [String]

    func run() throws {
        let merged = try mergeShards(manifests, as: "manifest", Manifest.init(merging:))
        try merged.jsonData().write(to: URL(fileURLWithPath: output), options: .atomic)
        printError("mediabatch: merged \(manifests.count) manifests: \(merged.items.count) items, "
                   + "\(merged.items.reduce(0) { $0 + $1.variants.count }) outputs")
    }
}
