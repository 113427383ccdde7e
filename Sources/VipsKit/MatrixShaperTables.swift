import CMediaShim
import CVips

/// What converts 8-bit RGB from a matrix-shaper ICC profile to sRGB the way Little CMS evaluates such a
/// transform for 8-bit pixels (see `mediabatch_colour.h`): each input channel's curve and the matrix in 1.14
/// fixed point, each output channel's 8-bit value for 16385 steps of linear light. Made by whoever reads the
/// profiles; `VImage.convertedToSRGB(using:)` applies them.
public struct MatrixShaperTables: Sendable {
    let input: [Int32]
    let matrix: [Int32]
    let output: [UInt8]

    /// `input`: 3 × 256, `matrix`: 9 (row by row), `output`: 3 × 16385.
    public init(input: [Int32], matrix: [Int32], output: [UInt8]) {
        precondition(input.count == 3 * 256 && matrix.count == 9 && output.count == 3 * 16385)
        (self.input, self.matrix, self.output) = (input, matrix, output)
    }
}

extension VImage {
    /// The sRGB profile libvips converts to (`convertedToSRGB()`), as bytes: the output side of
    /// `MatrixShaperTables`, and the profile the converted image carries.
    public static let sRGBProfile: [UInt8] = {
        var blob: UnsafeMutablePointer<VipsBlob>?
        guard mb_vips_srgb_profile(&blob) == 0, let blob else {
            vips_error_clear()
            return []
        }
        defer { vips_area_unref(UnsafeMutableRawPointer(blob).assumingMemoryBound(to: VipsArea.self)) }
        var length = 0
        guard let bytes = vips_blob_get(blob, &length) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: bytes, count: length))
    }()

    /// Makes conversions from now on take the scalar loop (or, false, the best this CPU has),
    /// process-wide: for the tests, which compare both with Little CMS.
    static func forceScalarColourLoop(_ scalar: Bool) {
        mb_matrix_shaper_force_scalar(scalar ? 1 : 0)
    }

    /// This image's 8-bit RGB (alpha kept) converted by `tables` into memory (a buffer kept between
    /// items, `CanvasPool`), tagged with libvips' sRGB profile: what `convertedToSRGB()` makes of a
    /// matrix-shaper profile, several times faster.
    public func convertedToSRGB(using tables: MatrixShaperTables) throws -> VImage {
        precondition(bitsPerSample == 8 && (bands == 3 || bands == 4))
        let profile = Self.sRGBProfile
        let (converted, _) = try CanvasPool.image(width: width, height: height, bands: bands, depth: .eight)
        try Self.build {
            try check(mb_vips_matrix_shaper(pointer, tables.input, tables.matrix, tables.output, profile, profile.count,
                                            converted.pointer), "matrix shaper")
        }
        return converted
    }
}
