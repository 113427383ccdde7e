import Foundation
import LibAVKit
import MetadataKit
import Scheduler
import VipsKit

/// A HEIC's primary image decoded by libavcodec, not libheif, and made what libvips' `heifload`
/// makes of it (see `YCbCrToRGB` for the colour): every tile decoded by one decoder context (two
/// frame threads at a batch's tail: `tailThreads`), converted on this thread (`YCbCrToRGB`)
/// straight into its place in one RGB (or RGBA) libvips memory image cut to the grid's size
/// (8-bit, or 16-bit for a picture of 10 or 12 bits, as `heifload` gives it) — or, where the
/// pictures asked are far smaller, into a strip box-shrunk a row of tiles at a time as libvips'
/// resize would begin (`shrinking`), so that no picture is too large to decode — then turned,
/// mirrored and cut as the file's properties say in their order, the ICC profile attached. Any
/// failure throws: the caller decodes with libheif. The turns and mirrors after the last cut are
/// left pending as the image's orientation: a quarter turn of a 12 MP picture costs as much as its
/// colour conversion, and `VImage.resized` turns the reduced picture instead (`upright()` the whole
/// one).
enum HEIFPicture {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `coded` from `path`, which libvips' header says is `expected` (upright) in size, its tiles
    /// through `threads` frame threads; `shrink` times smaller each way where it is over 1 (see `shrinking`).
    static func decode(path: String, _ coded: HEVCCodedImage, expected: (width: Int, height: Int), shrink: Int = 1,
                       threads: Int = 1) throws -> VImage {
        let shown = coded.displayedSize
        guard shown == expected else {
            throw Failure(description: "its structure makes \(shown.width)×\(shown.height), libheif \(expected.width)×\(expected.height)")
        }
        guard let file = FileHandle(forReadingAtPath: path) else { throw Failure(description: "cannot open \(path)") }
        defer { try? file.close() }
        // An alpha image is one picture of the whole size: with one, the picture is made whole.
        let factor = coded.alpha == nil ? shrink : 1
        var image = try factor > 1 ? decodeShrunk(coded, file, by: factor, threads: threads) : decodeWhole(coded, file, threads: threads)
        var whole = (width: coded.width, height: coded.height)
        let cut = coded.transforms.lastIndex { if case .cleanAperture = $0 { true } else { false } }.map { $0 + 1 } ?? 0
        for transform in coded.transforms[..<cut] { image = try transformed(image, transform, whole: &whole, shrunkBy: factor) }
        let pending = coded.transforms[cut...].reduce(Orientation.upright) { $0.then(orientation(of: $1)) }
        if pending != .upright { image = try image.withOrientation(pending.exif) }
        return try coded.iccProfile.map { try image.withICCProfile($0) } ?? image
    }

    /// The integer shrink libvips' `vips_resize` would start a reduce of a picture of `size` to
    /// `target` with (its "gap" of 2: a box shrink while that leaves at least twice the target
    /// each way; 1 for none), so that a HEIC decoded shrunk so is then resized as libvips would
    /// resize it whole. `target`: the largest width and the largest height asked of it.
    static func shrinking(_ size: (width: Int, height: Int), toCover target: PixelSize) -> Int {
        max(1, min(size.width / (2 * max(1, target.width)), size.height / (2 * max(1, target.height))))
    }

    /// Every tile converted into its place in one picture of the grid's size.
    private static func decodeWhole(_ coded: HEVCCodedImage, _ file: FileHandle, threads: Int) throws -> VImage {
        let bands = coded.alpha == nil ? 3 : 4, depth = VImage.SampleDepth(holding: coded.bitDepth)
        let stride = coded.width * bands * depth.rawValue / 8
        return try VImage.decoded(filling: coded.width, height: coded.height, bands: bands, depth: depth) { canvas in
            try decodeTiles(coded, file, threads: threads) { planes, left, top, width, height in
                convert(planes, coded, into: canvas, stride: stride, bands: bands, left: left, top: top, width: width, height: height)
            }
            if let alpha = coded.alpha { try decodeAlpha(alpha, coded, file, into: canvas, stride: stride) }
        }
    }

    /// Each row of tiles converted into a strip and box-shrunk `factor` times as it is decoded
    /// (`ShrinkingStrips`): a picture of any size is held a row of tiles and its shrunk picture at a
    /// time, never whole (a 21694 × 10847 panorama whole is 706 MB).
    private static func decodeShrunk(_ coded: HEVCCodedImage, _ file: FileHandle, by factor: Int, threads: Int) throws -> VImage {
        let depth = VImage.SampleDepth(holding: coded.bitDepth)
        let shrunk = ShrinkingStrips.shrunk(width: coded.width, height: coded.height, by: factor)
        return try VImage.decoded(filling: shrunk.width, height: shrunk.height, bands: 3, depth: depth) { canvas in
            let strips = ShrinkingStrips(width: coded.width, height: coded.height, bands: 3, depth: depth, factor: factor,
                                         stripRows: coded.tileHeight, into: canvas)
            try decodeTiles(coded, file, threads: threads) { planes, left, _, width, height in
                convert(planes, coded, into: strips.strip, stride: strips.stride, bands: 3, left: left, top: strips.pending,
                        width: width, height: height)
                if left + width == coded.width { strips.add(rows: height) }
            }
        }
    }

    /// A tile's planes to RGB in the item's nclx, else the stream's own VUI, as libheif takes them;
    /// none for luma alone, which libheif makes 4:2:0 without its nclx and so leaves as it is,
    /// whatever range the file states.
    private static func convert(_ planes: YCbCrPlanes, _ coded: HEVCCodedImage, into canvas: UnsafeMutablePointer<UInt8>, stride: Int,
                                bands: Int, left: Int, top: Int, width: Int, height: Int) {
        let colour = planes.chromaShift == nil ? [2, 2, 1]
            : coded.colour.map { [$0.matrix, $0.primaries, $0.fullRange ? 1 : 0] }
            ?? [planes.matrix, planes.primaries, planes.fullRange ? 1 : 0]
        YCbCrToRGB(matrix: colour[0], primaries: colour[1], fullRange: colour[2] == 1)
            .convert(luma: planes.luma, cb: planes.cb, cr: planes.cr, shift: planes.chromaShift ?? (0, 0), bitDepth: planes.bitDepth,
                     into: canvas, stride: stride, bands: bands, left: left, top: top, width: width, height: height)
    }

    /// Whether the first tile decodes to its size: a file libheif refuses is taken by the loader only
    /// then, so that a damaged one still fails in `decode` with libheif's reason.
    static func decodesFirstTile(path: String, _ coded: HEVCCodedImage) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path), let first = coded.tiles.first else { return false }
        defer { try? file.close() }
        return (try? HEVCDecoder(configuration: coded.configuration).decode(try read(first, file)) { planes in
            planes.width == coded.tileWidth && planes.height == coded.tileHeight
        }) ?? false
    }

    /// An auxiliary image of luma alone (an iPhone's HDR gain map), as libheif decodes it: the samples as coded,
    /// one band, with the item's own turns, mirrors and cuts applied.
    static func decodeLuma(path: String, _ coded: HEVCCodedImage, threads: Int = 1) throws -> VImage {
        guard let file = FileHandle(forReadingAtPath: path) else { throw Failure(description: "cannot open \(path)") }
        defer { try? file.close() }
        var image = try VImage.decoded(filling: coded.width, height: coded.height, bands: 1) { canvas in
            try decodeTiles(coded, file, threads: threads) { planes, left, top, width, height in
                YCbCrToRGB.copyLuma(planes.luma, bitDepth: 8, into: canvas, stride: coded.width, bands: 1, band: 0, left: left, top: top,
                                    width: width, height: height)
            }
        }
        var whole = (width: coded.width, height: coded.height)
        for transform in coded.transforms { image = try transformed(image, transform, whole: &whole, shrunkBy: 1) }
        return image
    }

    /// Frame threads for the tiles of an item with the machine to itself (one photo, a batch's last:
    /// `ItemJob.isTail`): the decoder works a tile ahead while `place` converts the last, on two
    /// CPUs, and a photo alone takes less time. Other items decode on one: with every CPU taken, a
    /// second thread only costs CPU (bench/README.md, "HEIC: frame threads for the tail").
    static let tailThreads = min(2, AvailableCPUs.count)

    /// Every tile decoded by one decoder context, each handed to `place` with where it goes in the picture.
    private static func decodeTiles(_ coded: HEVCCodedImage, _ file: FileHandle, threads: Int,
                                    place: (YCbCrPlanes, _ left: Int, _ top: Int, _ width: Int, _ height: Int) throws -> Void) throws {
        let decoder = try HEVCDecoder(configuration: coded.configuration, threads: threads)
        try decoder.decode(pictures: coded.tiles.count, { try read(coded.tiles[$0], file) }) { index, planes in
            let left = index % coded.columns * coded.tileWidth, top = index / coded.columns * coded.tileHeight
            let width = min(coded.tileWidth, coded.width - left), height = min(coded.tileHeight, coded.height - top)
            // libheif refuses a tile wholly outside the grid's picture.
            guard width > 0, height > 0 else { throw Failure(description: "tile \(index) lies outside the grid") }
            guard planes.width == coded.tileWidth, planes.height == coded.tileHeight else {
                throw Failure(description: "tile \(index) decodes to \(planes.width)×\(planes.height), not \(coded.tileWidth)×\(coded.tileHeight)")
            }
            // libheif takes the depth its `hvcC` states; a stream of another would not fill the picture as made.
            guard planes.bitDepth == coded.bitDepth else {
                throw Failure(description: "tile \(index) decodes to \(planes.bitDepth)-bit samples, its 'hvcC' says \(coded.bitDepth)")
            }
            try place(planes, left, top, width, height)
        }
    }

    /// The alpha image's luma as the fourth band, where it is the picture's size and depth (libheif
    /// does not scale it, and fails a picture and alpha of different depths).
    private static func decodeAlpha(_ alpha: HEVCCodedImage.Alpha, _ coded: HEVCCodedImage, _ file: FileHandle,
                                    into canvas: UnsafeMutablePointer<UInt8>, stride: Int) throws {
        let decoder = try HEVCDecoder(configuration: alpha.configuration)
        try decoder.decode(try read(alpha.extents, file)) { planes in
            guard planes.width == coded.width, planes.height == coded.height, planes.bitDepth == coded.bitDepth else {
                throw Failure(description: "its alpha is \(planes.width)×\(planes.height) of \(planes.bitDepth) bits, its picture "
                                  + "\(coded.width)×\(coded.height) of \(coded.bitDepth)")
            }
            YCbCrToRGB.copyLuma(planes.luma, bitDepth: planes.bitDepth, into: canvas, stride: stride, bands: 4, band: 3, left: 0, top: 0,
                                width: coded.width, height: coded.height)
        }
    }

    /// One tile's bytes: its extents, in order.
    private static func read(_ extents: [Range<Int>], _ file: FileHandle) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for extent in extents {
            try file.seek(toOffset: UInt64(extent.lowerBound))
            let data = try file.read(upToCount: extent.count) ?? Data()
            guard data.count == extent.count else { throw Failure(description: "the file ends inside a tile") }
            bytes += data
        }
        return bytes
    }

    /// A turn or mirror as the `Orientation` that makes it (libheif 1.15's directions); a cut as none.
    private static func orientation(of transform: HEVCCodedImage.Transform) -> Orientation {
        switch transform {
        case .rotation(let degrees): return Orientation(clockwiseTurns: (4 - degrees / 90) % 4, mirrored: false)
        case .mirror(let leftRight): return Orientation(clockwiseTurns: leftRight ? 0 : 2, mirrored: true)
        case .cleanAperture: return .upright
        }
    }

    /// `irot` and `imir` as EXIF orientations libvips applies, `clap` as its cut. `whole`: the
    /// picture's size before any shrink, which the cut is taken from (turned or cut here as the
    /// picture is); of a picture shrunk by `shrunkBy`, the cut shrunk so too.
    private static func transformed(_ image: VImage, _ transform: HEVCCodedImage.Transform, whole: inout (width: Int, height: Int),
                                    shrunkBy factor: Int) throws -> VImage {
        switch transform {
        case .rotation(let degrees):
            if degrees % 180 != 0 { whole = (whole.height, whole.width) }
            let exif = orientation(of: transform).exif
            return exif == 1 ? image : try image.oriented(exif)
        case .mirror:
            return try image.oriented(orientation(of: transform).exif)
        case .cleanAperture(let clap):
            guard let cut = clap.cut(width: whole.width, height: whole.height) else { throw Failure(description: "libheif refuses its 'clap'") }
            whole = (cut.width, cut.height)
            let left = cut.left / factor, top = cut.top / factor
            let right = min(image.width, (cut.left + cut.width + factor - 1) / factor)
            let bottom = min(image.height, (cut.top + cut.height + factor - 1) / factor)
            return try image.cropped(left: left, top: top, width: right - left, height: bottom - top)
        }
    }
}

/// One of EXIF's eight orientations as what making the picture upright does: quarter turns
/// clockwise, then a left–right mirror. Two in a row make one.
struct Orientation: Equatable {
    static let upright = Orientation(clockwiseTurns: 0, mirrored: false)
    let clockwiseTurns: Int
    let mirrored: Bool

    /// This, then `next`: a mirror before a turn is the opposite turn before the mirror.
    func then(_ next: Orientation) -> Orientation {
        Orientation(clockwiseTurns: (clockwiseTurns + (mirrored ? 4 - next.clockwiseTurns : next.clockwiseTurns)) % 4,
                    mirrored: mirrored != next.mirrored)
    }

    /// EXIF's number (2 mirrors, 6 turns a quarter clockwise, 5 is 6 then a mirror: a transpose).
    var exif: Int {
        mirrored ? [2, 5, 4, 7][clockwiseTurns] : [1, 6, 3, 8][clockwiseTurns]
    }
}

extension ItemContext {
    /// The threads its decoding computes with: `HEIFPicture.tailThreads` at a batch's tail (libavcodec's frame
    /// threads for a HEIC's tiles, libvips' own for every other picture: a gigapixel PNG alone, 7% faster),
    /// else one.
    var threads: Int { isTail ? HEIFPicture.tailThreads : 1 }
}
