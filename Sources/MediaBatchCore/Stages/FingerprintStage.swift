import DuplicateKit
import Foundation
import MediaFormats
import PipelineModel
import RunState
import VipsKit

extension StageName {
    public static let fingerprint = StageName("fingerprint")
}

/// Reads what each photo looks like (`PhotoFingerprint`), with its file's SHA-256 and what picks
/// a keeper among copies (format, size, metadata, capture time), into the report, the manifest and
/// the state database under `fingerprint`: what `mediabatch duplicates` groups. From the smallest
/// picture `write` rendered of the whole photo, so a conversion job decodes nothing more; where
/// it rendered none (its outputs are copies, or kept; no `write`), from a 320-pixel decode of its own
/// (shrunk on load, a RAW's preview, a movie's poster frame).
struct FingerprintStage: PhotoReader, Equatable {
    /// The own decode's longest side: five pixels a cell of the picture. Not less: a phone HEIC's
    /// 320 × 240 thumbnail item (which a smaller decode reads) lies 0.0057 from its photo, as far
    /// as burst frames do (`DuplicateSearch.samePhotoSameSize`).
    static let decodedSide = 320

    static let syntax = [StageSyntax(
        spelling: "fingerprint",
        help: "Reads each photo's fingerprint and SHA-256 into the report, the manifest and the state database: what mediabatch duplicates groups.",
        options: []) { _ in FingerprintStage() }]

    static let placement = StagePlacement(rules: [.after(.decode, why: " (a fingerprint is of the decoded photo)"), .notAfterLast])

    var fingerprint: String { "fingerprint" }

    func explanation(among stages: [any Stage]) -> String? {
        "each photo's fingerprint, for mediabatch duplicates"
    }

    /// Reading fingerprints redoes items, not their outputs: those of an unchanged recipe are kept.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard format != nil else { return }
        // The picture's side: a reading of another is redone.
        fingerprint.outputs.append("\(self.fingerprint)/\(PhotoFingerprint.pictureSide)")
    }

    func read(_ photo: VImage?, of item: ItemContext, _ plan: ItemPlan, into outcome: inout PixelOutcome) throws {
        var image = photo
        if image == nil, let picture = Self.ownPicture(item, plan) {
            image = try PictureRenderer(path: item.input.path, pictures: [picture]).image(for: picture)
        }
        guard let image else { return }
        outcome.readings[Self.name.rawValue] = try Self.reading(of: image, item)
    }

    /// The photo at `decodedSide` pixels, as the plan's pictures decode it (a movie's at its poster's frame or the automatic one).
    private static func ownPicture(_ item: ItemContext, _ plan: ItemPlan) -> Picture? {
        let frame = item.video?.shownFrame.map {
            Picture.Source(stored: $0, orientation: 1, needsConversion: false, hasProfile: false, decoder: .movieFrame(.auto))
        }
        guard let source = plan.outputs.lazy.compactMap(\.picture).first?.source ?? frame ?? item.pictureSource else { return nil }
        return Picture(source: source).firstFrameOnly().fitted(in: Box(width: decodedSide, height: decodedSide), Fit())
    }

    /// The reading: the fingerprint (absent for a flat picture), the file's hash, the keeper's facts.
    static func reading(of photo: VImage, _ item: ItemContext) throws -> JSONValue {
        let upright = item.pictureSource?.upright ?? item.video?.shownFrame ?? PixelSize(width: photo.width, height: photo.height)
        let print = PhotoFingerprint(picture: try squeezedLuma(photo))
        // Only a time the photo's own metadata gives tells a burst's frames apart.
        let captured = item.facts.capture.flatMap { [.exif, .xmp, .quicktime].contains($0.source) ? $0.date.formatted(.iso8601) : nil }
        let reading = FingerprintReading(sha256: item.contentHash, format: item.format.rawValue, width: upright.width, height: upright.height,
                                         metadataBytes: metadataBytes(item), captured: captured,
                                         hashes: print?.hashes, picture: print?.picture,
                                         flat: print == nil ? true : nil)
        return reading.json
    }

    /// The photo's luma averaged into `pictureSide` × `pictureSide` cells, added up as `write` adds
    /// it up while it encodes (`VImage.tallied`): a fingerprint is the same whichever way its picture came.
    private static func squeezedLuma(_ picture: VImage) throws -> [UInt8] {
        let side = PhotoFingerprint.pictureSide
        // Every cell a pixel at least.
        let photo = picture.width < side || picture.height < side
            ? try picture.resized(width: max(side, picture.width), height: max(side, picture.height)) : picture
        let tallied = try photo.tallied(side: side)
        _ = try tallied.inMemory()
        guard let luma = tallied.talliedGrid(side: side) else { throw StageFailure(.decodeFailed, "the picture could not be added up") }
        return luma
    }

    private static func metadataBytes(_ item: ItemContext) -> Int {
        guard let metadata = item.metadata else { return 0 }
        return (metadata.exif?.tiff.count ?? 0) + (metadata.xmp?.count ?? 0) + (metadata.iptc?.count ?? 0)
    }
}

/// The `fingerprint` reading, as the report, the manifest and the state database hold it.
public struct FingerprintReading: Sendable {
    let sha256: String
    let format: String
    /// The photo's size, upright.
    let width: Int
    let height: Int
    /// Bytes of EXIF, XMP and IPTC.
    let metadataBytes: Int
    /// When the metadata says it was taken, ISO 8601.
    let captured: String?
    /// `PhotoFingerprint.hashes` (written in hexadecimal) and its picture (base64), read only where
    /// asked for (`parts`); absent for a flat picture.
    let hashes: [UInt64]?
    let picture: [UInt8]?
    let flat: Bool?

    /// As the report, the manifest and the state hold it: hashes in hexadecimal, the picture in base64.
    var json: JSONValue {
        var fields: [String: JSONValue] = [
            "sha256": .string(sha256), "format": .string(format), "width": .number(Double(width)), "height": .number(Double(height)),
            "metadataBytes": .number(Double(metadataBytes)),
        ]
        fields["captured"] = captured.map(JSONValue.string)
        fields["hashes"] = hashes.map { .array($0.map { .string(String(format: "%016llx", $0)) }) }
        fields["picture"] = picture.map { .string(Data($0).base64EncodedString()) }
        fields["flat"] = flat.map(JSONValue.bool)
        return .object(fields)
    }
}

extension FingerprintReading {
    /// The file at `path` as its reading describes it; its fingerprint is `print`.
    public func candidate(path: String) -> DuplicateCandidate {
        DuplicateCandidate(path: path, contentHash: sha256, hashes: hashes ?? [],
                           keeper: KeeperFacts(format: MediaFormat(rawValue: format), width: width, height: height,
                                               metadataBytes: metadataBytes, captured: captured.flatMap { try? Date($0, strategy: .iso8601) }))
    }

    /// The fingerprint, nil for a flat picture (or a reading of another picture size or windows).
    public var print: PhotoFingerprint? {
        guard let picture, let hashes, picture.count == PhotoFingerprint.pictureSide * PhotoFingerprint.pictureSide,
              hashes.count == PhotoFingerprint.windows.count else { return nil }
        return PhotoFingerprint(picture: picture, hashes: hashes)
    }

    /// From a report's or a manifest's readings; nil without a `fingerprint` reading.
    public init?(_ readings: [String: JSONValue]) {
        guard let value = readings[StageName.fingerprint.rawValue],
              let text = try? JSONEncoder().encode(JSONValue.object([StageName.fingerprint.rawValue: value])) else { return nil }
        self.init(readingsText: String(decoding: text, as: UTF8.self))
    }

    /// Which of the long fields to read: the picture is 4 KB of base64 a photo, and what groups a
    /// million photos reads it only for the pairs their hashes found.
    public enum Parts: Sendable {
        case withoutPicture, whole
    }

    /// From the readings a state database keeps of an item (`ItemRecord.readings`), read in place
    /// (`JSONText`): a million items' take a second or two, where a parser that builds every value
    /// (`JSONSerialization`) takes ten times as long and `JSONDecoder` most of a minute.
    public init?(readingsText text: String, _ parts: Parts = .whole) {
        let json = JSONText(text)
        guard let reading = json.member(StageName.fingerprint.rawValue, of: json.root) else { return nil }
        var sha256: String?, format: String?, width: Int?, height: Int?, metadataBytes = 0, captured: String?
        var hashes: [UInt64]?, picture: [UInt8]?, flat: Bool?
        json.forEachMember(of: reading) { key, value in
            switch key {
            case "sha256": sha256 = json.string(value)
            case "format": format = json.string(value)
            case "width": width = json.integer(value)
            case "height": height = json.integer(value)
            case "metadataBytes": metadataBytes = json.integer(value) ?? 0
            case "captured": captured = json.string(value)
            case "hashes": hashes = json.elements(of: value).compactMap { json.stringBytes($0).flatMap(Self.hexadecimal) }
            case "picture" where parts == .whole: picture = json.string(value).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
            case "flat": flat = json.boolean(value)
            default: break
            }
        }
        guard let sha256, let format, let width, let height else { return nil }
        self.init(sha256: sha256, format: format, width: width, height: height, metadataBytes: metadataBytes, captured: captured,
                  hashes: hashes, picture: picture, flat: flat)
    }

    /// 16 hexadecimal digits, as `json` writes a hash.
    private static func hexadecimal(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard digits.count == 16 else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt64(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt64(digit - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return value
    }
}
