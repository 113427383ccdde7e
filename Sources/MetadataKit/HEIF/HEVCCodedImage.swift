/// A HEIF file's primary image as mediabatch's own HEVC path decodes it: one `hvc1` image or a
/// `grid` of `hvc1` tiles sharing one decoder configuration, where each tile's coded bytes lie in
/// the file, and what libheif does with the decoded pixels (colour, transformations, alpha).
public struct HEVCCodedImage: Equatable, Sendable {
    /// `colr`'s `nclx` (ISO/IEC 23091-2 code points).
    public struct Colour: Equatable, Sendable {
        public let primaries: Int
        public let transfer: Int
        public let matrix: Int
        public let fullRange: Bool
    }

    /// A `clap` box's fractions (ISO/IEC 14496-12, 12.1.4), as stored.
    public struct CleanAperture: Equatable, Sendable {
        public let width: Fraction
        public let height: Fraction
        public let horizontalOffset: Fraction
        public let verticalOffset: Fraction
    }

    public struct Fraction: Equatable, Sendable {
        public let numerator: Int
        public let denominator: Int
    }

    /// The transformative properties, in the order the item lists them (libheif 1.15 applies them so).
    public enum Transform: Equatable, Sendable {
        /// `irot`: degrees, counter-clockwise.
        case rotation(counterClockwise: Int)
        /// `imir`: libheif 1.15 reads axis 1 as a left–right swap, 0 as top–bottom.
        case mirror(leftRight: Bool)
        case cleanAperture(CleanAperture)
    }

    /// The `hvcC` box's payload, the HEVC decoder configuration record: parameter sets and the
    /// size of each NAL unit's length.
    public let configuration: [UInt8]
    public let tileWidth: Int
    public let tileHeight: Int
    public let columns: Int
    public let rows: Int
    /// The picture the tiles make, cut to the grid's output size (a single image's `ispe`).
    public let width: Int
    public let height: Int
    /// Row by row: each tile's bytes, the file offsets of its extents in order.
    public let tiles: [[Range<Int>]]
    /// The tiles' `nclx`; nil where they have none (libheif then takes the HEVC stream's VUI).
    public let colour: Colour?
    /// The primary image's ICC profile (`prof` or `rICC`), else its first tile's.
    public let iccProfile: [UInt8]?
    public let transforms: [Transform]
    /// The alpha plane's image (an `auxl` to the primary whose `auxC` names alpha).
    public let alpha: Alpha?
    /// The first thumbnail item's size (`thmb` to the primary), turned and cut as libheif shows it:
    /// libvips' thumbnail reads that item instead where it is larger than the target.
    public var thumbnail: Size? = nil

    public struct Size: Equatable, Sendable {
        public let width: Int
        public let height: Int
    }

    public struct Alpha: Equatable, Sendable {
        public let configuration: [UInt8]
        public let width: Int
        public let height: Int
        public let extents: [Range<Int>]
    }

    /// libheif's bits per sample of the luma plane, from `hvcC` (8 for the common case).
    public var bitDepth: Int { HEVCConfiguration(configuration)?.bitDepth ?? 0 }

    /// Luma alone (an iPhone's gain map): `hvcC` says 4:0:0.
    public var isMonochrome: Bool { HEVCConfiguration(configuration)?.chromaFormat == 0 }

    /// The picture's size once its transformations are applied, as libheif gives it.
    public var displayedSize: (width: Int, height: Int) {
        Self.displayed(width: width, height: height, transforms)
    }

    static func displayed(width: Int, height: Int, _ transforms: [Transform]) -> (width: Int, height: Int) {
        var size = (width: width, height: height)
        for transform in transforms {
            switch transform {
            case .rotation(let degrees) where degrees % 180 == 90: size = (size.height, size.width)
            case .cleanAperture(let clap): size = clap.cut(width: size.width, height: size.height).map { ($0.width, $0.height) } ?? size
            default: break
            }
        }
        return size
    }
}

/// The fields of an `hvcC` payload (ISO/IEC 14496-15, 8.3.3.1) the decoding path checks.
struct HEVCConfiguration {
    let bitDepth: Int
    let chromaBitDepth: Int
    /// 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    let chromaFormat: Int

    init?(_ payload: [UInt8]) {
        guard payload.count >= 23, payload[0] == 1 else { return nil }
        chromaFormat = Int(payload[16] & 3)
        bitDepth = Int(payload[17] & 7) + 8
        chromaBitDepth = Int(payload[18] & 7) + 8
    }
}

extension HEVCCodedImage.CleanAperture {
    /// The region libheif 1.15 keeps of a `width` × `height` picture (`Box_clap`'s rounding, in
    /// 64-bit arithmetic where it uses int), or nil where it refuses the box.
    public func cut(width: Int, height: Int) -> (left: Int, top: Int, width: Int, height: Int)? {
        guard self.width.denominator > 0, self.height.denominator > 0, horizontalOffset.denominator > 0,
              verticalOffset.denominator > 0 else { return nil }
        var left = (horizontalOffset + HEVCCodedImage.Fraction(numerator: width - 1, denominator: 2) - (self.width - 1).halved).roundedDown
        var right = (self.width - 1 + left).rounded
        var top = (verticalOffset + HEVCCodedImage.Fraction(numerator: height - 1, denominator: 2) - (self.height - 1).halved).rounded
        var bottom = (self.height - 1 + top).rounded
        left = max(left, 0)
        top = max(top, 0)
        right = min(right, width - 1)
        bottom = min(bottom, height - 1)
        guard left <= right, top <= bottom else { return nil }
        return (left, top, right - left + 1, bottom - top + 1)
    }
}

/// libheif 1.15's `Fraction`: sums over the product of denominators, never reduced; rounding
/// by C's truncating division.
extension HEVCCodedImage.Fraction {
    static func + (a: Self, b: Self) -> Self {
        a.denominator == b.denominator ? .init(numerator: a.numerator + b.numerator, denominator: a.denominator)
            : .init(numerator: a.numerator * b.denominator + b.numerator * a.denominator, denominator: a.denominator * b.denominator)
    }

    static func - (a: Self, b: Self) -> Self {
        a + .init(numerator: -b.numerator, denominator: b.denominator)
    }

    static func - (a: Self, b: Int) -> Self { .init(numerator: a.numerator - b * a.denominator, denominator: a.denominator) }
    static func + (a: Self, b: Int) -> Self { .init(numerator: a.numerator + b * a.denominator, denominator: a.denominator) }
    var halved: Self { .init(numerator: numerator, denominator: denominator * 2) }
    var roundedDown: Int { numerator / denominator }
    var rounded: Int { (numerator + denominator / 2) / denominator }
}
