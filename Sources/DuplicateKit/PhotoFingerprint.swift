/// What a photo looks like, in 264 bytes: enough to tell its copies (re-encoded, resized, in
/// another format, cut by up to ~10%) from other photos among millions.
///
/// `grid` is the photo's luma squeezed to 16 × 16 (from 32 × 32, averaged). Two uses:
/// - a pHash of the grid, or of a window of it (the signs of its 8 × 8 lowest DCT frequencies
///   against their median), finds candidates fast (`HammingIndex`): a crop's hash lies close to the
///   hash of the window it was cut from (`windows`), not to its photo's;
/// - `FingerprintDistance` compares two grids, aligned over the crops one may be of the other.
/// Made from the whole photo, upright; a flat picture (black, white) has none: it would match every other.
public struct PhotoFingerprint: Equatable, Sendable {
    /// The grid's side.
    public static let side = 16
    /// The side of the picture the grid is averaged from.
    public static let hashSide = 32
    /// Below this standard deviation of its luma (0–255) a picture is flat.
    static let flatDeviation = 4.0
    /// The windows whose hashes index a photo: whole, centred at 95% and 90%, and 90% at each
    /// corner, where a crop of up to ~10% leaves it (a 10% corner crop lies 8 bits from its
    /// window's hash, 20 from the photo's: bench/README.md).
    static let windows: [FingerprintDistance.Window] = [
        .init(left: 0, top: 0, width: 1, height: 1), .init(left: 0.025, top: 0.025, width: 0.95, height: 0.95),
        .init(left: 0.05, top: 0.05, width: 0.9, height: 0.9),
    ] + [(0.0, 0.0), (0.1, 0.0), (0.0, 0.1), (0.1, 0.1)].map { .init(left: $0.0, top: $0.1, width: 0.9, height: 0.9) }

    /// The pHash of the whole grid.
    public let hash: UInt64
    /// Luma 0–255, `side` × `side`, row by row.
    public let grid: [UInt8]
    /// The photo's size, upright: its shape decides which crops are possible, its pixels the keeper.
    public let width: Int
    public let height: Int

    public init(grid: [UInt8], width: Int, height: Int) {
        precondition(grid.count == Self.side * Self.side, "a grid of \(Self.side) × \(Self.side)")
        self.grid = grid
        self.width = width
        self.height = height
        hash = Self.pHash(grid, Self.transforms[0])
    }

    /// The fingerprint of a photo of `width` × `height`, upright, from its luma squeezed to
    /// `hashSide` × `hashSide` (row by row); nil when the picture is flat.
    public init?(luma: [UInt8], width: Int, height: Int) {
        precondition(luma.count == Self.hashSide * Self.hashSide, "a picture of \(Self.hashSide) × \(Self.hashSide)")
        let values = luma.map(Double.init)
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        guard variance.squareRoot() >= Self.flatDeviation else { return nil }
        self.init(grid: Self.halved(luma), width: width, height: height)
    }

    /// width / height.
    public var aspect: Double { Double(width) / Double(height) }

    /// The hashes of `windows`, in their order (the first is `hash`).
    public var windowHashes: [UInt64] {
        Self.transforms.map { Self.pHash(grid, $0) }
    }

    /// Bit 8u + v is set when the DCT coefficient (u, v) of the grid over a window is above the
    /// median of the 63 that are not DC. `transform` is the window's: the DCT of the grid sampled
    /// over it (both linear), as one matrix for its rows and one for its columns.
    static func pHash(_ grid: [UInt8], _ transform: WindowTransform) -> UInt64 {
        let side = Self.side, kept = 8
        return grid.withUnsafeBufferPointer { grid in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: side * kept + kept * kept + 63) { scratch in
                // Each grid row's 8 lowest frequencies across, then those down the columns.
                transform.columns.withUnsafeBufferPointer { columns in
                    for y in 0..<side {
                        for v in 0..<kept {
                            var sum: Float = 0
                            for x in 0..<side { sum += Float(grid[y * side + x]) * columns[v * side + x] }
                            scratch[y * kept + v] = sum
                        }
                    }
                }
                let coefficients = side * kept
                transform.rows.withUnsafeBufferPointer { rows in
                    for u in 0..<kept {
                        for v in 0..<kept {
                            var sum: Float = 0
                            for y in 0..<side { sum += scratch[y * kept + v] * rows[u * side + y] }
                            scratch[coefficients + u * kept + v] = sum
                        }
                    }
                }
                let others = coefficients + kept * kept
                for index in 1..<kept * kept { scratch[others + index - 1] = scratch[coefficients + index] }
                let median = Self.select(31, in: UnsafeMutableBufferPointer(rebasing: scratch[others..<others + 63]))
                var hash: UInt64 = 0
                for bit in 0..<kept * kept where scratch[coefficients + bit] > median { hash |= 1 << UInt64(bit) }
                return hash
            }
        }
    }

    /// The `k`th smallest of `values` (which it reorders): Hoare's selection.
    private static func select(_ k: Int, in values: UnsafeMutableBufferPointer<Float>) -> Float {
        var (low, high) = (0, values.count - 1)
        while low < high {
            let pivot = values[(low + high) / 2]
            var (i, j) = (low, high)
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { high = j } else if k >= i { low = i } else { return values[k] }
        }
        return values[k]
    }

    /// A window's sampling and the DCT's 8 lowest frequencies, composed: 8 × `side`, for rows and for columns.
    struct WindowTransform {
        let rows: [Float]
        let columns: [Float]

        init(_ window: FingerprintDistance.Window) {
            rows = Self.matrix(FingerprintDistance.taps(start: window.top, size: window.height))
            columns = Self.matrix(FingerprintDistance.taps(start: window.left, size: window.width))
        }

        /// Row u: cos(π (2i + 1) u / 2 side) over the sample points i, spread on the grid cells they are read from.
        private static func matrix(_ taps: [(first: Int, second: Int, weight: Double)]) -> [Float] {
            let side = PhotoFingerprint.side
            var matrix = [Float](repeating: 0, count: 8 * side)
            for u in 0..<8 {
                for (point, tap) in taps.enumerated() {
                    let cosine = cos(Double.pi * Double((2 * point + 1) * u) / Double(2 * side))
                    matrix[u * side + tap.first] += Float(cosine * (1 - tap.weight))
                    matrix[u * side + tap.second] += Float(cosine * tap.weight)
                }
            }
            return matrix
        }
    }

    static let transforms = windows.map(WindowTransform.init)

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
