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
/// it rendered none (its outputs are copies, or kept; no `write`), from a 64-pixel decode of its own
/// (shrunk on load, a HEIC's thumbnail, a RAW's preview, a movie's poster frame).
struct FingerprintStage: PhotoReader, Equatable {
    /// The own decode's longest side: the grids are 32 × 32.
    static let decodedSide = 64

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

    /// The photo at 64 pixels, as the plan's pictures decode it (a movie's at its poster's frame or the automatic one).
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
        let squeezed = try ThumbHash.RGBA(photo.resized(width: PhotoFingerprint.hashSide, height: PhotoFingerprint.hashSide))
        let luma = stride(from: 0, to: squeezed.samples.count, by: 4).map { index in
            let (r, g, b) = (Double(squeezed.samples[index]), Double(squeezed.samples[index + 1]), Double(squeezed.samples[index + 2]))
            return UInt8((0.299 * r + 0.587 * g + 0.114 * b).rounded())
        }
        var reading: [String: JSONValue] = [
            "sha256": .string(item.contentHash), "format": .string(item.format.rawValue),
            "width": .number(Double(upright.width)), "height": .number(Double(upright.height)),
            "metadataBytes": .number(Double(metadataBytes(item))),
        ]
        if let captured = item.facts.capture, captured.source == .metadata { reading["captured"] = .string(ISO8601DateFormatter().string(from: captured.date)) }
        if let print = PhotoFingerprint(luma: luma, width: upright.width, height: upright.height) {
            reading["hash"] = .string(String(format: "%016llx", print.hash))
            reading["grid"] = .string(Data(print.grid).base64EncodedString())
        } else {
            reading["flat"] = true
        }
        return .object(reading)
    }

    private static func metadataBytes(_ item: ItemContext) -> Int {
        guard let metadata = item.metadata else { return 0 }
        return (metadata.exif?.tiff.count ?? 0) + (metadata.xmp?.count ?? 0) + (metadata.iptc?.count ?? 0)
    }
}

extension DuplicateCandidate {
    /// The file at `path` as its `fingerprint` reading describes it; nil for anything else.
    public init?(path: String, reading: JSONValue) {
        guard case .object(let fields) = reading, case .string(let sha)? = fields["sha256"],
              case .number(let width)? = fields["width"], case .number(let height)? = fields["height"] else { return nil }
        var print: PhotoFingerprint?
        if case .string(let hex)? = fields["hash"], let hash = UInt64(hex, radix: 16),
           case .string(let grid)? = fields["grid"], let bytes = Data(base64Encoded: grid), bytes.count == PhotoFingerprint.side * PhotoFingerprint.side {
            print = PhotoFingerprint(hash: hash, grid: [UInt8](bytes), width: Int(width), height: Int(height))
        }
        let format = if case .string(let name)? = fields["format"] { MediaFormat(rawValue: name) } else { MediaFormat?.none }
        let captured = if case .string(let text)? = fields["captured"] { ISO8601DateFormatter().date(from: text) } else { Date?.none }
        let metadata = if case .number(let bytes)? = fields["metadataBytes"] { Int(bytes) } else { 0 }
        self.init(path: path, contentHash: sha, fingerprint: print,
                  keeper: KeeperFacts(format: format, width: Int(width), height: Int(height), metadataBytes: metadata, captured: captured))
    }

    /// From a state database's or a manifest's readings of the item at `path`.
    public init?(path: String, readings: [String: JSONValue]) {
        guard let reading = readings[StageName.fingerprint.rawValue] else { return nil }
        self.init(path: path, reading: reading)
    }
}

extension DuplicateCandidate {
    /// From the readings a state database keeps of the item at `path` (`ItemRecord.readings`).
    public init?(path: String, readingsText: String) {
        self.init(path: path, readings: Readings.parse(readingsText))
    }
}
