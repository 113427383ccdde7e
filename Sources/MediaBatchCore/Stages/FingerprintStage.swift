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
/// it rendered none (its outputs are copies, or kept; no `write`), from a 256-pixel decode of its own
/// (shrunk on load, a HEIC's thumbnail, a RAW's preview, a movie's poster frame).
struct FingerprintStage: PhotoReader, Equatable {
    /// The own decode's longest side: averaged into 32 × 32 cells, its luma is within a level of a larger picture's.
    static let decodedSide = 256

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
        fingerprint.outputs.append(self.fingerprint)
    }

    func read(_ photo: VImage?, of item: ItemContext, _ plan: ItemPlan, into outcome: inout PixelOutcome) throws {
        var image = photo
        if image == nil, let picture = Self.ownPicture(item, plan) {
            image = try PictureRenderer(path: item.input.path, pictures: [picture]).image(for: picture)
        }
        guard let image else { return }
        outcome.readings[Self.name.rawValue] = try Self.reading(of: image, item)
    }

    /// The photo at 256 pixels, as the plan's pictures decode it (a movie's at its poster's frame or the automatic one).
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
        let print = PhotoFingerprint(luma: try squeezedLuma(photo), width: upright.width, height: upright.height)
        let captured = item.facts.capture.flatMap { $0.source == .metadata ? $0.date.formatted(.iso8601) : nil }
        let reading = FingerprintReading(sha256: item.contentHash, format: item.format.rawValue, width: upright.width, height: upright.height,
                                         metadataBytes: metadataBytes(item), captured: captured,
                                         hash: print.map { String(format: "%016llx", $0.hash) }, grid: print.map { Data($0.grid).base64EncodedString() },
                                         flat: print == nil ? true : nil)
        return try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(reading))
    }

    /// The photo's luma averaged into `hashSide` × `hashSide` cells, as `write` adds it up while it
    /// encodes (`mb_vips_tally`): a fingerprint is the same whichever way its picture came.
    private static func squeezedLuma(_ picture: VImage) throws -> [UInt8] {
        let side = PhotoFingerprint.hashSide
        // Every cell a pixel at least.
        let photo = picture.width < side || picture.height < side
            ? try picture.resized(width: max(side, picture.width), height: max(side, picture.height)) : picture
        let rgba = try ThumbHash.RGBA(photo).samples
        var sums = [Double](repeating: 0, count: side * side), counts = sums
        for y in 0..<photo.height {
            for x in 0..<photo.width {
                let index = (y * photo.width + x) * 4, cell = y * side / photo.height * side + x * side / photo.width
                sums[cell] += 0.299 * Double(rgba[index]) + 0.587 * Double(rgba[index + 1]) + 0.114 * Double(rgba[index + 2])
                counts[cell] += 1
            }
        }
        return zip(sums, counts).map { UInt8(($1 > 0 ? $0 / $1 : 0).rounded()) }
    }

    private static func metadataBytes(_ item: ItemContext) -> Int {
        guard let metadata = item.metadata else { return 0 }
        return (metadata.exif?.tiff.count ?? 0) + (metadata.xmp?.count ?? 0) + (metadata.iptc?.count ?? 0)
    }
}

/// The `fingerprint` reading, as the report, the manifest and the state database hold it.
struct FingerprintReading: Codable {
    let sha256: String
    let format: String
    /// The photo's size, upright.
    let width: Int
    let height: Int
    /// Bytes of EXIF, XMP and IPTC.
    let metadataBytes: Int
    /// When the metadata says it was taken, ISO 8601.
    let captured: String?
    /// `PhotoFingerprint.hash`, hexadecimal, and its grid, base64; absent for a flat picture.
    let hash: String?
    let grid: String?
    let flat: Bool?
}

extension DuplicateCandidate {
    /// The file at `path` as its reading describes it.
    init(path: String, _ reading: FingerprintReading) {
        let grid = reading.grid.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
        let print = grid.flatMap { $0.count == PhotoFingerprint.side * PhotoFingerprint.side ? $0 : nil }
            .map { PhotoFingerprint(grid: $0, width: reading.width, height: reading.height) }
        self.init(path: path, contentHash: reading.sha256, fingerprint: print,
                  keeper: KeeperFacts(format: MediaFormat(rawValue: reading.format), width: reading.width, height: reading.height,
                                      metadataBytes: reading.metadataBytes, captured: reading.captured.flatMap { try? Date($0, strategy: .iso8601) }))
    }

    /// From a report's or a manifest's readings of the item at `path`; nil without a `fingerprint` reading.
    public init?(path: String, readings: [String: JSONValue]) {
        guard let value = readings[StageName.fingerprint.rawValue],
              let reading = try? JSONDecoder().decode(FingerprintReading.self, from: JSONEncoder().encode(value)) else { return nil }
        self.init(path: path, reading)
    }

    /// From the readings a state database keeps of the item at `path` (`ItemRecord.readings`).
    public init?(path: String, readingsText: String) {
        struct Readings: Decodable { let fingerprint: FingerprintReading? }
        guard let reading = try? JSONDecoder().decode(Readings.self, from: Data(readingsText.utf8)).fingerprint else { return nil }
        self.init(path: path, reading)
    }
}
