import CMediaShim
import CVips

/// mediabatch's Lanczos-3 reduce (the shim's reduce.c) beside libvips' own, for the tests that
/// compare them.
extension VImage {
    /// The instruction sets the reduce loops exist for, lowest first.
    enum ReduceLevel: Int32, CaseIterable, Sendable {
        case scalar = 1, sse41, avx2
    }

    /// Makes reduces built from now on use `level` (nil: the CPU's best), process-wide. Returns the
    /// level in effect: lower than asked where the CPU lacks it.
    @discardableResult
    static func forceReduceLevel(_ level: ReduceLevel?) -> ReduceLevel {
        ReduceLevel(rawValue: mb_reduce_force_level(level?.rawValue ?? 0))!
    }

    /// How many reduces mediabatch's own loops have been built for in this process: a test that
    /// sees it grow knows it compared them, not a fallback to libvips, with libvips.
    static var ownReduceBuilds: Int { Int(mb_reduce_builds()) }

    /// `width` × `height` pixels of `bands` interleaved 8-bit samples, row after row.
    static func fromPixels(_ samples: [UInt8], width: Int, height: Int, bands: Int) throws -> VImage {
        precondition(samples.count == width * height * bands)
        let image = samples.withUnsafeBytes { bytes in
            vips_image_new_from_memory_copy(bytes.baseAddress, bytes.count, Int32(width), Int32(height), Int32(bands),
                                            VIPS_FORMAT_UCHAR)
        }
        return VImage(owning: try check(image, "new_from_memory_copy"))
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
}
