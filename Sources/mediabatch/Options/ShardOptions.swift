import ArgumentParser
import Foundation
import MediaBatchCore

/// Which part of the input a run covers, or whose state database `status` reads: `--shard`,
/// else the array-job environment of Kubernetes, Slurm or AWS Batch.
struct ShardOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Part INDEX of COUNT (e.g. 0/4). Default: from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX.",
                               valueName: "INDEX/COUNT"))
    var shard: String?

    @Option(help: "How many shards there are, for JOB_COMPLETION_INDEX and AWS_BATCH_JOB_ARRAY_INDEX (default: MEDIABATCH_SHARD_COUNT).")
    var shardCount: Int?

    func validate() throws {
        _ = try resolved()
    }

    /// Nil: the whole input.
    func resolved() throws -> Shard? {
        do {
            if let shard { return try Shard(parsing: shard) }
            return try Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: shardCount)
        } catch let error as ShardError {
            throw ValidationError("--shard: \(error)")
        }
    }
}
