import VipsKit

/// Decodes an item's file once and makes from that one decode every picture its outputs need
/// (see `Picture`): the largest by decoding the file — shrunk on load to its size where the
/// format allows, turned upright — and each smaller one resized from the one above it. Pictures
/// are converted to sRGB where they ask. Several pictures, or one that several outputs encode,
/// are computed into memory once; a single picture streams into its encoder.
final class PictureRenderer {
    private let path: String
    /// Largest first; how many outputs encode each.
    private let pictures: [(picture: Picture, uses: Int)]
    private var rendered: [Picture: VImage]?

    init(path: String, pictures: [Picture]) {
        self.path = path
        let uses = Dictionary(pictures.map { ($0, 1) }, uniquingKeysWith: +)
        self.pictures = uses.sorted { ($0.key.size.longestSide, $0.key.size.width) > ($1.key.size.longestSide, $1.key.size.width) }
            .map { ($0.key, $0.value) }
    }

    /// `picture` rendered: the first call decodes the file and renders every picture.
    func image(for picture: Picture) throws -> VImage {
        let rendered = try self.rendered ?? renderAll()
        self.rendered = rendered
        guard let image = rendered[picture] else { preconditionFailure("a picture the renderer was not given") }
        return image
    }

    /// The smallest picture rendered, for a placeholder.
    func smallest() throws -> VImage? {
        guard let picture = pictures.last?.picture else { return nil }
        return try image(for: picture)
    }

    private func renderAll() throws -> [Picture: VImage] {
        let inMemory = pictures.count > 1 || pictures.contains { $0.uses > 1 }
        var rendered: [Picture: VImage] = [:]
        var previous: VImage?
        do {
            for (picture, _) in pictures {
                var image = try previous.map { try $0.resized(width: picture.size.width, height: picture.size.height) } ?? decode(picture)
                if picture.isConverted { image = try SRGB.converting(image) }
                if inMemory { image = try image.inMemory() }
                rendered[picture] = image
                previous = image
            }
        } catch let error as VipsError {
            throw StageFailure(.decodeFailed, error.message)
        }
        return rendered
    }

    /// The file decoded for `picture`: at its size, upright (libvips' thumbnail applies the
    /// orientation), or as stored and turned where the picture is.
    private func decode(_ picture: Picture) throws -> VImage {
        if picture.isResized { return try VImage.thumbnail(of: path, width: picture.size.width, height: picture.size.height) }
        let image = try VImage.decode(path)
        return picture.isTurned ? try image.upright() : image
    }
}
