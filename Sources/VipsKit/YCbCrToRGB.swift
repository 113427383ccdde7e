import CMediaShim

/// YCbCr planes another library decoded (a HEIC's tiles, by libavcodec), converted to 8-bit RGB
/// exactly as libheif 1.15 converts them — chroma by nearest neighbour, its coefficients for the
/// matrix and range, its float rounding — into an image `VImage.decoded(filling:)` fills. The loop
/// is C (`mediabatch_ycbcr.h`): libheif's own, line for line.
public struct YCbCrToRGB: Sendable {
    /// A plane's first row and the bytes from one row to the next.
    public typealias Plane = (start: UnsafePointer<UInt8>, stride: Int)

    let coefficients: MbYCbCrCoefficients

    /// ISO/IEC 23091-2 code points: the image's `nclx`, or its stream's VUI. A matrix libheif has
    /// no coefficients for (2, unspecified) converts as BT.601.
    public init(matrix: Int, primaries: Int, fullRange: Bool) {
        coefficients = mb_ycbcr_coefficients(Int32(clamping: matrix), Int32(clamping: primaries), fullRange ? 1 : 0)
    }

    /// The `width` × `height` picture into the region at (`left`, `top`) of `canvas` (rows of
    /// `stride` bytes, pixels of `bands` bytes, red first); chroma subsampled by `shift` (log2 of
    /// each axis' factor), nil planes for monochrome.
    public func convert(luma: Plane, cb: Plane?, cr: Plane?, shift: (x: Int, y: Int), into canvas: UnsafeMutablePointer<UInt8>,
                        stride: Int, bands: Int, left: Int, top: Int, width: Int, height: Int) {
        withUnsafePointer(to: coefficients) { coefficients in
            mb_ycbcr_to_rgb(coefficients, luma.start, luma.stride, cb?.start, cb?.stride ?? 0, cr?.start, cr?.stride ?? 0,
                            Int32(shift.x), Int32(shift.y), canvas, stride, Int32(bands), Int32(left), Int32(top),
                            Int32(width), Int32(height))
        }
    }

    /// A luma plane as it is into band `band` of the region (an alpha image's, as libheif attaches it).
    public static func copyLuma(_ luma: Plane, into canvas: UnsafeMutablePointer<UInt8>, stride: Int, bands: Int, band: Int,
                                left: Int, top: Int, width: Int, height: Int) {
        mb_copy_luma(luma.start, luma.stride, canvas, stride, Int32(bands), Int32(band), Int32(left), Int32(top), Int32(width), Int32(height))
    }
}
