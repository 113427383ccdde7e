/// The image file formats mediabatch reads and writes through libvips, and what libvips calls
/// their loaders and savers.
public enum ImageFileFormat: CaseIterable, Sendable {
    case jpeg, png, gif, webp, tiff, heic, avif

    /// The loader class: blocking or allowing it covers its file, buffer and source variants.
    var loaderClass: String {
        switch self {
        case .jpeg: return "VipsForeignLoadJpeg"
        case .png: return "VipsForeignLoadPng"
        case .gif: return "VipsForeignLoadNsgif"
        case .webp: return "VipsForeignLoadWebp"
        case .tiff: return "VipsForeignLoadTiff"
        case .heic, .avif: return "VipsForeignLoadHeif"
        }
    }

    /// The saver `mb_vips_save` picks by name (HEIC and AVIF are libheif's two compressions).
    var saverName: String {
        switch self {
        case .jpeg: return "jpeg"
        case .png: return "png"
        case .gif: return "gif"
        case .webp: return "webp"
        case .tiff: return "tiff"
        case .heic: return "heif"
        case .avif: return "avif"
        }
    }
}
