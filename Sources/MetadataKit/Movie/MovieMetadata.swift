import Foundation

/// What a MOV/MP4/3GP says about itself in `moov` alone: tags, tracks, creation time.
public struct MovieMetadata: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public let key: String
        public let value: String
    }

    /// `moov/meta` keyed (`mdta`) tags in `keys` order, for values that render as text:
    /// strings and numbers. Other value types (images, binary plists) are left out.
    public let keyedValues: [Entry]
    /// The ISO 6709 text of `moov/udta/©xyz`, e.g. `+51.4169-000.0806/`.
    public let userDataLocation: String?
    /// Whether `moov/udta` holds a 3GPP `loci` box.
    public let hasLoci: Bool
    public let tracks: [MovieTrack]
    /// `mvhd`'s creation time; nil when the writer left it 0.
    public let creationTime: Date?

    public var make: String? { value(for: "com.apple.quicktime.make") }
    public var model: String? { value(for: "com.apple.quicktime.model") }
    public var creationDate: String? { value(for: "com.apple.quicktime.creationdate") }
    /// Pairs a Live Photo's movie with its still.
    public var contentIdentifier: String? { value(for: "com.apple.quicktime.content.identifier") }

    /// The ISO 6709 position: Apple's location key, else `©xyz`.
    public var iso6709: String? {
        value(for: MoovRewriter.positionKeyPrefix + "ISO6709") ?? userDataLocation
    }

    /// Whether a location tag is present, by the keys and boxes the editor removes.
    public var carriesLocation: Bool {
        userDataLocation != nil || hasLoci
            || keyedValues.contains { entry in MoovRewriter.locationKeyPrefixes.contains(where: entry.key.hasPrefix) }
    }

    public func value(for key: String) -> String? {
        keyedValues.first { $0.key == key }?.value
    }

    public init(contentsOfFile path: String) throws {
        try self.init(moov: MovieFile(path: path).moov)
    }

    init(moov bytes: [UInt8]) throws {
        let moov = try ISOBox.parse(header: Array(bytes.prefix(16)), at: 0, limit: bytes.count)
        let children = try ISOBox.boxes(in: bytes, moov.payloadStart..<moov.end)
        let userData = try children.first { $0.type == "udta" }.map { try ISOBox.boxes(in: bytes, $0.payloadStart..<$0.end) } ?? []
        // iPhones put keys in `moov/meta`; FFmpeg's `use_metadata_tags` in `moov/udta/meta`.
        keyedValues = try (children + userData).filter { $0.type == "meta" }.flatMap { try Self.keyedValues(of: $0, in: bytes) }
        userDataLocation = userData.first { $0.type == "©xyz" }.map { Self.userDataText($0, in: bytes) }
        hasLoci = userData.contains { $0.type == "loci" }
        tracks = try children.filter { $0.type == "trak" }.map { try MovieTrack($0, in: bytes) }
        creationTime = children.first { $0.type == "mvhd" }.flatMap { Self.creationTime(of: $0, in: bytes) }
    }

    /// `mvhd`: version and flags, then the creation time in seconds since 1904 (32 bits in
    /// version 0, 64 in version 1).
    private static func creationTime(of mvhd: ISOBox, in bytes: [UInt8]) -> Date? {
        guard mvhd.payloadStart + 12 <= mvhd.end else { return nil }
        let seconds = bytes[mvhd.payloadStart] == 1
            ? bytes.uint64(at: mvhd.payloadStart + 4).map(Double.init)
            : bytes.uint32(at: mvhd.payloadStart + 4).map(Double.init)
        guard let seconds, seconds > 0 else { return nil }
        let secondsFrom1904To1970 = 2_082_844_800.0
        return Date(timeIntervalSince1970: seconds - secondsFrom1904To1970)
    }

    static func keyedValues(of box: ISOBox, in bytes: [UInt8]) throws -> [Entry] {
        let meta = try QuickTimeMetaBox(box, in: bytes)
        guard meta.isKeyed else { return [] }
        let names = meta.keyNames(in: bytes)
        return try meta.items.compactMap { item in
            let index = QuickTimeMetaBox.keyIndex(of: item, in: bytes)
            guard names.indices.contains(index - 1),
                  let data = try item.child("data", in: bytes),
                  let value = renderedValue(data, in: bytes) else { return nil }
            return Entry(key: names[index - 1], value: value)
        }
    }

    /// A `data` box: a 32-bit type (well-known types in the low 24 bits), a 32-bit locale, then
    /// the value.
    private static func renderedValue(_ data: ISOBox, in bytes: [UInt8]) -> String? {
        guard let type = bytes.uint32(at: data.payloadStart).map({ $0 & 0xFF_FFFF }),
              data.payloadStart + 8 <= data.end else { return nil }
        let value = Array(bytes[data.payloadStart + 8..<data.end])
        switch (type, value.count) {
        case (1, _): return String(decoding: value, as: UTF8.self)
        case (21, 1...8): return String(signedInteger(value))
        case (22, 1...8): return String(value.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        case (23, 4): return value.uint32(at: 0).map { String(Float(bitPattern: $0)) }
        case (24, 8): return value.uint64(at: 0).map { String(Double(bitPattern: $0)) }
        default: return nil
        }
    }

    /// Big-endian two's complement of 1 to 8 bytes.
    private static func signedInteger(_ bytes: [UInt8]) -> Int64 {
        let unsigned = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let unusedBits = UInt64(64 - 8 * bytes.count)
        return Int64(bitPattern: unsigned << unusedBits) >> unusedBits
    }

    /// QuickTime user-data text: a 16-bit length, a 16-bit language code, then the text.
    private static func userDataText(_ box: ISOBox, in bytes: [UInt8]) -> String {
        let declared = Int(bytes.uint16(at: box.payloadStart) ?? 0)
        let textStart = min(box.payloadStart + 4, box.end)
        return String(decoding: bytes[textStart..<min(textStart + declared, box.end)], as: UTF8.self)
    }
}

/// One `trak`: what it carries and how its samples are described.
public struct MovieTrack: Equatable, Sendable {
    /// `hdlr`'s handler type: `vide`, `soun`, `meta`, `text`, `tmcd`…
    public let handler: String?
    /// The sample entry formats in `stsd`, e.g. `hvc1`, `avc1`, `mebx`.
    public let sampleEntryTypes: [String]
    /// Boxes inside the visual sample entries, e.g. `hvcC`, `vexu` (stereo views), `colr`.
    public let sampleEntryBoxTypes: [String]
    /// The track's own keyed tags (`trak/meta`), e.g. `com.apple.photos.captureMode`.
    public let keyedValues: [MovieMetadata.Entry]
    /// Key names a timed-metadata (`mebx`) track declares, e.g.
    /// `com.apple.quicktime.live-photo-info`.
    public let timedMetadataKeys: [String]

    /// Fixed fields before a visual sample entry's boxes: 8 of sample entry, 70 of picture
    /// description. A `mebx` entry has only the 8.
    static let visualEntryFields = 78
    static let metadataEntryFields = 8

    init(_ trak: ISOBox, in bytes: [UInt8]) throws {
        let mdia = try trak.child("mdia", in: bytes)
        keyedValues = try trak.child("meta", in: bytes).map { try MovieMetadata.keyedValues(of: $0, in: bytes) } ?? []
        handler = try mdia?.child("hdlr", in: bytes).flatMap { hdlr in
            // version and flags, a pre-defined 32 bits, then the handler type
            hdlr.payloadStart + 12 <= hdlr.end ? bytes.fourCC(at: hdlr.payloadStart + 8) : nil
        }
        let stsd = try mdia?.child("minf", in: bytes)?.child("stbl", in: bytes)?.child("stsd", in: bytes)
        // version and flags, an entry count, then the sample entries
        let entries = try stsd.map { try ISOBox.boxes(in: bytes, min($0.payloadStart + 8, $0.end)..<$0.end) } ?? []
        sampleEntryTypes = entries.map(\.type)
        var boxTypes: [String] = []
        var keys: [String] = []
        for entry in entries {
            if entry.type == "mebx" {
                let inner = try ISOBox.boxes(in: bytes, min(entry.payloadStart + Self.metadataEntryFields, entry.end)..<entry.end)
                for keyTable in inner where keyTable.type == "keys" {
                    keys += try Self.timedMetadataKeys(keyTable, in: bytes)
                }
            } else if handler == "vide" {
                // Not every writer pads entries to the full picture description; such entries have no boxes to list.
                boxTypes += (try? ISOBox.boxes(in: bytes, min(entry.payloadStart + Self.visualEntryFields, entry.end)..<entry.end))?
                    .map(\.type) ?? []
            }
        }
        sampleEntryBoxTypes = boxTypes
        timedMetadataKeys = keys
    }

    /// A `mebx` `keys` box holds one box per key (its type is the local key ID), each with a
    /// `keyd` box: a 4-byte namespace, then the key name.
    private static func timedMetadataKeys(_ keyTable: ISOBox, in bytes: [UInt8]) throws -> [String] {
        try ISOBox.boxes(in: bytes, keyTable.payloadStart..<keyTable.end).compactMap { key in
            guard let keyd = try key.child("keyd", in: bytes), keyd.payloadStart + 4 <= keyd.end else { return nil }
            return String(decoding: bytes[keyd.payloadStart + 4..<keyd.end], as: UTF8.self)
        }
    }
}
