import CLibRaw
import Foundation

/// A camera RAW opened by LibRaw (its thread-safe build, one handle per file): what its headers
/// say, its embedded preview, or its sensor data developed. LibRaw reads only the headers when
/// it opens a file; `develop` unpacks the sensor data. Each handle does one thing: `develop`
/// gives its buffers back, so a preview after it needs a file opened again.
public final class RawFile {
    private let data: UnsafeMutablePointer<libraw_data_t>

    public init(path: String) throws {
        guard let data = libraw_init(0) else {
            throw LibRawError(code: .insufficientMemory, operation: "init", message: "LibRaw could not allocate its handle")
        }
        self.data = data
        // Thrown from here, the handle is closed by `deinit`.
        try check(libraw_open_file(data, path), "open")
    }

    deinit {
        libraw_close(data)
    }

    /// The headers of the file at `path`, or why LibRaw cannot read them.
    public static func facts(ofFile path: String) -> Result<RawFacts, LibRawError> {
        do {
            return .success(try RawFile(path: path).facts)
        } catch {
            return .failure(error as? LibRawError ?? LibRawError(code: .unspecified, operation: "open", message: "\(error)"))
        }
    }

    /// The sizes, the orientation and the preview, from the headers alone.
    public var facts: RawFacts {
        let sizes = data.pointee.sizes, thumbnail = data.pointee.thumbnail
        // LibRaw 0.20 says what the preview is coded as only once it is read (`previewJPEG`).
        let preview = thumbnail.twidth > 0 && thumbnail.theight > 0 ? RawFacts.Size(width: Int(thumbnail.twidth), height: Int(thumbnail.theight)) : nil
        return RawFacts(raw: .init(width: Int(sizes.raw_width), height: Int(sizes.raw_height)),
                        developed: .init(width: Int(sizes.width), height: Int(sizes.height)),
                        orientation: RawFacts.orientation(flip: sizes.flip), preview: preview)
    }

    /// The sensor data developed as `dcraw_emu -w -o 1 -q 3` does (`-h` with `halfSize`): the
    /// camera's white balance, AHD demosaic, sRGB, 8 bits, LibRaw's automatic brightening; turned
    /// upright by the RAW's orientation as `dcraw_emu`'s output is. LibRaw's raw and working
    /// buffers are given back before this returns.
    public func develop(halfSize: Bool) throws -> DevelopedImage {
        data.pointee.params.use_camera_wb = 1
        data.pointee.params.output_color = 1
        data.pointee.params.user_qual = 3
        data.pointee.params.output_bps = 8
        data.pointee.params.half_size = halfSize ? 1 : 0
        try check(libraw_unpack(data), "unpack")
        try check(libraw_dcraw_process(data), "develop")
        var status: Int32 = 0
        let image = libraw_dcraw_make_mem_image(data, &status)
        libraw_recycle(data)
        guard let image else {
            try check(status == 0 ? LibRawError.Code.unspecified.rawValue : status, "make_mem_image")
            preconditionFailure("LibRaw returned no image and no error")
        }
        guard image.pointee.type == LIBRAW_IMAGE_BITMAP, image.pointee.bits == 8 else {
            libraw_dcraw_clear_mem(image)
            throw LibRawError(code: .unspecified, operation: "make_mem_image", message: "LibRaw made an image other than 8-bit RGB")
        }
        return DevelopedImage(owning: image)
    }

    /// The embedded preview LibRaw chooses (the largest it finds), as its file's bytes: a JPEG,
    /// with whatever orientation tag of its own it carries (the RAW's applies, see `facts`).
    public func previewJPEG() throws -> [UInt8] {
        try check(libraw_unpack_thumb(data), "unpack_thumb")
        let thumbnail = data.pointee.thumbnail
        guard thumbnail.tformat == LIBRAW_THUMBNAIL_JPEG, let bytes = thumbnail.thumb else {
            throw LibRawError(code: .unsupportedThumbnail, operation: "unpack_thumb", message: "the embedded preview is not a JPEG")
        }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(thumbnail.tlength)))
    }
}

/// LibRaw's developed picture, owned until this is released: interleaved 8-bit samples.
public final class DevelopedImage {
    private let image: UnsafeMutablePointer<libraw_processed_image_t>

    init(owning image: UnsafeMutablePointer<libraw_processed_image_t>) {
        self.image = image
    }

    deinit {
        libraw_dcraw_clear_mem(image)
    }

    public var width: Int { Int(image.pointee.width) }
    public var height: Int { Int(image.pointee.height) }
    public var bands: Int { Int(image.pointee.colors) }

    /// The samples, row after row, valid only inside `body`.
    public func withSamples<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try withUnsafeMutablePointer(to: &image.pointee.data) { first in
            try body(UnsafeRawBufferPointer(start: first, count: Int(image.pointee.data_size)))
        }
    }
}
