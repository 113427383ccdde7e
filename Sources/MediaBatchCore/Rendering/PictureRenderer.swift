import LibAVKit
import MetadataKit
import PipelineModel
import VipsKit

/// Decodes an item's file once and makes from that one decode every picture its outputs need
/// (see `Picture`): the largest by decoding the file — shrunk on load to its size where the
/// format allows, turned upright — and each smaller one resized from the one above it (from one
/// that keeps the file's aspect ratio and covers it: a picture `fill` stretched is no source);
/// then each is cut or padded as its fit says (orientation is applied before: a crop is of the
/// upright picture). Pictures are converted to sRGB where they ask. Several pictures, or one that several
/// outputs encode, are computed into memory once; a single picture streams into its encoder.
/// A picture smartcrop cuts (attention, entropy) is the exception where libvips decodes the file: it is
/// decoded at its own size, as libvips' thumbnail makes it, so that smartcrop judges libvips' very pixels
/// (one resized from a larger picture differs by a level or so, and that can move the window).
/// An animation is decoded with every frame when any picture keeps them (libvips resizes each
/// frame alike), cut or padded a frame at a time; a picture of its first frame alone takes that
/// frame from the resized frames.
final class PictureRenderer {
    private let path: String
    /// Some picture keeps an animation's frames: the file is decoded with all of them.
    private let allFrames: Bool
    /// Largest (as resized, before framing) first; how many outputs encode each.
    private let pictures: [(picture: Picture, uses: Int)]
    private var rendered: [Picture: VImage]?
    /// Where smartcrop cut the pictures it chose a region of, in their resized images.
    private var smartCuts: [Picture: (left: Int, top: Int)] = [:]
    /// A camera RAW's: where its picture came from, once decoded.
    private(set) var rawSource: ItemResult.RawSource?
    /// A HEIC's: which decoder made its picture, and why libheif.
    private(set) var decoder: ItemResult.DecoderUse?
    /// libavcodec's frame threads for a HEIC's tiles (see `HEIFPicture.tailThreads`).
    private let decoderThreads: Int
    /// The stages whose operations pictures may name (`Picture.effects`).
    private let effects: [StageName: any PictureEffect]

    init(path: String, pictures: [Picture], decoderThreads: Int = 1, effects: [StageName: any PictureEffect] = [:]) {
        self.path = path
        self.decoderThreads = decoderThreads
        self.effects = effects
        allFrames = pictures.contains { $0.frames > 1 }
        let uses = Dictionary(pictures.map { ($0, 1) }, uniquingKeysWith: +)
        // Ties broken by what each picture is, not by the dictionary's order (seeded per process):
        // the same item renders its pictures in the same order, and picks the same placeholder, in every run.
        self.pictures = uses.sorted { ($0.key.scaled.longestSide, $0.key.scaled.width, "\($1.key)") > ($1.key.scaled.longestSide, $1.key.scaled.width, "\($0.key)") }
            .map { ($0.key, $0.value) }
    }

    /// `picture` rendered for a format with `alpha` or without: the first call decodes the file
    /// and renders every picture. `contain`'s padding is transparent by default, white where the
    /// format has no alpha.
    func image(for picture: Picture, alpha: Bool = true) throws -> VImage {
        let rendered = try self.rendered ?? renderAll()
        self.rendered = rendered
        guard let image = rendered[picture] else { preconditionFailure("a picture the renderer was not given") }
        guard !alpha, case .pad? = picture.framing?.placement else { return image }
        return try failingDecode { try image.flattenedOnWhite() }
    }

    /// Where `picture` was cut from its resized image when smartcrop chose the region (once
    /// rendered); nil for any other picture.
    func smartCut(of picture: Picture) -> (left: Int, top: Int)? {
        smartCuts[picture]
    }

    /// The smallest picture rendered that shows the whole photo in its own shape (nothing cut,
    /// padded or stretched), else the smallest: for a placeholder, which stands for the photo (an
    /// animation's first frame).
    func smallest() throws -> VImage? {
        guard let picture = (pictures.last { $0.picture.showsWholePhoto } ?? pictures.last)?.picture else { return nil }
        return try failingDecode { try image(for: picture).firstFrame() }
    }

    private func renderAll() throws -> [Picture: VImage] {
        let inMemory = pictures.count > 1 || pictures.contains { $0.uses > 1 }
        var rendered: [Picture: VImage] = [:]
        try failingDecode {
            let decoded = try decodedSource()
            var previous = try decoded ?? commonSource.map {
                try VImage.thumbnail(of: path, width: $0.width, height: $0.height, allFrames: allFrames).inMemory()
            }
            for (index, (picture, _)) in pictures.enumerated() {
                let smart = if case .smartCrop? = picture.framing?.placement { true } else { false }
                // smartcrop judges the picture libvips' thumbnail makes for this size (`decode`), not one resized
                // from a larger picture: where libvips decodes the file, a picture it cuts is decoded at its own size.
                let source = smart && decoded == nil ? nil : previous
                var image = try source.map { try resized($0, to: picture) } ?? decode(picture)
                if picture.isConverted { image = try SRGB.converting(image) }
                // smartcrop reads every pixel before it cuts: streamed, the file would be decoded twice.
                if inMemory || smart { image = try image.inMemory() }
                rendered[picture] = try applyEffects(frame(picture.frames == 1 ? image.firstFrame() : image, as: picture), picture)
                // The next source only where it keeps the file's shape and covers every picture after it.
                let covers = pictures[(index + 1)...].allSatisfy { $0.picture.scaled.width <= image.width && $0.picture.scaled.height <= image.frameHeight }
                if picture.keepsAspectRatio && covers { previous = image }
            }
        }
        return rendered
    }

    /// The picture every other is made from, where the source's own decoder makes it (a RAW's, a
    /// HEIC's through libavcodec, a movie's frame); nil where libvips decodes the file for each.
    private func decodedSource() throws -> VImage? {
        guard let source = pictures.first?.picture.source else { return nil }
        switch source.decoder {
        case .libvips: return nil
        case .heif(.libheif(let reason)):
            decoder = .init(decoder: .libheif, reason: reason)
            return nil
        case .heif(.libavcodec): return decodedHEIF(source)
        case .raw(let raw): return try decodedRaw(raw)
        case .movieFrame(let time): return try decodedPoster(at: time)
        }
    }

    /// A camera RAW's picture, upright, in memory: the source of every picture (see `RawPicture`).
    private func decodedRaw(_ raw: RawDecoding) throws -> VImage {
        let decoded = try RawPicture.decode(path: path, raw, needing: pictures.map(\.picture.scaled.longestSide).max() ?? 0)
        rawSource = decoded.source
        return decoded.image
    }

    /// A HEIC's picture decoded by libavcodec (`HEIFPicture`), its turn maybe pending, where its header chose
    /// that: the source of every picture. Where the loader declines the file (it may have changed
    /// since its header was read) or fails, nil: libheif decodes it, as for every other HEIC.
    private func decodedHEIF(_ source: Picture.Source) -> VImage? {
        switch HEIFCoding.read(path: path) {
        case .declines(let reason):
            decoder = .init(decoder: .libheif, reason: reason)
            return nil
        case .hevc(let coded):
            var declinedThumbnail: String?
            if let thumbnail = coded.thumbnail, let largest = pictures.first?.picture.scaled,
               thumbnail.width < coded.displayedSize.width, thumbnail.width > largest.width && thumbnail.height > largest.height {
                // The small thumbnail item, not the photo, where libvips' thumbnail decodes it for the same size (see
                // `open_heif` in resize.c: its shrink of the item to the exact size, the smaller of the two, over 1).
                let covers = "its \(thumbnail.width)×\(thumbnail.height) thumbnail covers the largest picture"
                do {
                    let image = try decodedHEIFThumbnail()
                    decoder = .init(decoder: .libavcodec, reason: covers, threads: decoderThreads)
                    return image
                } catch {
                    // Not libheif instead: libvips' thumbnail would read the same item, and libheif 1.15 fails on
                    // some that fail here (a camera HIF's, coded larger than its `ispe`).
                    declinedThumbnail = "\(covers), but \(error): the photo instead"
                }
            }
            do {
                let image = try HEIFPicture.decode(path: path, coded, expected: (source.upright.width, source.upright.height),
                                                   shrink: HEIFPicture.shrinking(coded.displayedSize, toCover: coveredSize), threads: decoderThreads)
                decoder = .init(decoder: .libavcodec, reason: declinedThumbnail, threads: decoderThreads)
                return image
            } catch {
                decoder = .init(decoder: .libheif, reason: [declinedThumbnail, "libavcodec failed: \(error)"].compactMap { $0 }.joined(separator: "; "))
                return nil
            }
        }
    }

    /// The largest width and the largest height of the pictures: what a picture decoded shrunk must cover.
    private var coveredSize: PixelSize {
        PixelSize(width: pictures.map(\.picture.scaled.width).max() ?? 1, height: pictures.map(\.picture.scaled.height).max() ?? 1)
    }

    /// A HEIC's thumbnail item decoded by libavcodec.
    private func decodedHEIFThumbnail() throws -> VImage {
        switch HEIFCoding.readThumbnail(path: path) {
        case .hevc(let thumbnail): return try HEIFPicture.decode(path: path, thumbnail, expected: thumbnail.displayedSize, threads: decoderThreads)
        case .declines(let reason): throw HEIFPicture.Failure(description: "the loader declines it: \(reason)")
        }
    }

    /// `source` resized to `picture`'s whole image. A RAW's or a HEIC's own decode is not resized where it is
    /// that size already; a RAW's is not enlarged where it is a preview smaller than asked and nothing is
    /// cut or padded (it is written as it is; the report says so).
    private func resized(_ source: VImage, to picture: Picture) throws -> VImage {
        let scaled = picture.scaled
        // A HEIC's own decode may still have its turn pending (see `HEIFPicture`).
        if picture.source.isDecodedWhole, source.uprightSize == (scaled.width, scaled.height) { return source.orientation == 1 ? source : try source.upright() }
        if picture.source.raw != nil, source.width < scaled.width && picture.framing == nil { return source }
        return try source.resized(width: scaled.width, height: scaled.height)
    }

    /// A movie's poster frame, upright, in sRGB, in memory: the source of every picture (see `PosterStage`).
    private func decodedPoster(at time: PosterStage.Time) throws -> VImage {
        let frame: PosterFrame
        do {
            // Shrunk by libavfilter to the largest picture's size first: a 4K HDR frame is tone-mapped in float planes.
            let largest = pictures.map(\.picture.scaled.longestSide).max()
            frame = try LibAV.poster(path: path, at: time.frameTime, fitting: largest)
        } catch {
            throw StageFailure(.decodeFailed, "cannot decode the poster frame: \(error)")
        }
        return try VImage.fromPixels(frame.rgb, width: frame.width, height: frame.height, bands: 3)
    }

    /// When the largest picture cannot be the others' source (`fill` stretched it, or another
    /// is wider or taller than it): the smallest size of the file's own shape that covers
    /// every picture, decoded first, so that the file is still decoded once.
    private var commonSource: PixelSize? {
        guard pictures.count > 1, let largest = pictures.first?.picture else { return nil }
        let covers = pictures.allSatisfy { $0.picture.scaled.width <= largest.scaled.width && $0.picture.scaled.height <= largest.scaled.height }
        guard !(largest.keepsAspectRatio && covers) else { return nil }
        let upright = largest.source.upright
        let scale = pictures.map { max(Double($0.picture.scaled.width) / Double(upright.width), Double($0.picture.scaled.height) / Double(upright.height)) }
        let common = min(1, scale.max() ?? 1)
        return PixelSize(width: max(1, Int((Double(upright.width) * common).rounded(.up))), height: max(1, Int((Double(upright.height) * common).rounded(.up))))
    }

    /// `image`, the whole picture resized, cut or padded to `picture`'s size.
    private func frame(_ image: VImage, as picture: Picture) throws -> VImage {
        guard let framing = picture.framing else { return image }
        let size = picture.size
        switch framing.placement {
        case .crop(let left, let top):
            return try image.frameByFrame { try $0.cropped(left: left, top: top, width: size.width, height: size.height) }
        case .smartCrop(let interest):
            // An animation's region is chosen on its first frame and cut from every frame: it holds still.
            let cut = try image.firstFrame().smartCropped(width: size.width, height: size.height, interest == .entropy ? .entropy : .attention)
            smartCuts[picture] = (cut.left, cut.top)
            guard image.frameCount > 1 else { return cut.image }
            return try image.frameByFrame { try $0.cropped(left: cut.left, top: cut.top, width: size.width, height: size.height) }
        case .pad(let left, let top, let background):
            let colour = background ?? .transparent
            return try image.frameByFrame {
                try $0.padded(left: left, top: top, width: size.width, height: size.height,
                              rgba: [colour.red, colour.green, colour.blue, colour.alpha].map(Double.init))
            }
        }
    }

    /// `image` with the operations `picture` names, in order, of stages of their own.
    private func applyEffects(_ image: VImage, _ picture: Picture) throws -> VImage {
        try picture.effects.reduce(image) { image, stage in
            guard let effect = effects[stage] else { preconditionFailure("a picture names \(stage), which the run does not have") }
            return try effect.apply(to: image, for: picture)
        }
    }

    /// The file decoded for `picture`: at its resized size, upright (libvips' thumbnail applies
    /// the orientation), or as stored and turned where the picture is. A picture to be cut is
    /// scaled by one factor, its covering side exact, as libvips' thumbnail scales before a crop:
    /// smartcrop's choice turns on the very pixels.
    private func decode(_ picture: Picture) throws -> VImage {
        let scaled = picture.scaled
        let cut = switch picture.framing?.placement { case .crop?, .smartCrop?: true; default: false }
        if cut, picture.isResized {
            // The side the cut leaves whole sets the scale; the other is unbounded (libvips' largest coordinate).
            let unbounded = 10_000_000, byWidth = scaled.width == picture.size.width
            let image = try VImage.thumbnail(of: path, fitting: byWidth ? scaled.width : unbounded, byWidth ? unbounded : scaled.height,
                                             allFrames: allFrames)
            // Rounded the other way (a side at .5): the size planned.
            guard image.width != scaled.width || image.frameHeight != scaled.height else { return image }
            return try image.resized(width: scaled.width, height: scaled.height)
        }
        if picture.isResized { return try VImage.thumbnail(of: path, width: scaled.width, height: scaled.height, allFrames: allFrames) }
        let image = try VImage.decode(path, allFrames: allFrames)
        return picture.isTurned ? try image.upright() : image
    }
}
