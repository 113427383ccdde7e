import Foundation
import PipelineModel
import RunState

/// Manifest items in input order, handed to the body one at a time: from the state database
/// after a run, or from the shards' manifests as they are merged.
public typealias ManifestStream = ((Manifest.Item) throws -> Void) throws -> Void

/// Every output a pipeline's items stand at, item by item: what a site build reads to emit its
/// `srcset` and `<picture>` markup. Made from the state database at the end of a run, so it is
/// complete after an incremental run (unchanged items keep their entries), after `--prune`, and
/// for one shard (`merge-manifests` combines the shards'). Written an item at a time, as
/// encoding `{"items": [...], "version": 1}` whole would write it.
public enum Manifest {
    public struct Item: Codable, Equatable, Sendable {
        /// Relative to the input root.
        public let input: String
        /// The image as shown (orientation applied).
        public let width: Int?
        public let height: Int?
        /// ThumbHash, base64, when the pipeline asks for one.
        public let placeholder: String?
        /// The photo's own caption (XMP dc:description, else IPTC Caption-Abstract): alt text.
        public let caption: String?
        /// The other file of a camera's RAW+JPEG pair (relative to the input root): the manifest
        /// names both sources of the photo.
        public var pairedWith: String?
        public let variants: [Variant]
        /// What stages read of the item (a photo's `fingerprint`), each beside the fields above.
        public var readings: [String: JSONValue] = [:]
    }

    public struct Variant: Codable, Equatable, Sendable {
        /// Relative to the output root.
        public let path: String
        public let format: String?
        /// The size as listed in the pipeline, a number or a box (absent without `variants`).
        public let size: VariantSize?
        public let width: Int?
        public let height: Int?
        public let bytes: Int
        /// True where it carries an HDR gain map (Ultra HDR: HDR screens show it brighter); absent otherwise.
        public var gainMap: Bool?
        /// A video item's `poster` or `video` (for `<video poster=…>`); absent for a still's outputs.
        public var role: OutputRole?
        /// A movie's video codec (libavcodec's name: "h264", "hevc"); absent for pictures.
        public var codec: String?
        /// A rendition's RFC 6381 `codecs` parameter (`avc1.64001F`), for `<source type=…>`.
        public var codecs: String?
        /// An animation's frames and length in seconds (as for videos); absent for a single frame.
        public var frames: Int?
        public var duration: Double?
    }

    /// The document but for its items.
    struct Head: Codable {
        var version = 1
    }

    /// An item as the state database records it, its variants smallest first (its sidecars are
    /// its `sidecars` reading's).
    static func item(_ item: ItemRecord, _ outputs: [OutputRecord]) -> Item {
        Item(input: item.input, width: item.width, height: item.height, placeholder: item.placeholder, caption: item.caption,
             pairedWith: item.pairedWith, variants: outputs.filter { $0.role != OutputRole.sidecar.rawValue }.map {
                 Variant(path: $0.path, format: $0.format, size: $0.variant, width: $0.width, height: $0.height,
                         bytes: Int($0.size), gainMap: $0.gainMap, role: $0.role.flatMap(OutputRole.init(rawValue:)), codec: $0.codec, codecs: $0.codecs, frames: $0.frames,
                         duration: $0.duration)
             }.sorted { ($0.size?.area ?? .max, $0.path) < ($1.size?.area ?? .max, $1.path) },
             readings: Readings.parse(item.readings))
    }

    public static func write(_ items: ManifestStream, to sink: TextSink) throws {
        try SplicedJSON.write(Head(), array: "items", items, to: sink)
    }

    /// Publishes the manifest at `relativePath` in the output tree, as any output is published
    /// (with its folders synced, when durable: no later commit does it).
    /// - Throws: `ManifestWriteError` with the reason.
    public static func publish(_ items: @escaping ManifestStream, at relativePath: String, under outputRoot: URL,
                               via temporaryFolder: URL, durability: Durability) throws {
        do {
            _ = try AtomicFile.write(relativePath, under: outputRoot, via: temporaryFolder, durability: durability) { temporary in
                try ReportFile.fill(URL(fileURLWithPath: temporary)) { try write(items, to: $0) }
            }
            try durability.syncFolders(of: [relativePath], under: outputRoot)
        } catch let failure as StageFailure {
            throw ManifestWriteError(description: failure.message)
        } catch {
            throw ManifestWriteError(description: "\(error)")
        }
    }
}

extension OutputRecord {
    /// The variant's size as listed, in the columns that hold it.
    var variant: VariantSize? {
        get {
            if let width = variantBoxWidth, let height = variantBoxHeight { return .box(width: width, height: height) }
            return variantSize.map(VariantSize.longestSide)
        }
        set {
            switch newValue {
            case .longestSide(let side)?: (variantSize, variantBoxWidth, variantBoxHeight) = (side, nil, nil)
            case .box(let width, let height)?: (variantSize, variantBoxWidth, variantBoxHeight) = (nil, width, height)
            case nil: (variantSize, variantBoxWidth, variantBoxHeight) = (nil, nil, nil)
            }
        }
    }
}

public struct ManifestWriteError: Error, CustomStringConvertible {
    public let description: String
}

extension Manifest.Item {
    private enum CodingKeys: String, CodingKey {
        case input, width, height, placeholder, caption, pairedWith, variants
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(input: try container.decode(String.self, forKey: .input), width: try container.decodeIfPresent(Int.self, forKey: .width),
                  height: try container.decodeIfPresent(Int.self, forKey: .height),
                  placeholder: try container.decodeIfPresent(String.self, forKey: .placeholder),
                  caption: try container.decodeIfPresent(String.self, forKey: .caption),
                  pairedWith: try container.decodeIfPresent(String.self, forKey: .pairedWith),
                  variants: try container.decode([Manifest.Variant].self, forKey: .variants))
        readings = try Readings.decode(from: decoder, besides: self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(input, forKey: .input)
        try container.encodeIfPresent(width, forKey: .width)
        try container.encodeIfPresent(height, forKey: .height)
        try container.encodeIfPresent(placeholder, forKey: .placeholder)
        try container.encodeIfPresent(caption, forKey: .caption)
        try container.encodeIfPresent(pairedWith, forKey: .pairedWith)
        try container.encode(variants, forKey: .variants)
        try Readings.encode(readings, to: encoder)
    }
}
