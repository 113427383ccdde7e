/// What a photo looks like, in 264 bytes: enough to tell its copies (re-encoded, resized, in
/// another format, cut by up to ~10%) from other photos, bursts included, among millions.
///
/// Two parts, because no single hash does both (bench/duplicates: a 5% crop lies up to 12 bits of
/// a 64-bit pHash from its photo, while burst frames a second apart can lie 0 apart):
/// - `hash`, a pHash (the signs of the 8 × 8 lowest DCT frequencies of the photo squeezed to
///   32 × 32, against their median), finds candidates fast (`HammingIndex`);
/// - `grid`, the photo's luma squeezed to 16 × 16, decides: `FingerprintDistance` compares two
///   grids aligned over the crops one may be of the other.
/// Made from the whole photo, upright; a flat picture (black, white) has none: it would match every other.
public struct PhotoFingerprint: Equatable, Sendable {
    /// The grid's side.
    public static let side = 16
    /// The side of the picture the hash is computed from.
    public static let hashSide = 32
    /// Below this standard deviation of its luma (0–255) a picture is flat.
    static let flatDeviation = 4.0

    public let hash: UInt64
    /// Luma 0–255, `side` × `side`, row by row.
    public let grid: [UInt8]
    /// The photo's size, upright: its shape decides which crops are possible, its pixels the keeper.
    public let width: Int
    public let height: Int

    public init(hash: UInt64, grid: [UInt8], width: Int, height: Int) {
        precondition(grid.count == Self.side * Self.side, "a grid of \(Self.side) × \(Self.side)")
        self.hash = hash
        self.grid = grid
        self.width = width
        self.height = height
    }

    /// The fingerprint of a photo of `width` × `height`, upright, from its luma squeezed to
    /// `hashSide` × `hashSide` (row by row); nil when the picture is flat.
    public init?(luma: [UInt8], width: Int, height: Int) {
        let side = Self.hashSide
        precondition(luma.count == side * side, "a picture of \(side) × \(side)")
        let values = luma.map(Double.init)
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        guard variance.squareRoot() >= Self.flatDeviation else { return nil }
        self.init(hash: Self.pHash(values), grid: Self.halved(luma), width: width, height: height)
    }

    /// width / height.
    public var aspect: Double { Double(width) / Double(height) }

    /// Bit 8u + v is set when the DCT coefficient (u, v) is above the median of the 63 that are not DC.
    static func pHash(_ values: [Double]) -> UInt64 {
        let side = hashSide, kept = 8
        let basis = (0..<kept).map { u in
            (0..<side).map { x in cos(Double.pi * Double((2 * x + 1) * u) / Double(2 * side)) }
        }
        // Rows first: each row's 8 lowest frequencies, then the columns of those.
        var rows = [Double](repeating: 0, count: side * kept)
        for y in 0..<side {
            for v in 0..<kept {
                var sum = 0.0
                for x in 0..<side { sum += values[y * side + x] * basis[v][x] }
                rows[y * kept + v] = sum
            }
        }
        var coefficients = [Double](repeating: 0, count: kept * kept)
        for u in 0..<kept {
            for v in 0..<kept {
                var sum = 0.0
                for y in 0..<side { sum += rows[y * kept + v] * basis[u][y] }
                coefficients[u * kept + v] = sum
            }
        }
        let median = coefficients.dropFirst().sorted()[31]
        return coefficients.enumerated().reduce(UInt64(0)) { hash, term in
            term.element > median ? hash | 1 << UInt64(term.offset) : hash
        }
    }

    /// The 32 × 32 picture averaged 2 × 2 into the 16 × 16 grid.
    private static func halved(_ luma: [UInt8]) -> [UInt8] {
        let side = Self.side, big = hashSide
        return (0..<side * side).map { cell in
            let x = cell % side * 2, y = cell / side * 2
            let sum = Int(luma[y * big + x]) + Int(luma[y * big + x + 1]) + Int(luma[(y + 1) * big + x]) + Int(luma[(y + 1) * big + x + 1])
            return UInt8((sum + 2) / 4)
        }
    }
}

#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
