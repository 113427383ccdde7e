import Foundation
import VipsKit

/// An RGB ICC profile that is three colorants and three tone curves (Display P3 on iPhones, Adobe RGB on
/// cameras; no A2B lookup table, which Little CMS would take instead), and the tables that convert 8-bit
/// pixels from it to libvips' sRGB as Little CMS 2.14 does for 8-bit RGB (`OptimizeMatrixShaper`): curves and
/// matrix in 1.14 fixed point, rounded as it rounds them, the output curve reversed on 4096 samples as
/// `cmsReverseToneCurveEx` reverses it. Relative colorimetric, no black point compensation: libvips' defaults.
struct ICCMatrixShaper {
    /// rXYZ, gXYZ, bXYZ (each X, Y, Z, adapted to D50 as profiles store them).
    let colorants: [[Double]]
    let curves: [ToneCurve]

    /// A tone curve as `curv` (a gamma or a table) or `para` (ICC's five functions) gives it.
    enum ToneCurve {
        case parametric(function: Int, parameters: [Double])
        /// A gamma's or an sRGB-like function's own inverse, as Little CMS reverses a parametric curve (its types −1, −4).
        case inverseParametric(function: Int, parameters: [Double])
        /// 16-bit samples over 0...1, interpolated linearly (Little CMS evaluates such curves in 16 bits).
        case table([UInt16])
    }

    init?(_ profile: [UInt8]) {
        let reader = ICCTagReader(profile)
        guard reader.uint32(16) == 0x5247_4220 /* RGB */, reader.uint32(20) == 0x5859_5A20 /* XYZ */,
              !["A2B0", "A2B1", "A2B2", "D2B0", "D2B1"].contains(where: { reader.tag($0) != nil }),
              let colorants = Optional(["rXYZ", "gXYZ", "bXYZ"].compactMap(reader.xyz)), colorants.count == 3,
              let curves = Optional(["rTRC", "gTRC", "bTRC"].compactMap(reader.curve)), curves.count == 3 else { return nil }
        self.colorants = colorants
        self.curves = curves
    }

    /// The tables converting from this profile to `output` (libvips' sRGB, whose `outputTables` are `tables`),
    /// nil where the colorants cannot be inverted.
    func tables(to output: ICCMatrixShaper, output tables: [UInt8]) -> MatrixShaperTables? {
        guard let inverse = Self.inverted(Self.matrix(output.colorants)) else { return nil }
        let product = Self.multiplied(inverse, Self.matrix(colorants))
        let input = curves.flatMap { curve in (0..<256).map { Self.fixed14(curve.value(Double($0) / 255)) } }
        return MatrixShaperTables(input: input, matrix: product.map(Self.fixed14), output: tables)
    }

    /// libvips' sRGB, read once a process; its output tables are the costly part (3 × 16385 samples).
    static let sRGB: (profile: ICCMatrixShaper, output: [UInt8])? = ICCMatrixShaper(VImage.sRGBProfile).map { ($0, $0.outputTables) }

    /// Each channel's 8-bit value for linear light 0...16384 (1.14): the reversed curve at that point, as a
    /// 16-bit word, then to 8 bits as Little CMS packs it.
    var outputTables: [UInt8] {
        curves.flatMap { curve -> [UInt8] in
            let reversed = curve.reversed(samples: 4096)
            return (0...16384).map { step in
                let value = min(1, max(0, reversed.value(Double(step) / 16384)))
                let word = UInt32(min(65535, max(0, (value * 65535 + 0.5).rounded(.down))))
                return UInt8((word * 65281 + 8_388_608) >> 24)
            }
        }
    }

    /// Columns are the colorants: XYZ = M · RGB, row by row.
    private static func matrix(_ colorants: [[Double]]) -> [Double] {
        (0..<3).flatMap { row in (0..<3).map { colorants[$0][row] } }
    }

    private static func multiplied(_ a: [Double], _ b: [Double]) -> [Double] {
        var product = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                let terms: [Double] = (0..<3).map { a[row * 3 + $0] * b[$0 * 3 + column] }
                product[row * 3 + column] = terms[0] + terms[1] + terms[2]
            }
        }
        return product
    }

    private static func inverted(_ m: [Double]) -> [Double]? {
        let c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6]
        let determinant = m[0] * c0 + m[1] * c1 + m[2] * c2
        guard abs(determinant) > 1e-12 else { return nil }
        let adjugate = [c0, m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                        c1, m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                        c2, m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]]
        return adjugate.map { $0 / determinant }
    }

    /// Little CMS' DOUBLE_TO_1FIXED14.
    private static func fixed14(_ value: Double) -> Int32 {
        Int32(clamping: Int((value * 16384 + 0.5).rounded(.down)))
    }
}

extension ICCMatrixShaper.ToneCurve {
    /// Little CMS' evaluation: parametric curves in doubles; tables in 16 bits, the input rounded to a word.
    func value(_ x: Double) -> Double {
        switch self {
        case .parametric(let function, let p):
            return Self.parametric(function, p, x)
        case .inverseParametric(let function, let p):
            return Self.inverse(function, p, x)
        case .table(let samples):
            let word = min(65535, max(0, (x * 65535 + 0.5).rounded(.down)))
            return Double(Self.interpolated(samples, word)) / 65535
        }
    }

    /// `cmsReverseToneCurveEx(samples, …)`: a gamma or an sRGB-like function by its own inverse; otherwise, for each
    /// output word, the input where this curve reaches it (its last interval that holds it, interpolated linearly),
    /// as a table.
    func reversed(samples count: Int) -> Self {
        if case .parametric(let function, let p) = self, [0, 3].contains(function) { return .inverseParametric(function: function, parameters: p) }
        let table: [UInt16] = switch self {
        case .table(let samples): samples
        case .parametric, .inverseParametric:
            (0..<4096).map { UInt16(min(65535, max(0, (value(Double($0) / 4095) * 65535 + 0.5).rounded(.down)))) }
        }
        let last = table.count - 1, ascending = table[0] <= table[last]
        var slope = 0.0, offset = 0.0
        return .table((0..<count).map { index in
            let y = Double(index) * 65535 / Double(count - 1)
            if let j = (0..<last).reversed().first(where: { y >= Double(min(table[$0], table[$0 + 1])) && y <= Double(max(table[$0], table[$0 + 1])) }) {
                let (x1, x2) = (Double(table[j]), Double(table[j + 1]))
                let (y1, y2) = (Double(j) * 65535 / Double(last), Double(j + 1) * 65535 / Double(last))
                if x1 == x2 { return UInt16(min(65535, max(0, ((ascending ? y2 : y1) + 0.5).rounded(.down)))) }
                slope = (y2 - y1) / (x2 - x1)
                offset = y2 - slope * x2
            }
            return UInt16(min(65535, max(0, (slope * y + offset + 0.5).rounded(.down))))
        })
    }

    /// Little CMS' LinLerp1D over a 16-bit table.
    private static func interpolated(_ samples: [UInt16], _ word: Double) -> Double {
        guard word < 65535, samples.count > 1 else { return Double(samples[samples.count - 1]) }
        let position = Double(samples.count - 1) * (word / 65535)
        let cell0 = Int(position.rounded(.down)), cell1 = Int(position.rounded(.up)), rest = position - Double(cell0)
        let (y0, y1) = (Double(samples[cell0]), Double(samples[cell1]))
        return min(65535, max(0, (y0 + (y1 - y0) * rest + 0.5).rounded(.down)))
    }

    /// The inverses of ICC's functions 0 (X = Y^(1/g)) and 3 (X = (Y^(1/g) − b) / a above (a·d + b)^g, else Y / c).
    private static func inverse(_ function: Int, _ p: [Double], _ y: Double) -> Double {
        guard function == 3 else { return y > 0 ? pow(y, 1 / p[0]) : 0 }
        let knee = p[1] * p[4] + p[2]
        let discontinuity = knee < 0 ? 0 : pow(knee, p[0])
        if y >= discontinuity { return (pow(y, 1 / p[0]) - p[2]) / p[1] }
        return p[3] == 0 ? 0 : y / p[3]
    }

    /// ICC's parametric functions 0–4 (ICC.1:2010, 10.18), as Little CMS evaluates them.
    private static func parametric(_ function: Int, _ p: [Double], _ x: Double) -> Double {
        func power(_ base: Double) -> Double { base > 0 ? pow(base, p[0]) : 0 }
        switch function {
        case 0: return x > 0 ? pow(x, p[0]) : 0
        case 1: return x >= -p[2] / p[1] ? power(p[1] * x + p[2]) : 0
        case 2: return x >= -p[2] / p[1] ? power(p[1] * x + p[2]) + p[3] : p[3]
        case 3: return x >= p[4] ? power(p[1] * x + p[2]) : p[3] * x
        default: return x >= p[4] ? power(p[1] * x + p[2]) + p[5] : p[3] * x + p[6]
        }
    }
}

/// The tag table of an ICC profile: where each tag's data is, and the few types a matrix-shaper needs.
private struct ICCTagReader {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func uint32(_ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func s15Fixed16(_ offset: Int) -> Double? {
        uint32(offset).map { Double(Int32(bitPattern: $0)) / 65536 }
    }

    /// The tag's data (its type signature first), where the table lists it within the profile.
    func tag(_ signature: String) -> Range<Int>? {
        let wanted = signature.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let count = uint32(128), count < 1000 else { return nil }
        for index in 0..<Int(count) {
            let entry = 132 + index * 12
            guard let tag = uint32(entry), let offset = uint32(entry + 4).map(Int.init), let size = uint32(entry + 8).map(Int.init) else { return nil }
            if tag == wanted, size >= 12, offset + size <= bytes.count { return offset..<offset + size }
        }
        return nil
    }

    func xyz(_ signature: String) -> [Double]? {
        guard let data = tag(signature), uint32(data.lowerBound) == 0x5859_5A20 /* XYZ */, data.count >= 20 else { return nil }
        let values = (0..<3).compactMap { s15Fixed16(data.lowerBound + 8 + 4 * $0) }
        return values.count == 3 ? values : nil
    }

    func curve(_ signature: String) -> ICCMatrixShaper.ToneCurve? {
        guard let data = tag(signature), let type = uint32(data.lowerBound) else { return nil }
        let start = data.lowerBound + 8
        switch type {
        case 0x6375_7276: // curv: none (identity), a gamma (u8Fixed8), or a table
            guard let count = uint32(start).map(Int.init), start + 4 + 2 * count <= data.upperBound else { return nil }
            if count == 0 { return .parametric(function: 0, parameters: [1]) }
            let samples = (0..<count).map { UInt16(bytes[start + 4 + 2 * $0]) << 8 | UInt16(bytes[start + 5 + 2 * $0]) }
            return count == 1 ? .parametric(function: 0, parameters: [Double(samples[0]) / 256]) : .table(samples)
        case 0x7061_7261: // para
            guard start + 4 <= data.upperBound else { return nil }
            let function = Int(bytes[start]) << 8 | Int(bytes[start + 1])
            let counts = [1, 3, 4, 5, 7]
            guard function < counts.count else { return nil }
            let parameters = (0..<counts[function]).compactMap { index -> Double? in
                start + 4 + 4 * index + 4 <= data.upperBound ? s15Fixed16(start + 4 + 4 * index) : nil
            }
            return parameters.count == counts[function] ? .parametric(function: function, parameters: parameters) : nil
        default:
            return nil
        }
    }
}
