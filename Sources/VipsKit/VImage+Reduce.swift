import CMediaShim
import CVips

/// mediabatch's Lanczos-3 reduce (the shim's reduce.c and resize.c) beside libvips' own, for the
/// tests that compare them. `thumbnail(of:)` and `resized(width:height:)` already use it; nothing
/// else in mediabatch asks for a reduce by itself.
extension VImage {
    /// The instruction sets the reduce loops exist for, lowest first.
    enum ReduceLevel: Int32, CaseIterable, Sendable {
        case scalar = 1, sse41, avx2
    }

    /// Makes reduces built from now on use `level` (nil: the default again), process-wide. Returns
    /// the level in effect: lower than asked where the CPU lacks it; nil for libvips' own passes,
    /// the default of a debug build (see `mb_reduce_level`).
    @discardableResult
    static func forceReduceLevel(_ level: ReduceLevel?) -> ReduceLevel? {
        ReduceLevel(rawValue: mb_reduce_force_level(level?.rawValue ?? MB_REDUCE_AUTO.rawValue))
    }

    /// How many reduces mediabatch's own loops have been built for in this process: a test that
    /// sees it grow knows it compared them, not a fallback to libvips, with libvips.
    static var ownReduceBuilds: Int { Int(mb_reduce_builds()) }

    /// Whether mediabatch computes the vertical (or horizontal) pass of 8-bit images itself, not
    /// libvips: where libvips' own pass gives exactly its samples (see `mb_reduce_is_own`).
    static func reducesItself(vertically: Bool) -> Bool {
        mb_reduce_is_own(vertically ? 1 : 0) != 0
    }

    /// This image `shrink` times narrower with Lanczos 3 (`gap`: libvips' integer pre-shrink, 0 for
    /// none): mediabatch's reduce, or libvips' `vips_reduceh`.
    func reducedHorizontally(by shrink: Double, gap: Double = 0, libvips: Bool = false) throws -> VImage {
        try reduced(libvips ? mb_libvips_reduceh : mb_reduceh, shrink, gap, "reduceh")
    }

    /// The same vertically: mediabatch's reduce, or libvips' `vips_reducev`.
    func reducedVertically(by shrink: Double, gap: Double = 0, libvips: Bool = false) throws -> VImage {
        try reduced(libvips ? mb_libvips_reducev : mb_reducev, shrink, gap, "reducev")
    }

    private typealias Reduce = (UnsafeMutablePointer<VipsImage>?, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>?,
                                Double, Double) -> Int32

    private func reduced(_ reduce: Reduce, _ shrink: Double, _ gap: Double, _ operation: String) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(reduce(pointer, &out, shrink, gap), operation) }
        return VImage(owning: out!)
    }

    /// This image scaled by `hscale` × `vscale` as `vips_resize` does: mediabatch's, or libvips'.
    func resized(hscale: Double, vscale: Double, libvips: Bool = false) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check((libvips ? mb_libvips_resize : mb_resize)(pointer, &out, hscale, vscale), "resize") }
        return VImage(owning: out!)
    }

    /// libvips' own `vips_shrink` by `factor` each way, "ceil": what `ShrinkingStrips` must match.
    func libvipsShrunk(by factor: Int) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_libvips_shrink(pointer, &out, Int32(factor)), "shrink") }
        return VImage(owning: out!)
    }

    /// libvips' own `vips_thumbnail` as `thumbnail(of:maxSize:)` (`exact` false) or
    /// `thumbnail(of:width:height:)` asks it: what mediabatch's must match.
    static func libvipsThumbnail(of path: String, width: Int, height: Int, exact: Bool) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        let size = exact ? VIPS_SIZE_FORCE : VIPS_SIZE_DOWN
        try build { try check(mb_libvips_thumbnail(path, Int32(width), Int32(height), size, &out), "thumbnail") }
        return VImage(owning: out!)
    }

    /// libvips' own `vips_thumbnail_image` as `resized(width:height:)` asks it.
    func libvipsResized(width: Int, height: Int) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_libvips_thumbnail_image(pointer, Int32(width), Int32(height), VIPS_SIZE_FORCE, &out), "thumbnail_image") }
        return VImage(owning: out!)
    }
}
