import Foundation

/// ISO 21496-1 gain map metadata as JPEG carries it: an APP2 segment opening with the standard's
/// URN and a NUL, then the metadata. The primary image's segment holds only the versions (4 bytes:
/// it says "a gain map follows"); the gain map's holds everything. After the URN the bytes are
/// those of an AVIF/HEIF `tmap` item without its leading version byte.
///
/// Layout (big-endian; libultrahdr's `gainmapmetadata.cpp` and libavif's `tmap` reader agree):
/// `minimum_version` u16 (0 is the only one defined), `writer_version` u16, a flags byte
/// (0x80 multichannel: three channels, else one; 0x40 use the base colour space; 0x08 one common
/// denominator), then either the common denominator u32 followed by the numerators, or each value
/// as numerator and denominator: base and alternate HDR headroom (u32), then per channel gain map
/// min (s32), max (s32), gamma (u32), base offset (s32) and alternate offset (s32).
public enum ISO21496 {
    public static let namespace = Array("urn:iso:std:iso:ts:21496:-1\0".utf8)
    static let multichannel: UInt8 = 0x80
    static let baseColourSpace: UInt8 = 0x40
    static let commonDenominator: UInt8 = 0x08

    /// The primary image's APP2 payload: the URN, `minimum_version` 0 and `writer_version` 0.
    public static let versionOnlyPayload = namespace + [0, 0, 0, 0]

    /// The bytes after the URN, when `payload` (an APP2 segment's) is ISO 21496-1 metadata.
    public static func body(ofAPP2 payload: some Collection<UInt8>) -> [UInt8]? {
        let bytes = Array(payload)
        return bytes.starts(with: namespace) ? Array(bytes.dropFirst(namespace.count)) : nil
    }

    /// Whether `body` is the version-only form (the primary's), not metadata.
    public static func isVersionOnly(_ body: [UInt8]) -> Bool { body.count <= 4 }
}

extension GainMapMetadata {
    /// The metadata of an ISO 21496-1 body (after the URN). A headroom of the base above the
    /// alternate's marks an HDR base rendition, as the standard defines it.
    ///
    /// - Throws: `MetadataFormatError` for a `minimum_version` other than 0, a body cut short, a
    ///   zero denominator, or values `validated()` refuses.
    public init(iso21496 body: [UInt8]) throws {
        var reader = ISOFieldReader(bytes: body)
        let minimumVersion = try reader.unsigned(2)
        guard minimumVersion == 0 else { throw Self.invalid("unsupported ISO 21496-1 minimum_version \(minimumVersion)") }
        _ = try reader.unsigned(2) // writer_version: newer writers stay readable by version 0 readers
        let flags = UInt8(try reader.unsigned(1))
        let channels = flags & ISO21496.multichannel != 0 ? 3 : 1
        let common = flags & ISO21496.commonDenominator != 0 ? try reader.unsigned(4) : nil
        func fraction(signed: Bool) throws -> Double {
            let numerator = signed ? Double(Int32(bitPattern: UInt32(try reader.unsigned(4)))) : Double(try reader.unsigned(4))
            let denominator = try common ?? reader.unsigned(4)
            guard denominator != 0 else { throw Self.invalid("ISO 21496-1 fraction with a zero denominator") }
            return numerator / Double(denominator)
        }
        let baseHeadroom = try fraction(signed: false), alternateHeadroom = try fraction(signed: false)
        var lists = [[Double]](repeating: [], count: 5)
        for _ in 0..<channels {
            for (field, signed) in [true, true, false, true, true].enumerated() { lists[field].append(try fraction(signed: signed)) }
        }
        let baseIsHDR = baseHeadroom > alternateHeadroom
        self.init(gainMapMin: lists[0], gainMapMax: lists[1], gamma: lists[2],
                  offsetSDR: baseIsHDR ? lists[4] : lists[3], offsetHDR: baseIsHDR ? lists[3] : lists[4],
                  hdrCapacityMin: min(baseHeadroom, alternateHeadroom), hdrCapacityMax: max(baseHeadroom, alternateHeadroom),
                  baseRenditionIsHDR: baseIsHDR, usesBaseColourSpace: flags & ISO21496.baseColourSpace != 0)
        _ = try validated()
    }

    /// The gain map's APP2 payload: the URN, then the full metadata.
    public func iso21496Payload() -> [UInt8] { ISO21496.namespace + iso21496Body() }

    /// The metadata after the URN (a `tmap` item's payload without its version byte): versions 0,
    /// each value as its own fraction (no common denominator), one channel where all agree.
    public func iso21496Body() -> [UInt8] {
        let channels = isSingleChannel ? 1 : 3
        var flags: UInt8 = channels == 3 ? ISO21496.multichannel : 0
        if usesBaseColourSpace { flags |= ISO21496.baseColourSpace }
        var body: [UInt8] = [0, 0, 0, 0, flags]
        let (base, alternate) = baseRenditionIsHDR ? (hdrCapacityMax, hdrCapacityMin) : (hdrCapacityMin, hdrCapacityMax)
        body += Fraction(unsigned: base).bytes + Fraction(unsigned: alternate).bytes
        let lists = channelLists
        for channel in 0..<channels {
            for (field, list) in lists.enumerated() {
                let value = Self.value(list, channel: channel)
                body += (field == 2 ? Fraction(unsigned: value) : Fraction(signed: value)).bytes
            }
        }
        return body
    }
}

/// Big-endian fields of an ISO 21496-1 body, every read bounds-checked.
private struct ISOFieldReader {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func unsigned(_ size: Int) throws -> UInt32 {
        guard offset + size <= bytes.count else { throw GainMapMetadata.invalid("ISO 21496-1 metadata cut short at byte \(offset)") }
        defer { offset += size }
        return bytes[offset..<offset + size].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// A value as ISO 21496-1 stores it: a 32-bit numerator (signed or not) over an unsigned
/// denominator, the closest continued-fraction convergent that fits, so values read from a
/// fraction are written back as the same fraction.
struct Fraction: Equatable {
    let numerator: Int64
    let denominator: UInt32

    init(signed value: Double) { self.init(value, limit: Int64(Int32.max)) }
    init(unsigned value: Double) { self.init(Swift.max(value, 0), limit: Int64(UInt32.max)) }

    private init(_ value: Double, limit: Int64) {
        guard value.isFinite, abs(value) <= Double(limit) else {
            (numerator, denominator) = (value < 0 ? -limit : value.isNaN ? 0 : limit, 1)
            return
        }
        var (h0, h1, k0, k1) = (Int64(0), Int64(1), Int64(1), Int64(0))
        var best = (Int64(value.rounded()), Int64(1))
        var rest = abs(value)
        for _ in 0..<40 {
            let whole = rest.rounded(.down)
            // Checked as doubles first: the products may not fit 64 bits.
            guard whole * Double(h1) + Double(h0) <= Double(limit), whole * Double(k1) + Double(k0) <= Double(UInt32.max)
            else { break }
            let (h, k) = (Int64(whole) * h1 + h0, Int64(whole) * k1 + k0)
            guard h <= limit, k <= Int64(UInt32.max) else { break }
            (h0, h1, k0, k1) = (h1, h, k1, k)
            best = (value < 0 ? -h : h, k)
            let fraction = rest - whole
            if fraction < 1e-12 || abs(Double(h) / Double(k) - abs(value)) <= abs(value) * 1e-12 { break }
            rest = 1 / fraction
        }
        (numerator, denominator) = (best.0, UInt32(best.1))
    }

    var bytes: [UInt8] {
        let bits = UInt32(truncatingIfNeeded: numerator)
        return [bits >> 24, bits >> 16, bits >> 8, bits, denominator >> 24, denominator >> 16, denominator >> 8, denominator]
            .map { UInt8(truncatingIfNeeded: $0) }
    }
}
