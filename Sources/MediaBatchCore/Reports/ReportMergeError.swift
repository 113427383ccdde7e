/// Why shard reports or manifests cannot be merged: a file that is not one, shards of different
/// runs, or shards that overlap. `merge-reports` and `merge-manifests` exit 2 with it.
public struct ReportMergeError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}
