import CMediaShim
import CVips
import MediaFormats

/// Which libvips loader and saver each codec is: libvips' names stay in this file.
extension Codec {
    /// The loader class: blocking or allowing it covers its file, buffer and source variants.
    /// ImageMagick's depends on the ImageMagick libvips was built with (after `Vips.start()`,
    /// which loads the module that holds it).
    var loaderClass: String {
        switch self {
        case .jpeg: return "VipsForeignLoadJpeg"
        case .png: return "VipsForeignLoadPng"
        case .gif: return "VipsForeignLoadNsgif"
        case .webp: return "VipsForeignLoadWebp"
        case .tiff: return "VipsForeignLoadTiff"
        case .heifHEVC, .heifAV1: return "VipsForeignLoadHeif"
        case .jxl: return "VipsForeignLoadJxl"
        // ImageMagick 7's (Debian 13) is a class of its own; ImageMagick 6's (Debian 12) is the plain one.
        case .magick: return g_type_from_name("VipsForeignLoadMagick7") != 0 ? "VipsForeignLoadMagick7" : "VipsForeignLoadMagick"
        }
    }

    /// The loader's nickname, as libvips records it on what it loads ("jpegload"; file, buffer
    /// and source variants add a suffix).
    var loaderNickname: String {
        switch self {
        case .jpeg: return "jpegload"
        case .png: return "pngload"
        case .gif: return "gifload"
        case .webp: return "webpload"
        case .tiff: return "tiffload"
        case .heifHEVC, .heifAV1: return "heifload"
        case .jxl: return "jxlload"
        case .magick: return "magickload"
        }
    }

    /// The libvips module that holds its loader and saver where a build makes them modules
    /// (Debian's does): `Vips.start()` loads these and no other.
    var libvipsModule: String? {
        switch self {
        case .heifHEVC, .heifAV1: return "heif"
        case .jxl: return "jxl"
        case .magick: return "magick"
        case .jpeg, .png, .gif, .webp, .tiff: return nil
        }
    }

    /// Whether its loader reads the header a field at a time, so that the whole file read in one
    /// go costs less: libheif parses its boxes from libvips' file source a read() a field,
    /// thousands for an iPhone HEIC (libheif 1.15 reads every item's data too, the tiles'
    /// included; bench/README.md, "HEIC: frame threads for the tail, headers from memory").
    var loaderReadsFieldByField: Bool {
        self == .heifHEVC || self == .heifAV1
    }

    /// Whether this libvips has its loader (ImageMagick's is a module a build may leave out).
    /// After `Vips.start()`, which loads the modules.
    public var hasLoader: Bool {
        g_type_from_name(loaderClass) != 0
    }

    /// Whether libvips marks its loader untrusted, which blocks it with every untrusted operation.
    var loaderIsUntrusted: Bool {
        self == .jxl || self == .magick
    }

    /// The saver class, for the one libvips marks untrusted and blocks with the loaders.
    var saverClass: String {
        switch self {
        case .jxl: return "VipsForeignSaveJxl"
        default: return ""
        }
    }

    /// The shim's saver for its encoder (`MB_SAVERS` in `mediabatch_savers.h`, the one list of them, each
    /// with its libvips call); a test checks that it is the saver libvips picks for the codec's files.
    var saver: MbSaver {
        switch self {
        case .jpeg: return MB_SAVER_JPEG
        case .png: return MB_SAVER_PNG
        case .gif: return MB_SAVER_GIF
        case .webp: return MB_SAVER_WEBP
        case .tiff: return MB_SAVER_TIFF
        case .heifHEVC: return MB_SAVER_HEIC
        case .heifAV1: return MB_SAVER_AVIF
        case .jxl: return MB_SAVER_JXL
        case .magick: preconditionFailure("ImageMagick only reads here: the format table gives it no encoder")
        }
    }

    /// The libvips saver `saver` is, as the shim's list names it: an operation's nickname without its
    /// variant (`avifsave`).
    var saverNickname: String {
        String(cString: mb_vips_saver_nickname(saver))
    }

    /// The saver libvips itself picks for a file named `*.<fileExtension>`, named as `saverNickname`
    /// names one; nil where it has none.
    static func libvipsSaver(forExtension fileExtension: String) -> String? {
        guard let name = mb_vips_saver_for_suffix("." + fileExtension) else { return nil }
        defer { g_free(name) }
        return String(cString: name)
    }
}
