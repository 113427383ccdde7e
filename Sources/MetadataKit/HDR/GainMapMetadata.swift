import Foundation

/// How a gain map turns its base image into the other rendition, in the terms ISO 21496-1 and
/// Google's Ultra HDR (`hdrgm` XMP) share: per channel, a log2 boost between `gainMapMin` and
/// `gainMapMax` shaped by `gamma`, applied as `(base + offsetBase) · 2^boost − offsetOther`, and
/// weighed by the display's headroom between `hdrCapacityMin` and `hdrCapacityMax` (log2).
///
/// Values are kept as Ultra HDR names them (offsets by rendition, SDR and HDR, not by role, base
/// and alternate): ISO's base/alternate pairs are swapped on the way in and out when the base is
/// the HDR rendition.
public struct GainMapMetadata: Equatable, Sendable, Codable {
    /// log2 of the smallest boost, one value or one per RGB channel.
    public var gainMapMin: [Double]
    /// log2 of the largest boost.
    public var gainMapMax: [Double]
    /// The gamma the map's values are encoded with.
    public var gamma: [Double]
    public var offsetSDR: [Double]
    public var offsetHDR: [Double]
    /// log2 of the headroom where the map starts to apply.
    public var hdrCapacityMin: Double
    /// log2 of the headroom where it applies fully.
    public var hdrCapacityMax: Double
    public var baseRenditionIsHDR: Bool
    /// ISO 21496-1's `use_base_colour_space`: the map applies in the base image's colour space.
    /// Ultra HDR's XMP cannot say otherwise, so it is true for every map read from XMP.
    public var usesBaseColourSpace: Bool

    /// Ultra HDR's defaults for the values its XMP may leave out: `OffsetSDR`/`OffsetHDR` 1/64.
    public static let defaultOffset = 1.0 / 64

    public init(gainMapMin: [Double] = [0], gainMapMax: [Double], gamma: [Double] = [1],
                offsetSDR: [Double] = [defaultOffset], offsetHDR: [Double] = [defaultOffset],
                hdrCapacityMin: Double = 0, hdrCapacityMax: Double, baseRenditionIsHDR: Bool = false,
                usesBaseColourSpace: Bool = true) {
        self.gainMapMin = gainMapMin
        self.gainMapMax = gainMapMax
        self.gamma = gamma
        self.offsetSDR = offsetSDR
        self.offsetHDR = offsetHDR
        self.hdrCapacityMin = hdrCapacityMin
        self.hdrCapacityMax = hdrCapacityMax
        self.baseRenditionIsHDR = baseRenditionIsHDR
        self.usesBaseColourSpace = usesBaseColourSpace
    }

    /// The metadata that reproduces Apple's gain map exactly once its values are remapped by
    /// `AppleHDR.recoveryLUT(headroom:)`: one channel, boosts from 0 to log2(headroom), gamma 1,
    /// offsets 0, applying fully at a display headroom of `headroom`. A headroom of 1 or less
    /// makes no HDR rendition, and `validated()` refuses it.
    public static func apple(headroom: Double) -> GainMapMetadata {
        let stops = log2(headroom)
        return GainMapMetadata(gainMapMin: [0], gainMapMax: [stops], gamma: [1], offsetSDR: [0], offsetHDR: [0],
                               hdrCapacityMin: 0, hdrCapacityMax: stops)
    }

    /// Every per-channel list, in the order ISO 21496-1 writes a channel's fields (offsets by
    /// role: ISO's base offset first).
    var channelLists: [[Double]] {
        [gainMapMin, gainMapMax, gamma, baseRenditionIsHDR ? offsetHDR : offsetSDR, baseRenditionIsHDR ? offsetSDR : offsetHDR]
    }

    /// Whether the lists say one thing for every channel: one value each, or three equal ones.
    var isSingleChannel: Bool {
        channelLists.allSatisfy { list in list.allSatisfy { $0 == list.first } }
    }

    /// The value of `list` for `channel` (0–2), a single value standing for all three.
    static func value(_ list: [Double], channel: Int) -> Double {
        list.count == 1 ? list[0] : list[channel]
    }

    /// The metadata, or an error naming what no reader could apply: a list that is not of one or
    /// three values, a value that is not finite, a boost range or headroom range that is empty
    /// or reversed, a gamma that is not positive, a negative offset.
    public func validated() throws -> GainMapMetadata {
        let lists = [("GainMapMin", gainMapMin), ("GainMapMax", gainMapMax), ("Gamma", gamma),
                     ("OffsetSDR", offsetSDR), ("OffsetHDR", offsetHDR)]
        for (name, list) in lists {
            guard list.count == 1 || list.count == 3 else { throw Self.invalid("\(name) has \(list.count) values, not 1 or 3") }
            guard list.allSatisfy(\.isFinite) else { throw Self.invalid("\(name) is not finite") }
        }
        guard hdrCapacityMin.isFinite, hdrCapacityMax.isFinite else { throw Self.invalid("HDRCapacityMin/Max is not finite") }
        for channel in 0..<3 where Self.value(gainMapMax, channel: channel) < Self.value(gainMapMin, channel: channel) {
            throw Self.invalid("GainMapMax is below GainMapMin in channel \(channel)")
        }
        guard gamma.allSatisfy({ $0 > 0 }) else { throw Self.invalid("Gamma is not positive") }
        guard (offsetSDR + offsetHDR).allSatisfy({ $0 >= 0 }) else { throw Self.invalid("an offset is negative") }
        guard hdrCapacityMin >= 0 else { throw Self.invalid("HDRCapacityMin is negative") }
        guard hdrCapacityMax > hdrCapacityMin else { throw Self.invalid("HDRCapacityMax is not above HDRCapacityMin") }
        return self
    }

    static func invalid(_ reason: String) -> MetadataFormatError {
        MetadataFormatError(message: "invalid gain map metadata: \(reason)")
    }
}
