import CMediaShim
import CVips

/// What `cover` and `contain` do to a resized picture (and to its gain map): cut a region out,
/// let libvips' smartcrop choose one, or pad to a box.
extension VImage {
    /// What smartcrop looks for.
    public enum Interest: Sendable {
        case entropy, attention
    }

    /// The `width` × `height` region at `left`, `top`.
    public func cropped(left: Int, top: Int, width: Int, height: Int) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_crop(pointer, Int32(left), Int32(top), Int32(width), Int32(height), &out), "extract_area") }
        return VImage(owning: out!)
    }

    /// The `width` × `height` region smartcrop finds most interesting, and where it is. This
    /// reads every pixel now: compute a lazy image into memory first, or it is decoded twice.
    public func smartCropped(width: Int, height: Int, _ interest: Interest) throws -> (image: VImage, left: Int, top: Int) {
        var out: UnsafeMutablePointer<VipsImage>?
        var left: Int32 = 0, top: Int32 = 0
        let interesting = interest == .entropy ? VIPS_INTERESTING_ENTROPY : VIPS_INTERESTING_ATTENTION
        try Self.build { try check(mb_vips_smartcrop(pointer, Int32(width), Int32(height), interesting, &out, &left, &top), "smartcrop") }
        return (VImage(owning: out!), Int(left), Int(top))
    }

    /// This image at `left`, `top` of a `width` × `height` canvas of `rgba` (0–255 each): a grey
    /// image becomes colour for a colour that is not grey, and gains alpha for one not opaque.
    public func padded(left: Int, top: Int, width: Int, height: Int, rgba: [Double]) throws -> VImage {
        precondition(rgba.count == 4, "red, green, blue and alpha")
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_pad(pointer, Int32(left), Int32(top), Int32(width), Int32(height), rgba, &out), "embed") }
        return VImage(owning: out!)
    }

    /// Whether the last band is alpha.
    public var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }

    /// Over white, without alpha (unchanged where it has none).
    public func flattenedOnWhite() throws -> VImage {
        guard hasAlpha else { return self }
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_flatten_white(pointer, &out), "flatten") }
        return VImage(owning: out!)
    }
}
