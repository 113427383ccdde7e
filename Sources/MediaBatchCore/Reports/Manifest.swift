import Foundation
import RunState

/// Every output a pipeline's items stand at, item by item: what a site build reads to emit its
/// `srcset` and `<picture>` markup. Made from the state database at the end of a run, so it is
/// complete after an incremental run (unchanged items keep their entries), after `--prune`, and
/// for one shard (`merge-manifests` combines the shards').
public struct Manifest: Codable, Equatable, Sendable {
    public struct Item: Codable, Equatable, Sendable {
        /// Relative to the input root.
        public let input: String
        /// The image as shown (orientation applied).
        public let width: Int?
        public let height: Int?
        /// ThumbHash, base64, when the pipeline asks for one.
        public let placeholder: String?
        public let variants: [Variant]
    }

    public struct Variant: Codable, Equatable, Sendable {
        /// Relative to the output root.
        public let path: String
        public let format: String?
        /// The size as listed in the pipeline (absent without `variants`).
        public let size: Int?
        public let width: Int?
        public let height: Int?
        public let bytes: Int
    }

    public let version: Int
    public let items: [Item]

    init(_ produced: [(item: ItemRecord, outputs: [OutputRecord])]) {
        version = 1
        items = produced.map { item, outputs in
            Item(input: item.input, width: item.width, height: item.height, placeholder: item.placeholder,
                 variants: outputs.map {
                     Variant(path: $0.path, format: $0.format, size: $0.variantSize, width: $0.width, height: $0.height,
                             bytes: Int($0.size))
                 }.sorted { ($0.size ?? .max, $0.path) < ($1.size ?? .max, $1.path) })
        }
    }

    /// The shards' manifests as one; two that list the same input overlap, and are refused.
    public init(merging manifests: [Manifest]) throws {
        var owners: Set<String> = []
        for item in manifests.flatMap(\.items) where !owners.insert(item.input).inserted {
            throw ReportMergeError(message: "\(item.input) is in two manifests: the shards overlap")
        }
        version = 1
        items = manifests.flatMap(\.items).sorted { $0.input < $1.input }
    }

    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Publishes the manifest at `relativePath` in the output tree, as any output is published.
    /// - Throws: `ManifestWriteError` with the reason.
    public func write(_ relativePath: String, under outputRoot: URL, via temporaryFolder: URL) throws {
        do {
            let data = try jsonData()
            _ = try AtomicFile.write(relativePath, under: outputRoot, via: temporaryFolder) { temporary in
                try data.write(to: URL(fileURLWithPath: temporary))
            }
        } catch let failure as StageFailure {
            throw ManifestWriteError(description: failure.message)
        } catch {
            throw ManifestWriteError(description: "\(error)")
        }
    }
}

public struct ManifestWriteError: Error, CustomStringConvertible {
    public let description: String
}
