import Foundation
import MediaFormats
import MetadataKit
import PipelineModel

/// A file beside a photo that belongs to it without being one (`SidecarNaming` finds it): an XMP
/// with its edits, ratings and keywords, Apple's AAE edits, a Takeout JSON with its dates.
public struct Sidecar: Codable, Equatable, Sendable {
    /// Relative to the input root.
    public let relativePath: String
    public let match: SidecarMatch

    /// The report's and the manifest's key for the sidecars written and left behind.
    static let readingKey = "sidecars"
}

extension Sidecar {
    // One string, `KIND/STYLE/MARK/MEDIA/PATH`: a sidecar crosses the worker pipes in every job and
    // plan of its photo, and a value costs JSON far more than its bytes. Only the path holds a `/`.
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        let fields = text.split(separator: "/", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 5, let kind = SidecarKind(rawValue: fields[0]), let style = SidecarStyle(rawValue: fields[1]) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a sidecar: \(text)"))
        }
        let mark: SidecarMatch.Mark? = switch fields[2] {
        case "": nil
        case "supplemental": .supplemental
        case "original": .original
        case let duplicate: .duplicate(suffix: String(duplicate.dropFirst(Self.duplicateMark.count)))
        }
        let name = fields[4].split(separator: "/").last.map(String.init) ?? fields[4]
        self.init(relativePath: fields[4], match: SidecarMatch(sidecar: name, media: fields[3], kind: kind, style: style, mark: mark))
    }

    public func encode(to encoder: Encoder) throws {
        let mark = switch match.mark {
        case nil: ""
        case .supplemental: "supplemental"
        case .original: "original"
        case .duplicate(let suffix): Self.duplicateMark + suffix
        }
        var container = encoder.singleValueContainer()
        try container.encode([match.kind.rawValue, match.style.rawValue, mark, match.media, relativePath].joined(separator: "/"))
    }

    private static let duplicateMark = "duplicate"
}

/// Attaches each folder's sidecars to their media files (`InputItem.sidecars`), so that no
/// sidecar is an item of its own; a sidecar whose photo is not there is listed once, refused.
enum SidecarPairer {
    static func pair(_ items: [InputItem]) -> [InputItem] {
        let listed = items.filter { $0.refusal == nil }
        let names = listed.map { ($0.relativePath as NSString).lastPathComponent }
        let (matches, orphans) = SidecarNaming.match(names) { MediaFormat.promised(byExtension: ($0 as NSString).pathExtension) != nil }
        guard !matches.isEmpty || !orphans.isEmpty else { return items }
        let folder = items.first?.relativeFolder ?? ""
        func path(_ name: String) -> String { folder.isEmpty ? name : folder + "/" + name }
        let sidecars = Dictionary(grouping: matches) { path($0.media) }
        let taken = Set(matches.map { path($0.sidecar) })
        let orphaned = Set(orphans.map(path))
        return items.compactMap { item in
            guard item.refusal == nil else { return item }
            if taken.contains(item.relativePath) { return nil }
            var item = item
            if orphaned.contains(item.relativePath) { item.refusal = .sidecarWithoutPhoto }
            item.sidecars = sidecars[item.relativePath]?.map { Sidecar(relativePath: path($0.sidecar), match: $0) } ?? []
            return item
        }
    }

    /// A RAW+JPEG pair's skipped file's sidecars go with the file processed: a Lightroom or
    /// darktable XMP of the RAW holds the photo's rating and keywords whichever file is written.
    static func handOver(_ items: [InputItem]) -> [InputItem] {
        var items = items
        for index in items.indices {
            guard let pair = items[index].rawJpegPair, !pair.processed, !items[index].sidecars.isEmpty,
                  let partner = items.firstIndex(where: { $0.relativePath == pair.partner }), items[partner].rawJpegPair?.processed == true
            else { continue }
            // One of a kind and style a photo: the partner's own wins, as its copy would take the same name.
            let own = Set(items[partner].sidecars.map { "\($0.match.kind) \($0.match.style) \(String(describing: $0.match.mark))" })
            items[partner].sidecars += items[index].sidecars.filter { !own.contains("\($0.match.kind) \($0.match.style) \(String(describing: $0.match.mark))") }
            items[index].sidecars = []
        }
        return items
    }
}

/// What an item's sidecars say, read once with its header: when it was captured, whether one
/// places the photo, and which cannot be read (reported; the photo goes on without them).
struct SidecarFacts: Sendable {
    /// An XMP sidecar's capture time, as written.
    var captured: String?
    /// Takeout's `photoTakenTime`.
    var takenAt: Date?
    var placePhoto = false
    /// The sidecars that travel with the photo.
    var readable: [Sidecar] = []
    /// Each unreadable sidecar with why.
    var problems: [(sidecar: Sidecar, reason: String)] = []

    static let none = SidecarFacts()

    static func read(_ sidecars: [Sidecar], root: URL) -> SidecarFacts {
        var facts = SidecarFacts()
        for sidecar in sidecars {
            do {
                let bytes = try [UInt8](Data(contentsOf: root.appending(path: sidecar.relativePath)))
                try facts.add(bytes, of: sidecar)
                facts.readable.append(sidecar)
            } catch {
                facts.problems.append((sidecar, "\(error)"))
            }
        }
        return facts
    }

    private mutating func add(_ bytes: [UInt8], of sidecar: Sidecar) throws {
        switch sidecar.match.kind {
        case .xmp:
            let read = try XMPSidecar.facts(in: bytes)
            captured = captured ?? read.captured
            placePhoto = placePhoto || read.hasLocation
        case .takeout:
            let read = try TakeoutJSON.facts(in: bytes)
            takenAt = takenAt ?? read.takenAt
            placePhoto = placePhoto || read.hasLocation
        case .aae:
            try AAESidecar.check(bytes)
        }
    }
}

extension Sidecar {
    /// Its bytes as they travel with an output: with `edits`' location removed (an XMP's as the
    /// photo's own XMP loses it, with every other group `stripMetadata` names; a Takeout JSON's
    /// `geoData` zeroed), everything else as it was. Also what was removed, for the report.
    func bytes(root: URL, editing edits: [MetadataEdit]) throws -> (bytes: [UInt8], removed: [String]) {
        let original = try [UInt8](Data(contentsOf: root.appending(path: relativePath)))
        guard !edits.isEmpty else { return (original, []) }
        switch match.kind {
        case .xmp:
            // Location as `XMPSidecar` cuts it, the file's declaration and wrapper kept; any other group
            // `stripMetadata` names as the photo's own XMP loses it.
            var (bytes, removed) = (original, [String]())
            if edits.contains(where: \.removesLocation), let cut = try XMPSidecar.removingLocation(from: original) {
                (bytes, removed) = (cut.bytes, cut.removed)
            }
            let others = edits.filter { $0 != .remove([.location]) }
            if !others.isEmpty {
                var metadata = ImageMetadata(blocks: MetadataBlocks(xmp: bytes))
                metadata.apply(others)
                (bytes, removed) = (metadata.xmp ?? [], removed + metadata.removed)
            }
            return (bytes, removed.map { "sidecar XMP \($0)" })
        case .takeout:
            guard edits.contains(where: \.removesLocation), let zeroed = try TakeoutJSON.removingLocation(from: original) else { return (original, []) }
            return (zeroed, ["sidecar Takeout geoData"])
        case .aae:
            return (original, [])
        }
    }
}
