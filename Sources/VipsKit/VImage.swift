import CMediaShim
import CVips
import Foundation

/// An immutable libvips image. It owns one reference and releases it in `deinit`; operations
/// return new images, never mutate this one.
public final class VImage: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<VipsImage>

    private init(owning pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit {
        g_object_unref(pointer)
    }

    /// Opens a file lazily: only its header is read until pixels are asked for, and then any
    /// decode error (truncation included) fails the read instead of leaving grey rows.
    public static func open(_ path: String) throws -> VImage {
        VImage(owning: try check(mb_vips_open_strict(path), "load"))
    }

    /// Decodes `path` to fit `maxSize` × `maxSize` (never upsized), shrinking on load, applying
    /// the orientation, and converting to `exportProfile` (e.g. "srgb") when given.
    public static func thumbnail(of path: String, maxSize: Int, exportProfile: String?) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try check(mb_vips_thumbnail(path, Int32(clamping: maxSize), exportProfile, &out), "thumbnail")
        return VImage(owning: out!)
    }

    public var width: Int { Int(vips_image_get_width(pointer)) }
    public var height: Int { Int(vips_image_get_height(pointer)) }
    /// Frames of an animation, pages of a TIFF or PDF, images of a HEIF sequence; 1 for a still.
    public var pageCount: Int { Int(vips_image_get_n_pages(pointer)) }
    public var bands: Int { Int(vips_image_get_bands(pointer)) }
    /// Bits per band sample (8 for uchar, 16 for ushort, ...).
    public var bitsPerSample: Int { Int(vips_format_sizeof(vips_image_get_format(pointer))) * 8 }
    /// CMYK pixels need a colour conversion even without an embedded profile.
    public var isCMYK: Bool { vips_image_guess_interpretation(pointer) == VIPS_INTERPRETATION_CMYK }
    /// The loader libvips picked from the file's bytes, e.g. "jpegload", "heifload".
    public var loader: String? { string("vips-loader") }
    /// EXIF-style orientation 1...8 (1 when absent).
    public var orientation: Int { int("orientation") ?? 1 }

    public var fieldNames: [String] {
        guard let names = vips_image_get_fields(pointer) else { return [] }
        defer { g_strfreev(names) }
        var result: [String] = []
        var cursor = names
        while let name = cursor.pointee {
            result.append(String(cString: name))
            cursor += 1
        }
        return result
    }

    public func hasField(_ name: String) -> Bool {
        vips_image_get_typeof(pointer, name) != 0
    }

    public func int(_ name: String) -> Int? {
        guard hasField(name) else { return nil }
        var value: Int32 = 0
        guard vips_image_get_int(pointer, name, &value) == 0 else {
            vips_error_clear()
            return nil
        }
        return Int(value)
    }

    /// Any field rendered as text, as `vipsheader -f` prints it.
    public func string(_ name: String) -> String? {
        guard hasField(name) else { return nil }
        var out: UnsafeMutablePointer<CChar>?
        guard vips_image_get_as_string(pointer, name, &out) == 0, let out else {
            vips_error_clear()
            return nil
        }
        defer { g_free(out) }
        return String(cString: out)
    }

    public func blob(_ name: String) -> [UInt8]? {
        guard hasField(name) else { return nil }
        var data: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_blob(pointer, name, &data, &length) == 0, let data else {
            vips_error_clear()
            return nil
        }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    /// A copy of this image whose metadata differs: fields starting with any of
    /// `removingPrefixes` are gone, then `blobs` are set. Pixels are shared, not copied.
    public func replacingMetadata(removingPrefixes: [String], blobs: [String: [UInt8]] = [:]) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try check(mb_vips_copy(pointer, &out), "copy")
        for name in fieldNames where removingPrefixes.contains(where: name.hasPrefix) {
            _ = vips_image_remove(out, name)
        }
        for (name, bytes) in blobs {
            bytes.withUnsafeBytes { vips_image_set_blob_copy(out, name, $0.baseAddress, $0.count) }
        }
        return VImage(owning: out!)
    }

    /// Encodes to `path` as `format` ("jpeg", "png", "webp", "gif", "tiff", "heif", "avif"),
    /// keeping metadata. This is where pixels are computed: decode errors surface here.
    public func save(to path: String, format: String, quality: Int) throws {
        try check(mb_vips_save(pointer, path, format, Int32(quality)), "save \(format)")
    }

    /// Mean of each band.
    public func bandMeans() throws -> [Double] {
        var means = [Double](repeating: 0, count: bands)
        try check(mb_vips_band_means(pointer, &means, Int32(bands)), "stats")
        return means
    }

    /// Mean absolute difference, over all bands, from an image of the same size.
    public func meanAbsoluteDifference(from other: VImage) throws -> Double {
        var result = 0.0
        try check(mb_vips_mean_abs_difference(pointer, other.pointer, &result), "difference")
        return result
    }

    /// Converts to sRGB with the embedded ICC profile.
    public func convertedToSRGB() throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try check(mb_vips_icc_to_srgb(pointer, &out), "icc_transform")
        return VImage(owning: out!)
    }
}
