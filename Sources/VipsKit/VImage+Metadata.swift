import CMediaShim
import CVips
import MediaFormats

/// The metadata libvips carries on an image, by what it is rather than by libvips' field names:
/// those stay in this file.
extension VImage {
    public var iccProfile: [UInt8]? { blob("icc-profile-data") }

    /// The EXIF-style orientation (1...8) the header declares; nil when it declares none.
    public var declaredOrientation: Int? { int("orientation") }

    /// The orientation savers write: 1 when none is declared.
    public var orientation: Int { declaredOrientation ?? 1 }

    /// The loader libvips picked from the file's bytes, e.g. "jpegload": what tests compare.
    var loader: String? { string("vips-loader") }

    /// Whether `codec`'s loader read it. Loaders are allowed per process, so a file its own loader
    /// refuses could be claimed by another the pipeline allowed (ImageMagick's reads almost anything).
    public func wasRead(by codec: Codec) -> Bool {
        loader?.hasPrefix(codec.loaderNickname) ?? false
    }

    /// Fields from which savers write metadata blocks: EXIF (one field per tag besides the
    /// block), XMP, IPTC, Photoshop resources, HEIF metadata items.
    private static let blockFieldPrefixes = ["exif-data", "exif-ifd", "xmp-data", "iptc-data", "photoshop-data", "heif-mime-", "heif-iptc-"]

    /// A copy from which savers write pixels, and the ICC profile when `keepingICC`, but no
    /// metadata block: mediabatch writes its own into the encoded file, every block once (libexif,
    /// under every libvips save, drops MakerNotes; savers pass XMP and IPTC through unchecked).
    /// Pixels are shared, not copied.
    public func withoutMetadataBlocks(keepingICC: Bool) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_copy(pointer, &out), "copy") }
        let removed = Self.blockFieldPrefixes + (keepingICC ? [] : ["icc-profile-data"])
        for name in fieldNames where removed.contains(where: name.hasPrefix) {
            _ = vips_image_remove(out, name)
        }
        return VImage(owning: out!)
    }

    /// A copy carrying `profile` as its ICC profile: pixels another decoder made (a HEIF's own
    /// decode) with the profile their file embeds. Pixels are shared, not copied.
    public func withICCProfile(_ profile: [UInt8]) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_copy(pointer, &out), "copy") }
        profile.withUnsafeBytes { vips_image_set_blob_copy(out, "icc-profile-data", $0.baseAddress, $0.count) }
        return VImage(owning: out!)
    }

    /// A copy declaring EXIF's `orientation` (1...8), not yet applied: `resized` applies it to
    /// the smaller image, `upright()` to this one. Pixels are shared, not copied.
    public func withOrientation(_ orientation: Int) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_copy(pointer, &out), "copy") }
        vips_image_set_int(out, "orientation", Int32(orientation))
        return VImage(owning: out!)
    }

    /// The size once turned upright: width and height swapped where the orientation turns a quarter.
    public var uprightSize: (width: Int, height: Int) {
        (5...8).contains(orientation) ? (height, width) : (width, height)
    }

    var fieldNames: [String] {
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

    func hasField(_ name: String) -> Bool {
        vips_image_get_typeof(pointer, name) != 0
    }

    func int(_ name: String) -> Int? {
        guard hasField(name) else { return nil }
        var value: Int32 = 0
        guard vips_image_get_int(pointer, name, &value) == 0 else {
            vips_error_clear()
            return nil
        }
        return Int(value)
    }

    /// Any field rendered as text, as `vipsheader -f` prints it.
    func string(_ name: String) -> String? {
        guard hasField(name) else { return nil }
        var out: UnsafeMutablePointer<CChar>?
        guard vips_image_get_as_string(pointer, name, &out) == 0, let out else {
            vips_error_clear()
            return nil
        }
        defer { g_free(out) }
        return String(cString: out)
    }

    func blob(_ name: String) -> [UInt8]? {
        guard hasField(name) else { return nil }
        var data: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_blob(pointer, name, &data, &length) == 0, let data else {
            vips_error_clear()
            return nil
        }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }
}
