import DuplicateKit
import Foundation
import MediaFormats
import PipelineModel
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
        let captured = item.facts.capture.flatMap { $0.source == .metadata ? $0.date.formatted(.iso8601) : nil }
        let reading = FingerprintReading(sha256: item.contentHash, format: item.format.rawValue, width: upright.width, height: upright.height,
                                         metadataBytes: metadataBytes(item), captured: captured,
                                         hashes: print.map { $0.hashes.map { String(format: "%016llx", $0) } },
                                         picture: print.map { Data($0.picture).base64EncodedString() },
                                         flat: print == nil ? true : nil)
        return try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(reading))
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
public struct FingerprintReading: Encodable, Sendable {
    let sha256: String
    let format: String
    /// The photo's size, upright.
    let width: Int
    let height: Int
    /// Bytes of EXIF, XMP and IPTC.
    let metadataBytes: Int
    /// When the metadata says it was taken, ISO 8601.
    let captured: String?
    /// `PhotoFingerprint.hashes`, hexadecimal, and its picture, base64; absent for a flat picture.
    let hashes: [String]?
    let picture: String?
    let flat: Bool?
}

extension FingerprintReading {
    /// The file at `path` as its reading describes it; its fingerprint is `print`.
    public func candidate(path: String) -> DuplicateCandidate {
        DuplicateCandidate(path: path, contentHash: sha256, hashes: windowHashes,
                           keeper: KeeperFacts(format: MediaFormat(rawValue: format), width: width, height: height,
                                               metadataBytes: metadataBytes, captured: captured.flatMap { try? Date($0, strategy: .iso8601) }))
    }

    /// The fingerprint, nil for a flat picture (or a reading of another picture size or windows).
    public var print: PhotoFingerprint? {
        let hashes = windowHashes
        guard let bytes = picture.flatMap({ Data(base64Encoded: $0) }), bytes.count == PhotoFingerprint.pictureSide * PhotoFingerprint.pictureSide,
              hashes.count == PhotoFingerprint.windows.count else { return nil }
        return PhotoFingerprint(picture: [UInt8](bytes), hashes: hashes)
    }

    private var windowHashes: [UInt64] { hashes?.compactMap { UInt64($0, radix: 16) } ?? [] }

    /// From a report's or a manifest's readings; nil without a `fingerprint` reading.
    public init?(_ readings: [String: JSONValue]) {
        guard let value = readings[StageName.fingerprint.rawValue],
              let text = try? JSONEncoder().encode(JSONValue.object([StageName.fingerprint.rawValue: value])) else { return nil }
        self.init(readingsText: String(decoding: text, as: UTF8.self))
    }

    /// From the readings a state database keeps of an item (`ItemRecord.readings`). Parsed by
    /// `JSONSerialization`: a million items' readings take seconds, where `JSONDecoder` takes most of a minute.
    public init?(readingsText text: String) {
        guard let readings = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
              let fields = readings[StageName.fingerprint.rawValue] as? [String: Any],
              let sha256 = fields["sha256"] as? String, let format = fields["format"] as? String,
              let width = fields["width"] as? Int, let height = fields["height"] as? Int else { return nil }
        self.init(sha256: sha256, format: format, width: width, height: height, metadataBytes: fields["metadataBytes"] as? Int ?? 0,
                  captured: fields["captured"] as? String, hashes: fields["hashes"] as? [String], picture: fields["picture"] as? String,
                  flat: fields["flat"] as? Bool)
    }
}
