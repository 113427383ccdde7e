import CMediaShim

/// YCbCr planes another library decoded (a HEIC's tiles, by libavcodec), converted to RGB exactly
/// as libheif 1.15 converts them — chroma by nearest neighbour, its coefficients for the matrix
/// and range, its float rounding — into an image `VImage.decoded(filling:)` fills: 8-bit, or for
/// 10- and 12-bit planes 16-bit, shifted up as libvips 8.14's `heifload` fills 16 bits. The loops
/// are C (`mediabatch_ycbcr.h`): libheif's own, line for line.
public struct YCbCrToRGB: Sendable {
    /// A plane's first row and the bytes from one row to the next.
    public typealias Plane = (start: UnsafePointer<UInt8>, stride: Int)

    let coefficients: MbYCbCrCoefficients

    /// ISO/IEC 23091-2 code points: the image's `nclx`, or its stream's VUI. A matrix libheif has
    /// no coefficients for (2, unspecified) converts as BT.601.
    public init(matrix: Int, primaries: Int, fullRange: Bool) {
        coefficients = mb_ycbcr_coefficients(Int32(clamping: matrix), Int32(clamping: primaries), fullRange ? 1 : 0)
    }

    /// The `width` × `height` picture of `bitDepth`-bit samples (over 8: two bytes each) into the
    /// region at (`left`, `top`) of `canvas` (rows of `stride` bytes, pixels of `bands` samples of
    /// one byte, or two over 8 bits, red first); chroma subsampled by `shift` (log2 of each axis'
    /// factor), nil planes for monochrome.
    public func convert(luma: Plane, cb: Plane?, cr: Plane?, shift: (x: Int, y: Int), bitDepth: Int, into canvas: UnsafeMutablePointer<UInt8>,
                        stride: Int, bands: Int, left: Int, top: Int, width: Int, height: Int) {
        withUnsafePointer(to: coefficients) { coefficients in
            guard bitDepth > 8 else {
                return mb_ycbcr_to_rgb(coefficients, luma.start, luma.stride, cb?.start, cb?.stride ?? 0, cr?.start, cr?.stride ?? 0,
                                       Int32(shift.x), Int32(shift.y), canvas, stride, Int32(bands), Int32(left), Int32(top),
                                       Int32(width), Int32(height))
            }
            mb_ycbcr16_to_rgb(coefficients, Int32(bitDepth), Self.wide(luma.start), luma.stride, cb.map { Self.wide($0.start) },
                              cb?.stride ?? 0, cr.map { Self.wide($0.start) }, cr?.stride ?? 0, Int32(shift.x), Int32(shift.y),
                              Self.wide(canvas), stride, Int32(bands), Int32(left), Int32(top), Int32(width), Int32(height))
        }
    }

    /// A luma plane into band `band` of the region (an alpha image's, as libheif attaches it): as it is, or
    /// over 8 bits shifted up as `convert` shifts.
    public static func copyLuma(_ luma: Plane, bitDepth: Int, into canvas: UnsafeMutablePointer<UInt8>, stride: Int, bands: Int, band: Int,
                                left: Int, top: Int, width: Int, height: Int) {
        guard bitDepth > 8 else {
            return mb_copy_luma(luma.start, luma.stride, canvas, stride, Int32(bands), Int32(band), Int32(left), Int32(top),
                                Int32(width), Int32(height))
        }
        mb_copy_luma16(wide(luma.start), luma.stride, Int32(bitDepth), wide(canvas), stride, Int32(bands), Int32(band), Int32(left),
                       Int32(top), Int32(width), Int32(height))
    }

    /// Bytes as the 16-bit samples they hold.
    private static func wide(_ bytes: UnsafePointer<UInt8>) -> UnsafePointer<UInt16> {
        UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt16.self)
    }

    private static func wide(_ bytes: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt16> {
        UnsafeMutableRawPointer(bytes).assumingMemoryBound(to: UInt16.self)
    }
}
