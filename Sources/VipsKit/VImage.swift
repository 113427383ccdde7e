import CMediaShim
import CVips
import Foundation
import MediaFormats

/// An immutable libvips image. It owns one reference and releases it in `deinit`; operations
/// return new images, never mutate this one.
///
/// Building a pipeline and freeing one take `building`, process-wide: libvips compiles its
/// vector code (ORC) when a resize is built and frees it with the image, and Debian 12's ORC
/// (0.4.33; fixed in 0.4.34) frees code without its own lock, so two threads doing either at
/// once corrupt its code allocator, and liborc crashes now and then (`VImageTests` hammers it
/// from four threads).
/// Computing pixels (`save`, `inMemory`, `pixels`) builds no vector code and stays parallel.
public final class VImage: @unchecked Sendable {
    /// Internal, with `init(owning:)`, for the metadata half in `VImage+Metadata.swift`.
    let pointer: UnsafeMutablePointer<VipsImage>

    init(owning pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    private static let building = NSLock()

    deinit {
        Self.building.withLock { g_object_unref(pointer) }
    }

    /// Runs a libvips call that builds operations, one thread at a time (see `building`). Its
    /// result is often a status `check` has already judged.
    @discardableResult
    static func build<T>(_ call: () throws -> T) rethrows -> T {
        try building.withLock(call)
    }

    /// Opens a file lazily: only its header is read until pixels are asked for, and then any
    /// decode error (truncation included) fails the read instead of leaving grey rows. A file of
    /// `expected`'s, where its loader reads the header a field at a time, is read into memory in
    /// one go first (see `Codec.loaderReadsFieldByField`).
    public static func open(_ path: String, expecting expected: Codec? = nil) throws -> VImage {
        let inMemory = expected?.loaderReadsFieldByField ?? false
        return VImage(owning: try build { try check(inMemory ? mb_vips_open_strict_in_memory(path) : mb_vips_open_strict(path), "load") })
    }

    /// `width` × `height` pixels of `bands` interleaved 8-bit samples, row after row (copied):
    /// pictures other libraries decoded (a movie's frame).
    public static func fromPixels(_ samples: [UInt8], width: Int, height: Int, bands: Int) throws -> VImage {
        precondition(samples.count == width * height * bands)
        return try samples.withUnsafeBytes { try copying($0, width: width, height: height, bands: bands) }
    }

    /// Opens `path` for its pixels, as stored (lazily: pixels are decoded as they are asked for,
    /// and a decode error fails the read); an animation's every frame with `allFrames`.
    public static func decode(_ path: String, allFrames: Bool = false) throws -> VImage {
        countDecode()
        return try open(loading(path, allFrames: allFrames))
    }

    /// Decodes `path` to fit `maxSize` × `maxSize` (never upsized), shrinking on load and
    /// applying the orientation.
    public static func thumbnail(of path: String, maxSize: Int) throws -> VImage {
        try thumbnail(of: path, fitting: maxSize, maxSize)
    }

    /// Decodes `path` scaled by one factor to fit `width` × `height` (upright sides; never
    /// upsized), shrinking on load and applying the orientation: as libvips' thumbnail scales a
    /// picture it then crops, the side that sets the scale exact.
    public static func thumbnail(of path: String, fitting width: Int, _ height: Int, allFrames: Bool = false) throws -> VImage {
        countDecode()
        var out: UnsafeMutablePointer<VipsImage>?
        try build { try check(mb_vips_thumbnail(loading(path, allFrames: allFrames), Int32(clamping: width), Int32(clamping: height), &out), "thumbnail") }
        return VImage(owning: out!)
    }

    /// Decodes `path` to exactly `width` × `height`, orientation applied (the caller keeps the
    /// aspect ratio), shrinking on load; an animation's every frame to that size with `allFrames`.
    public static func thumbnail(of path: String, width: Int, height: Int, allFrames: Bool = false) throws -> VImage {
        countDecode()
        var out: UnsafeMutablePointer<VipsImage>?
        try build { try check(mb_vips_thumbnail_exact(loading(path, allFrames: allFrames), Int32(clamping: width), Int32(clamping: height), &out), "thumbnail") }
        return VImage(owning: out!)
    }

    #if DEBUG
    private static let decodeCounter = NSLock()
    nonisolated(unsafe) private static var decodeCount = 0

    /// How many times this process has decoded a file's pixels (`decode`, `thumbnail`): what tests
    /// count to see that an item is decoded once. Debug builds only.
    public static var decodes: Int { decodeCounter.withLock { decodeCount } }

    private static func countDecode() {
        decodeCounter.withLock { decodeCount += 1 }
    }
    #else
    private static func countDecode() {}
    #endif

    /// Pixels another decoder made (LibRaw's develop): `samples`, `width` × `height` pixels of
    /// `bands` interleaved 8-bit samples, row after row, copied, so that the caller frees its
    /// buffer as soon as this returns. Counted as a decode of the file.
    public static func decoded(copying samples: UnsafeRawBufferPointer, width: Int, height: Int, bands: Int) throws -> VImage {
        countDecode()
        return try copying(samples, width: width, height: height, bands: bands)
    }

    /// A picture's header without pixels, of `depth` (a 10-bit HEIC's as heifload's: 16): for a
    /// file whose header another reader made (a HEIC that libheif refuses and mediabatch's own
    /// loader decodes). Asking it for pixels, or making another image of it, is an error.
    public static func header(width: Int, height: Int, bands: Int, depth: SampleDepth = .eight, iccProfile: [UInt8]?) throws -> VImage {
        let image = VImage(owning: try check(vips_image_new(), "new"))
        vips_image_init_fields(image.pointer, Int32(width), Int32(height), Int32(bands), depth.format, VIPS_CODING_NONE,
                               depth.interpretation(bands: bands), 1, 1)
        iccProfile?.withUnsafeBytes { vips_image_set_blob_copy(image.pointer, "icc-profile-data", $0.baseAddress, $0.count) }
        return image
    }

    /// How wide a memory image's samples are: 8 bits, or 16 (a HEIC of 10 or 12 bits, as `heifload` gives it).
    public enum SampleDepth: Int, Sendable {
        case eight = 8, sixteen = 16

        /// What holds samples of `bits` bits.
        public init(holding bits: Int) { self = bits > 8 ? .sixteen : .eight }

        var format: VipsBandFormat { self == .eight ? VIPS_FORMAT_UCHAR : VIPS_FORMAT_USHORT }

        /// What heifload calls such an image: libvips would call a 16-bit memory image of 3 bands sRGB, and the
        /// savers and colour conversions would then clip it to 8 bits rather than scale it.
        func interpretation(bands: Int) -> VipsInterpretation {
            switch self {
            case .eight: bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W
            case .sixteen: bands >= 3 ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_GREY16
            }
        }
    }

    /// Pixels another decoder writes straight into a new memory image (a HEIC's tiles, decoded by
    /// libavcodec): `fill` gets its `width` × `height` pixels of `bands` interleaved samples of
    /// `depth` (16 bits: native-endian, two bytes each), row after row, over a buffer kept between
    /// items (`CanvasPool`); nothing is copied afterwards. Counted as a decode of the file.
    public static func decoded(filling width: Int, height: Int, bands: Int, depth: SampleDepth = .eight,
                               _ fill: (UnsafeMutablePointer<UInt8>) throws -> Void) throws -> VImage {
        let (image, pixels) = try CanvasPool.image(width: width, height: height, bands: bands, depth: depth)
        try fill(pixels)
        countDecode()
        return image
    }

    static func copying(_ samples: UnsafeRawBufferPointer, width: Int, height: Int, bands: Int) throws -> VImage {
        precondition(samples.count >= width * height * bands)
        let image = vips_image_new_from_memory_copy(samples.baseAddress, width * height * bands, Int32(width), Int32(height),
                                                    Int32(bands), VIPS_FORMAT_UCHAR)
        return VImage(owning: try check(image, "new_from_memory_copy"))
    }

    /// This image resized to exactly `width` × `height` with `thumbnail`'s kernel.
    public func resized(width: Int, height: Int) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_resize_exact(pointer, Int32(clamping: width), Int32(clamping: height), &out), "resize") }
        return VImage(owning: out!)
    }

    /// This image computed once into memory: what is made from it afterwards does not decode
    /// the file again (libvips pipelines are lazy, and a file read once streams). Its ICC profile
    /// is its own copy: libvips 8.14's `heifload` attaches one it does not own, freed with the
    /// loader, which the memory image outlives (fixed in libvips 8.15).
    public func inMemory() throws -> VImage {
        let memory = VImage(owning: try check(vips_image_copy_memory(pointer), "copy_memory"))
        if memory.pointer != pointer, let profile = iccProfile {
            profile.withUnsafeBytes { vips_image_set_blob_copy(memory.pointer, "icc-profile-data", $0.baseAddress, $0.count) }
        }
        return memory
    }

    public var width: Int { Int(vips_image_get_width(pointer)) }
    public var height: Int { Int(vips_image_get_height(pointer)) }
    /// Frames of an animation, pages of a TIFF or PDF, images of a HEIF sequence; 1 for a still.
    /// Read from the loader's own `n-pages` field: `vips_image_get_n_pages` answers 1 for 10 000
    /// pages or more, and libvips 8.16's GIF loader counts every frame where 8.14's stopped at
    /// 4097, so a 10 000-frame GIF would pass `limits.maxFrames` as a still.
    public var pageCount: Int { max(int("n-pages") ?? 1, 1) }
    public var bands: Int { Int(vips_image_get_bands(pointer)) }
    /// Bits per band sample (8 for uchar, 16 for ushort, ...).
    public var bitsPerSample: Int { Int(vips_format_sizeof(vips_image_get_format(pointer))) * 8 }
    /// CMYK pixels need a colour conversion even without an embedded profile.
    public var isCMYK: Bool { vips_image_guess_interpretation(pointer) == VIPS_INTERPRETATION_CMYK }

    /// Encoded in memory by `codec`'s saver, with the metadata fields it carries (see
    /// `withoutMetadataBlocks`). This is where pixels are computed: an error there, upstream of
    /// the saver, is the decode's (`VipsError.Side.decode`), one in the saver the encode's.
    /// `effort` is the WebP (0–6), AVIF (0–9) or JPEG XL (1–9) encoder's.
    public func encoded(as codec: Codec, quality: Int, effort: Int = 4) throws -> [UInt8] {
        var watched: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_watch(pointer, &watched), "watch") }
        let source = VImage(owning: watched!)
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = mb_vips_save_buffer(source.pointer, codec.saver, Int32(quality), Int32(effort), &buffer, &length)
        defer { g_free(buffer) }
        try check(status, "save \(codec)", side: mb_vips_watch_failed(source.pointer) != 0 ? .decode : .encode)
        return [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
    }

    /// Every pixel, band-interleaved row by row, each sample `bitsPerSample` wide in the
    /// machine's byte order. This computes the whole image in memory.
    public func pixels() throws -> [UInt8] {
        var size = 0
        let buffer = try check(vips_image_write_to_memory(pointer, &size), "write_to_memory")
        defer { g_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: size))
    }

    /// The pixels turned and flipped as the orientation says, the orientation reset to 1.
    public func upright() throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_autorot(pointer, &out), "autorot") }
        return VImage(owning: out!)
    }

    /// Converts to sRGB with the embedded ICC profile.
    public func convertedToSRGB() throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_icc_to_srgb(pointer, &out), "icc_transform") }
        return VImage(owning: out!)
    }
}
