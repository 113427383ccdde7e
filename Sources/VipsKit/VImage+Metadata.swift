import CMediaShim
import CVips

/// The metadata libvips carries on an image, by what it is rather than by libvips' field names:
/// those stay in this file.
extension VImage {
    /// The EXIF block as libvips read it from the file.
    public var exif: [UInt8]? { blob("exif-data") }

    /// The XMP packet. HEIF keeps XMP as a numbered `mime` item that libvips 8.14 does not
    /// promote to `xmp-data`; it is picked out by its root element.
    public var xmp: [UInt8]? {
        blob("xmp-data") ?? fieldNames.lazy.filter { $0.hasPrefix("heif-mime-") }.compactMap(blob).first {
            String(decoding: $0.prefix(4096), as: UTF8.self).contains("<x:xmpmeta")
        }
    }

    /// The IPTC-IIM block (a JPEG's comes wrapped in Photoshop resources; HEIF keeps it as an item).
    public var iptc: [UInt8]? { blob("iptc-data") ?? fieldNames.first { $0.hasPrefix("heif-iptc-") }.flatMap(blob) }

    public var iccProfile: [UInt8]? { blob("icc-profile-data") }

    /// The EXIF-style orientation (1...8) the header declares; nil when it declares none.
    public var declaredOrientation: Int? { int("orientation") }

    /// The orientation savers write: 1 when none is declared.
    public var orientation: Int { declaredOrientation ?? 1 }

    /// The loader libvips picked from the file's bytes, e.g. "jpegload": what tests compare.
    var loader: String? { string("vips-loader") }

    /// Fields that hold metadata blocks savers write as they are.
    private static let blockFieldPrefixes = ["xmp-data", "iptc-data", "heif-mime-", "heif-iptc-"]

    /// A copy that carries `xmp` and `iptc` (nil: none) instead of the blocks it had, and none of
    /// the EXIF tags in `droppingExif`. Pixels are shared, not copied.
    public func carryingMetadata(xmp: [UInt8]?, iptc: [UInt8]?, droppingExif fields: [ExifField]) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_copy(pointer, &out), "copy") }
        let removed = Self.blockFieldPrefixes + fields.map(\.fieldPrefix)
        for name in fieldNames where removed.contains(where: name.hasPrefix) {
            _ = vips_image_remove(out, name)
        }
        for (name, bytes) in [("xmp-data", xmp), ("iptc-data", iptc)] {
            bytes?.withUnsafeBytes { vips_image_set_blob_copy(out, name, $0.baseAddress, $0.count) }
        }
        return VImage(owning: out!)
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
