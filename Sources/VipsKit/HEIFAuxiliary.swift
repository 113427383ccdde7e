import CHeif
import CVips

/// A HEIC's auxiliary images, read through libheif itself: libvips' `heifload` gives only the
/// primary image, and an iPhone keeps its HDR gain map beside it as an auxiliary image
/// (`urn:com:apple:photo:2020:aux:hdrgainmap`, 8-bit gray, half the primary's size).
///
/// Each call opens its own libheif context and frees everything before it returns, so calls
/// from several threads share nothing. Only the file's boxes are read, and then the one
/// auxiliary image asked for is decoded: never the primary.
public enum HEIFAuxiliary {
    /// Alpha and depth are left out: libvips reads the alpha with the primary, and libheif lists
    /// depth maps (`urn:mpeg:hevc:2015:auxid:2`, an iPhone's portrait depth) as depth.
    private static let filter = Int32(LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA | LIBHEIF_AUX_IMAGE_FILTER_OMIT_DEPTH)

    /// The auxiliary types of the primary image, alpha and depth left out, in the file's order
    /// (e.g. `["urn:com:apple:photo:2020:aux:hdrgainmap"]`); empty when it has none.
    public static func types(path: String) throws -> [String] {
        try withPrimary(path) { primary in
            try auxiliaryIDs(of: primary).map { id in try withAuxiliary(id, of: primary, auxiliaryType) }
        }
    }

    /// The first auxiliary image of `type` decoded to an 8-bit one-band VImage, with the
    /// transformations of the auxiliary item itself applied (libheif's default), or nil when the
    /// primary has none of that type. Throws `HEIFError`, `isUnsupported`, for one that is not
    /// 8-bit gray (Samsung's gain map is coded in colour).
    public static func image(path: String, type: String) throws -> VImage? {
        try withPrimary(path) { primary in
            for id in auxiliaryIDs(of: primary) {
                let image = try withAuxiliary(id, of: primary) { handle in
                    try auxiliaryType(handle) == type ? try decode(handle) : nil
                }
                if let image { return image }
            }
            return nil
        }
    }

    /// Reads `path`'s boxes into a context of this call's own and lends its primary image.
    private static func withPrimary<T>(_ path: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        guard let context = heif_context_alloc() else {
            throw HEIFError(code: Int(heif_error_Memory_allocation_error.rawValue), subcode: 0, operation: "context", message: "out of memory")
        }
        defer { heif_context_free(context) }
        try checkHEIF(heif_context_read_from_file(context, path, nil), "read")
        var primary: OpaquePointer?
        try checkHEIF(heif_context_get_primary_image_handle(context, &primary), "primary image")
        defer { heif_image_handle_release(primary) }
        return try body(primary!)
    }

    private static func auxiliaryIDs(of primary: OpaquePointer) -> [heif_item_id] {
        let count = heif_image_handle_get_number_of_auxiliary_images(primary, filter)
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(count))
        let listed = heif_image_handle_get_list_of_auxiliary_image_IDs(primary, filter, &ids, count)
        return Array(ids.prefix(Int(max(listed, 0))))
    }

    private static func withAuxiliary<T>(_ id: heif_item_id, of primary: OpaquePointer, _ body: (OpaquePointer) throws -> T) throws -> T {
        var handle: OpaquePointer?
        try checkHEIF(heif_image_handle_get_auxiliary_image_handle(primary, id, &handle), "auxiliary image \(id)")
        defer { heif_image_handle_release(handle) }
        return try body(handle!)
    }

    private static func auxiliaryType(_ handle: OpaquePointer) throws -> String {
        var type: UnsafePointer<CChar>?
        try checkHEIF(heif_image_handle_get_auxiliary_type(handle, &type), "auxiliary type")
        defer { heif_image_handle_free_auxiliary_types(handle, &type) }
        return type.map { String(cString: $0) } ?? ""
    }

    /// Decoded as coded, with no colour conversion, so that a colour map is refused rather than
    /// reduced to its luma; the bit depth is checked first, from the header, before any decoding.
    private static func decode(_ handle: OpaquePointer) throws -> VImage {
        let bits = heif_image_handle_get_luma_bits_per_pixel(handle)
        guard bits == 8 else {
            throw HEIFError.unsupported(heif_suberror_Unsupported_bit_depth, "auxiliary image", "\(bits)-bit auxiliary images not supported")
        }
        var image: OpaquePointer?
        try checkHEIF(heif_decode_image(handle, &image, heif_colorspace_undefined, heif_chroma_undefined, nil), "decode auxiliary image")
        defer { heif_image_release(image) }
        guard heif_image_get_colorspace(image) == heif_colorspace_monochrome else {
            throw HEIFError.unsupported(heif_suberror_Unsupported_color_conversion, "auxiliary image",
                                        "colour auxiliary images not supported (gray only)")
        }
        return try copyGrayPlane(of: image!)
    }

    /// The gray plane copied row by row, without libheif's stride padding, into an image libvips
    /// owns: the VImage outlives the heif_image and the context.
    private static func copyGrayPlane(of image: OpaquePointer) throws -> VImage {
        let width = Int(heif_image_get_width(image, heif_channel_Y)), height = Int(heif_image_get_height(image, heif_channel_Y))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_Y, &stride) else {
            throw HEIFError(code: Int(heif_error_Invalid_input.rawValue), subcode: 0, operation: "auxiliary image", message: "no gray plane")
        }
        var pixels = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBytes { rows in
            for row in 0..<height {
                (rows.baseAddress! + row * width).copyMemory(from: plane + row * Int(stride), byteCount: width)
            }
        }
        let copy = pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), 1, VIPS_FORMAT_UCHAR)
        }
        return VImage(owning: try check(copy, "new_from_memory_copy"))
    }
}
