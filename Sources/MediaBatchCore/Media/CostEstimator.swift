import MediaFormats
import PipelineModel
import VipsKit

/// Estimates an item's peak memory from its header, before any pixel is decoded, so that the
/// scheduler can keep the sum of running items under the memory budget.
///
/// Each format's figures are in its `FormatTable` row, calibrated against peak RSS measured per
/// item (12 MP and 48 MP → 2048 px): JPEG/PNG/TIFF stream through libvips in strips; HEIC/AVIF
/// are decoded whole; WebP and GIF decode whole frames as RGBA. The calibration is in
/// docs/operations.md, "Memory budget and scheduling"; its figures in bench/README.md, "Figures
/// behind the code's choices".
public enum CostEstimator {
    /// Encoder buffers, the output image's lines, libvips bookkeeping.
    static let fixedBytes = 6 << 20
    /// Videos, and items no stage decodes, are copied through fixed-size buffers.
    static let copyBytes = 8 << 20

    /// A movie's poster: libavcodec's reference frames, the filter graph's planes (float ones
    /// where an HDR frame is tone-mapped) and the RGB frame libvips resizes, per pixel of the
    /// frame: calibrated on 4K frames made whole, 8-bit H.264 and 10-bit PQ HEVC (bench/README.md,
    /// "Figures behind the code's choices"). HEVC, AV1 and VP9 are where 10-bit and HDR are: they
    /// are budgeted as that worst case.
    static func posterBytes(frame: PixelSize, codec: String?) -> Int {
        let perPixel = ["hevc", "av1", "vp9"].contains(codec ?? "") ? 80 : 16
        return frame.width * frame.height * perPixel + fixedBytes
    }

    /// A rendition's peak: the decoder's frames and the filters' by the source's pixels, the
    /// encoder's lookahead and references by the output's, per pixel: calibrated on 1080p and 4K
    /// clips, one rendition at a time (bench/README.md, "Renditions" and "Figures behind the code's
    /// choices"). Each codec is budgeted at its worst: 10-bit, or tone-mapped in float.
    static func renditionBytes(source: PixelSize, output: PixelSize, codec: VideoCodec) -> Int {
        let perOutputPixel: Int
        switch codec {
        case .h264: perOutputPixel = 192
        case .hevc: perOutputPixel = 320
        case .av1: perOutputPixel = 280
        case .vp9: perOutputPixel = 184
        }
        return source.width * source.height * 40 + output.width * output.height * perOutputPixel + fixedBytes
    }

    /// A generous bound on a rendition's encoding time, single-threaded, for the item's timeout:
    /// seconds to encode one second of 1080p30 with each encoder's settings, as timed on a loaded
    /// machine (bench/README.md, "Figures behind the code's choices"), times four.
    static func encodingSeconds(frame: PixelSize, seconds: Double, fps: Double, codec: VideoCodec) -> Int {
        let perSecond: Double = codec == .h264 ? 2.5 : codec == .av1 ? 1.2 : 10
        let frames: Double = seconds * fps / 30, pixels = Double(frame.width * frame.height) / (1920 * 1080)
        return Int((frames * pixels * perSecond * 4).rounded(.up))
    }

    public struct ImageHeader: Sendable {
        public var format: MediaFormat
        public var width: Int
        public var height: Int
        public var bitsPerSample: Int
        /// An HDR photo's gain map is read too.
        public var hasGainMap: Bool
        /// An animation costs every frame it keeps: each is decoded, resized, kept and encoded.
        public var frames: Int
        /// A camera RAW's: a preview, or a develop (full or half-size).
        var raw: RawDecoding?
        /// A HEIC's tiles, where libavcodec decodes them (`HEIFPicture`): not whole, a row of them at a time.
        var heifTile: PixelSize?

        public init(format: MediaFormat, width: Int, height: Int, bitsPerSample: Int, hasGainMap: Bool = false, frames: Int = 1) {
            self.format = format
            self.width = width
            self.height = height
            self.bitsPerSample = bitsPerSample
            self.hasGainMap = hasGainMap
            self.frames = frames
        }

        /// The most frames any of `plan`'s pictures keeps: the file is decoded with that many.
        init(format: MediaFormat, image: VImage, plan: ItemPlan) {
            let pictures = plan.outputs.compactMap(\.picture)
            self.init(format: format, width: image.width, height: image.height, bitsPerSample: image.bitsPerSample,
                      hasGainMap: pictures.first?.source.gainMap != nil, frames: pictures.map(\.frames).max() ?? 1)
            // With an alpha image (a fourth band) the picture is decoded whole: budgeted as libheif's whole frame.
            if case .heif(.libavcodec(let tile))? = pictures.first?.source.decoder, image.bands < 4 { heifTile = tile }
        }

        /// A camera RAW's, from the picture `decode` planned.
        init(format: MediaFormat, raw picture: Picture.Source) {
            self.init(format: format, width: picture.stored.width, height: picture.stored.height, bitsPerSample: 8)
            raw = picture.raw
        }
    }

    public static func estimate(image header: ImageHeader, maxPixelSize: Int?) -> Int {
        let pixels = Double(header.width) * Double(header.height) * Double(header.frames)
        let depth = Double(max(8, header.bitsPerSample)) / 8
        if let tile = header.heifTile { return fixedBytes + heifTileRowsBytes(header, tile: tile, maxPixelSize: maxPixelSize) + gainMapBytes(header) }
        switch header.format.row.decodeCost {
        case .wholeFrame(let perPixel):
            return fixedBytes + Int(pixels * perPixel * depth) + gainMapBytes(header)
        case .streaming(let overhead, let perSide, let perShrunkColumn, let shrinksOnLoad):
            let shrink = shrinksOnLoad ? Double(jpegShrinkOnLoad(header, maxPixelSize: maxPixelSize)) : 1
            let columns = Double(header.width) / shrink, longest = Double(max(header.width, header.height)) / shrink
            let shrunkAfter = maxPixelSize.map { max(1, longest / Double(max(1, $0))) } ?? 1
            let lines = (pixels / (shrink * shrink)).squareRoot() * perSide + columns * shrunkAfter * perShrunkColumn
            return fixedBytes + overhead + Int(lines * depth) + gainMapBytes(header)
        case .rawDevelop(let rawPerPixel, let imagePerPixel):
            guard let raw = header.raw else { return copyBytes }
            switch raw.choice(needing: maxPixelSize) {
            case .preview:
                // The JPEG's bytes twice (LibRaw's copy, ours: half a byte a pixel) and its pixels as
                // libjpeg decodes them, shrunk on load where it can.
                let pixels = Double(raw.preview.map { $0.width * $0.height } ?? 0), shrink = Double(raw.previewShrink(needing: maxPixelSize ?? Int.max))
                return fixedBytes + Int(pixels * 0.5 + pixels / (shrink * shrink) * 4)
            case .develop(let halfSize):
                return fixedBytes + Int(pixels * rawPerPixel + pixels * imagePerPixel / (halfSize ? 4 : 1))
            }
        case .none:
            return copyBytes
        }
    }

    /// A HEIC libavcodec decodes (`HEIFPicture`): the RGB picture (8 or 16 bits a sample) shrunk as
    /// libvips' resize would begin to `maxPixelSize` (whole where that shrink is 1), and the larger of
    /// what its decode holds beside it (the strip of a row of tiles it is shrunk from, libavcodec's
    /// frames of one tile: 4:2:0 and its references) and what its resize and encode do (half the
    /// picture again, as measured): calibrated on 12 MP to 235 MP grids in bench/README.md, "Huge pictures".
    static func heifTileRowsBytes(_ header: ImageHeader, tile: PixelSize, maxPixelSize: Int?) -> Int {
        let sample = header.bitsPerSample > 8 ? 2 : 1, longest = max(header.width, header.height)
        let shrink = maxPixelSize.map { max(1, longest / (2 * max(1, $0))) } ?? 1
        let picture = (header.width + shrink - 1) / shrink * ((header.height + shrink - 1) / shrink) * 3 * sample
        let strip = shrink > 1 ? header.width * (tile.height + shrink - 1) * 3 * sample : 0
        return picture + max(strip + tile.width * tile.height * heifTileFrameBytes * sample, picture / 2)
    }

    /// libavcodec's frames of a tile, a byte per 8-bit sample: 4:2:0's 1.5 a pixel, times the frames it keeps.
    static let heifTileFrameBytes = 6

    /// A gain map is decoded whole, into memory, with its converted and resized copies: a byte a
    /// pixel of the picture bounds it (Apple's are one band at half size, a quarter byte a pixel;
    /// Ultra HDR's one or three bands at a quarter size or less).
    static func gainMapBytes(_ header: ImageHeader) -> Int {
        header.hasGainMap ? header.width * header.height : 0
    }

    /// libjpeg can decode at 1/2, 1/4 or 1/8 scale; libvips uses it when the reduction allows,
    /// and peak RSS shows no saving below 4×, so only 4× and 8× are counted.
    static func jpegShrinkOnLoad(_ header: ImageHeader, maxPixelSize: Int?) -> Int {
        guard let maxPixelSize else { return 1 }
        let reduction = Double(max(header.width, header.height)) / Double(maxPixelSize)
        if reduction >= 8 { return 8 }
        if reduction >= 4 { return 4 }
        return 1
    }


    /// `variants`: decoding for the largest variant, every variant kept in memory (3 bytes a
    /// pixel, until `write`) and the hungriest encoder on the largest one. Whole-frame decoders
    /// give their frame back (it is mmapped) before the first encode, so only the larger of the
    /// two counts; streaming ones leave their line buffers in the heap, so both do. The estimate
    /// stays above measured peaks, more so for HEIC than for JPEG (bench/README.md, "Figures behind
    /// the code's choices").
    static func estimate(variantsOf header: ImageHeader, pixels: [PixelSize], formats: Set<MediaFormat>) -> Int {
        let largest = pixels.map(\.longestSide).max() ?? max(header.width, header.height)
        let decode = estimate(image: header, maxPixelSize: largest)
        let kept = pixels.reduce(0) { $0 + $1.width * $1.height * 3 } * header.frames
        let largestArea = Double(pixels.map { $0.width * $0.height }.max() ?? 0) * Double(header.frames)
        let encode = fixedBytes + Int(largestArea * (formats.compactMap { $0.row.encoder?.bytesPerPixel }.max() ?? 0))
        // A RAW's develop, like a whole frame, is given back (LibRaw's buffers freed) before any encode.
        let wholeFrame = switch header.format.row.decodeCost { case .wholeFrame, .rawDevelop: true; default: false }
        let working = wholeFrame ? max(decode, encode) : decode + encode - fixedBytes
        return working + kept
    }
}
