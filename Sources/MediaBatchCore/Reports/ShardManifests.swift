import Foundation

/// The manifests of a sharded run's shards as one (`merge-manifests`), their items merged in input
/// order as they are read.
public struct ShardManifests {
    private let shards: ShardedItems<Manifest.Item>

    /// What a manifest is besides its items (emptied when this is read).
    private struct Shape: Decodable {
        let version: Int
        let items: [Manifest.Item]
    }

    /// - Throws: `ReportMergeError` naming a file that is not a manifest of this version.
    public init(_ paths: [String]) throws {
        let files = paths.map(URL.init(fileURLWithPath:))
        for (path, shape) in zip(paths, try ShardedItems<Manifest.Item>.heads(files, "manifest", as: Shape.self))
        where shape.version != Manifest.Head().version {
            throw ReportMergeError(message: "\(path) is a manifest of version \(shape.version), not \(Manifest.Head().version)")
        }
        shards = ShardedItems(files: files, names: paths, kind: "manifest", input: \.input)
    }

    /// Every shard's items in input order; an input two manifests list ends it with a `ReportMergeError`.
    public var items: ManifestStream {
        { [shards] body in try shards.forEach(body) }
    }
}
