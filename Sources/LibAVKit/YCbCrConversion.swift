/// YCbCr to 8-bit RGB exactly as libheif 1.15 converts a decoded HEVC picture
/// (`Op_YCbCr_to_RGB<uint8_t>`, the step its tile decoding always takes): chroma by nearest
/// neighbour (pixel x of 4:2:0 takes chroma sample x >> 1; no interpolation), the matrix and range
/// of the image's `nclx` or else the stream's VUI, float arithmetic rounded by adding 0.5 and
/// truncating. The per-sample products are tabulated with the same float operations, so every
/// sample equals libheif's.
public struct YCbCrConversion: Sendable {
    private enum Kind: Sendable {
        /// Matrix 0: G = Y, B = Cb, R = Cr.
        case identity(fullRange: Bool)
        /// Matrix 8.
        case yCgCo
        /// Every other matrix: red from (Y, Cr), blue from (Y, Cb), both tabulated whole.
        case matrix(red: [UInt8], blue: [UInt8], luma: [Float], greenCb: [Float], greenCr: [Float])
    }

    private let kind: Kind

    /// ISO/IEC 23091-2 code points; a matrix libheif has no coefficients for (2, unspecified)
    /// is BT.601's.
    public init(matrix: Int, primaries: Int, fullRange: Bool) {
        switch matrix {
        case 0: kind = .identity(fullRange: fullRange)
        case 8: kind = .yCgCo
        default: kind = Self.tables(Self.coefficients(matrix: matrix, primaries: primaries), fullRange: fullRange)
        }
    }

    private static func tables(_ c: (rCr: Float, gCb: Float, gCr: Float, bCb: Float), fullRange: Bool) -> Kind {
        let luma = (0..<256).map { fullRange ? Float($0) : (Float($0) - 16) * 1.1689 }
        let chroma = (0..<256).map { fullRange ? Float($0 - 128) : Float($0 - 128) * 1.1429 }
        var red = [UInt8](repeating: 0, count: 65536), blue = red
        for y in 0..<256 {
            for sample in 0..<256 {
                red[y << 8 | sample] = clip(luma[y] + c.rCr * chroma[sample])
                blue[y << 8 | sample] = clip(luma[y] + c.bCb * chroma[sample])
            }
        }
        return .matrix(red: red, blue: blue, luma: luma, greenCb: chroma.map { c.gCb * $0 }, greenCr: chroma.map { c.gCr * $0 })
    }

    /// libheif's `clip_f_u16` to 8 bits: `(long) (x + 0.5f)`, clamped (clamped first, the same
    /// for every value: without branches, twice as fast in the loop).
    @inline(__always)
    private static func clip(_ value: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: Int32(min(max(value + 0.5, 0), 255)))
    }

    /// `get_YCbCr_to_RGB_coefficients` (nclx.cc): Kr and Kb by matrix, or for 12 and 13 from the primaries.
    static func coefficients(matrix: Int, primaries: Int) -> (rCr: Float, gCb: Float, gCr: Float, bCb: Float) {
        let (kr, kb) = kRkB(matrix: matrix, primaries: primaries)
        guard kr != 0 || kb != 0 else { return (1.402, -0.344136, -0.714136, 1.772) }
        return (2 * (-kr + 1), 2 * kb * (-kb + 1) / (kb + kr - 1), 2 * kr * (-kr + 1) / (kb + kr - 1), 2 * (-kb + 1))
    }

    private static func kRkB(matrix: Int, primaries: Int) -> (Float, Float) {
        switch matrix {
        case 1: return (0.2126, 0.0722)
        case 4: return (0.30, 0.11)
        case 5, 6: return (0.299, 0.114)
        case 7: return (0.212, 0.087)
        case 9, 10: return (0.2627, 0.0593)
        case 12, 13: return ColourPrimaries(primaries).map { $0.kRkB } ?? (0, 0)
        default: return (0, 0)
        }
    }

    /// Converts `planes` into the `width` × `height` region at (`left`, `top`) of `canvas` (rows of
    /// `stride` bytes, pixels of `bands` bytes, red first); the picture's own pixels from its
    /// top left corner. `planes` must cover the region.
    public func convert(_ planes: YCbCrPlanes, into canvas: UnsafeMutablePointer<UInt8>, stride: Int, bands: Int,
                        left: Int, top: Int, width: Int, height: Int) {
        // Monochrome as libheif 1.15 takes it to RGB: through 4:2:0 with both chroma planes at 128.
        let neutral = [UInt8](repeating: 128, count: planes.chromaShift == nil ? width : 0)
        neutral.withUnsafeBufferPointer { grey in
            let rows = (cb: planes.cb ?? (grey.baseAddress!, 0), cr: planes.cr ?? (grey.baseAddress!, 0))
            convert(planes.luma, rows.cb, rows.cr, shift: planes.chromaShift ?? (0, 0), into: canvas, stride: stride, bands: bands,
                    left: left, top: top, width: width, height: height)
        }
    }

    private func convert(_ luma: (UnsafePointer<UInt8>, stride: Int), _ cbPlane: (UnsafePointer<UInt8>, stride: Int),
                         _ crPlane: (UnsafePointer<UInt8>, stride: Int), shift: (x: Int, y: Int), into canvas: UnsafeMutablePointer<UInt8>,
                         stride: Int, bands: Int, left: Int, top: Int, width: Int, height: Int) {
        let (luma, lumaStride) = luma, (cb, cbStride) = cbPlane, (cr, crStride) = crPlane
        if case .matrix(let red, let blue, let lumaTable, let greenCb, let greenCr) = kind {
            // The tables' buffers taken once a picture: Swift's checked subscripts in this loop cost a third of its time.
            red.withUnsafeBufferPointer { red in blue.withUnsafeBufferPointer { blue in lumaTable.withUnsafeBufferPointer { lumaTable in
                greenCb.withUnsafeBufferPointer { greenCb in greenCr.withUnsafeBufferPointer { greenCr in
                    for y in 0..<height {
                        let out = canvas + (top + y) * stride + left * bands
                        let yRow = luma + y * lumaStride, cbRow = cb + (y >> shift.y) * cbStride, crRow = cr + (y >> shift.y) * crStride
                        for x in 0..<width {
                            let yv = Int(yRow[x]), u = Int(cbRow[x >> shift.x]), v = Int(crRow[x >> shift.x])
                            out[x * bands] = red[yv << 8 | v]
                            out[x * bands + 1] = Self.clip(lumaTable[yv] + greenCb[u] + greenCr[v])
                            out[x * bands + 2] = blue[yv << 8 | u]
                        }
                    }
                } }
            } } }
            return
        }
        for y in 0..<height {
            let out = canvas + (top + y) * stride + left * bands
            let yRow = luma + y * lumaStride, cbRow = cb + (y >> shift.y) * cbStride, crRow = cr + (y >> shift.y) * crStride
            for x in 0..<width {
                let yv = yRow[x], u = cbRow[x >> shift.x], v = crRow[x >> shift.x]
                switch kind {
                case .identity(let fullRange):
                    // Limited range is scaled into it, as libheif does (its "TODO"): not expanded.
                    let limited = { (sample: UInt8) in UInt8((Int(sample) * 219 + 128) >> 8 + 16) }
                    (out[x * bands], out[x * bands + 1], out[x * bands + 2]) = fullRange ? (v, yv, u) : (limited(v), limited(yv), limited(u))
                case .yCgCo:
                    let (luma, cg, co) = (Int(yv), Int(u) - 128, Int(v) - 128)
                    out[x * bands] = UInt8(clamping: luma - cg + co)
                    out[x * bands + 1] = UInt8(clamping: luma + cg)
                    out[x * bands + 2] = UInt8(clamping: luma - cg - co)
                case .matrix: break
                }
            }
        }
    }

    /// Copies `planes`' luma into band `band` of the region, as libheif takes an alpha image's Y plane as it is.
    public static func copyLuma(_ planes: YCbCrPlanes, into canvas: UnsafeMutablePointer<UInt8>, stride: Int, bands: Int, band: Int,
                                left: Int, top: Int, width: Int, height: Int) {
        let (luma, lumaStride) = planes.luma
        for y in 0..<height {
            let out = canvas + (top + y) * stride + left * bands + band, row = luma + y * lumaStride
            for x in 0..<width { out[x * bands] = row[x] }
        }
    }
}

/// A primaries code point's chromaticities (libheif 1.15's `get_colour_primaries`), for the
/// matrices derived from them (12, 13).
struct ColourPrimaries {
    let red: (x: Float, y: Float), green: (x: Float, y: Float), blue: (x: Float, y: Float), white: (x: Float, y: Float)

    init?(_ code: Int) {
        let table: [Int: [Float]] = [
            1: [0.300, 0.600, 0.150, 0.060, 0.640, 0.330, 0.3127, 0.3290], 4: [0.21, 0.71, 0.14, 0.08, 0.67, 0.33, 0.310, 0.316],
            5: [0.29, 0.60, 0.15, 0.06, 0.64, 0.33, 0.3127, 0.3290], 6: [0.310, 0.595, 0.155, 0.070, 0.630, 0.340, 0.3127, 0.3290],
            7: [0.310, 0.595, 0.155, 0.070, 0.630, 0.340, 0.3127, 0.3290], 8: [0.243, 0.692, 0.145, 0.049, 0.681, 0.319, 0.310, 0.316],
            9: [0.170, 0.797, 0.131, 0.046, 0.708, 0.292, 0.3127, 0.3290], 10: [0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.333333, 0.33333],
            11: [0.265, 0.690, 0.150, 0.060, 0.680, 0.320, 0.314, 0.351], 12: [0.265, 0.690, 0.150, 0.060, 0.680, 0.320, 0.3127, 0.3290],
            22: [0.295, 0.605, 0.155, 0.077, 0.630, 0.340, 0.3127, 0.3290],
        ]
        guard let v = table[code] else { return nil }
        (green, blue, red, white) = ((v[0], v[1]), (v[2], v[3]), (v[4], v[5]), (v[6], v[7]))
    }

    /// `get_Kr_Kb` for matrices 12 and 13; (0, 0) where the primaries are degenerate.
    var kRkB: (Float, Float) {
        let zr = 1 - (red.x + red.y), zg = 1 - (green.x + green.y), zb = 1 - (blue.x + blue.y), zw = 1 - (white.x + white.y)
        let denom = white.y * (red.x * (green.y * zb - blue.y * zg) + green.x * (blue.y * zr - red.y * zb) + blue.x * (red.y * zg - green.y * zr))
        guard denom != 0 else { return (0, 0) }
        let kr = (red.y * (white.x * (green.y * zb - blue.y * zg) + white.y * (blue.x * zg - green.x * zb) + zw * (green.x * blue.y - blue.x * green.y))) / denom
        let kb = (blue.y * (white.x * (red.y * zg - green.y * zr) + white.y * (green.x * zr - red.x * zg) + zw * (red.x * green.y - green.x * red.y))) / denom
        return (kr, kb)
    }
}
