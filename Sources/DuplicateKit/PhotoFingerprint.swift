/// What a photo looks like, in 4 KB: enough to tell its copies (re-encoded, resized, in another
/// format, cut by up to ~10%) from other photos, burst frames included, among millions.
///
/// `picture` is the photo's luma averaged into 64 × 64 cells, the whole photo squeezed, upright.
/// Two uses:
/// - pHashes (the signs of the 8 × 8 lowest DCT frequencies of a 16 × 16 grid against their
///   median) of the whole picture and of `windows` of it find candidates fast (`HammingIndex`):
///   a crop's hash lies close to the hash of the window it was cut from, not to its photo's;
/// - `FingerprintDistance` compares two photos' 16 × 16 grids, one over windows of the other
///   averaged from its picture: a picture four times finer than the grid is what lets a crop align
///   within a level where bursts do not (bench/duplicates/README.md, method A "hires64").
/// A flat picture (black, white) has none: it would match every other.
public struct PhotoFingerprint: Equatable, Sendable {
    /// The picture's side.
    public static let pictureSide = 64
    /// The side of the grids compared and hashed.
    public static let side = 16
    /// Below this standard deviation of its luma (0–255) a picture is flat.
    static let flatDeviation = 4.0
    /// The windows whose hashes index a photo, where a crop of up to ~10% leaves it: whole; centred
    /// at 95% and 90%; 90% and 95% at each corner; 95% against each side.
    public static let windows: [FingerprintDistance.Window] = [
        .init(left: 0, top: 0, width: 1, height: 1), .init(left: 0.025, top: 0.025, width: 0.95, height: 0.95),
        .init(left: 0.05, top: 0.05, width: 0.9, height: 0.9),
    ] + [(0.0, 0.0), (0.1, 0.0), (0.0, 0.1), (0.1, 0.1)].map { .init(left: $0.0, top: $0.1, width: 0.9, height: 0.9) }
        + [(0.0, 0.0), (0.05, 0.0), (0.0, 0.05), (0.05, 0.05)].map { .init(left: $0.0, top: $0.1, width: 0.95, height: 0.95) }
        + [(0.0, 0.0, 0.95, 1.0), (0.05, 0.0, 0.95, 1.0), (0.0, 0.0, 1.0, 0.95), (0.0, 0.05, 1.0, 0.95)].map { .init(left: $0.0, top: $0.1, width: $0.2, height: $0.3) }

    /// Luma 0–255, `pictureSide` × `pictureSide`, row by row.
    public let picture: [UInt8]
    /// The pHashes of `windows`, in their order: the first is the whole picture's.
    public let hashes: [UInt64]
    /// The whole picture's grid.
    let grid: [Float]

    /// The fingerprint of a picture, nil when it is flat.
    public init?(picture: [UInt8]) {
        precondition(picture.count == Self.pictureSide * Self.pictureSide, "a picture of \(Self.pictureSide) × \(Self.pictureSide)")
        let values = picture.map(Double.init)
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        guard variance.squareRoot() >= Self.flatDeviation else { return nil }
        self.picture = picture
        let area = SummedArea(picture, side: Self.pictureSide)
        grid = Self.wholeGrid(picture)
        hashes = Self.windows.map { [area] in Self.pHash(area.grid(over: $0, side: Self.side)) }
    }

    /// A fingerprint as recorded: its picture and `hashes`, as `init(picture:)` made them.
    public init(picture: [UInt8], hashes: [UInt64]) {
        precondition(picture.count == Self.pictureSide * Self.pictureSide && hashes.count == Self.windows.count)
        self.picture = picture
        self.hashes = hashes
        grid = Self.wholeGrid(picture)
    }

    /// The whole picture averaged into the grid: each cell the mean of 4 × 4 of the picture's, as
    /// `SummedArea.grid` averages the whole window, to the bit, without a table of sums (a million
    /// photos' pairs read tens of thousands of pictures).
    static func wholeGrid(_ picture: [UInt8]) -> [Float] {
        let scale = pictureSide / side
        var sums = [Int](repeating: 0, count: side * side)
        for y in 0..<pictureSide {
            for x in 0..<pictureSide { sums[y / scale * side + x / scale] += Int(picture[y * pictureSide + x]) }
        }
        return sums.map { Float($0) / Float(scale * scale) }
    }

    public static func == (left: Self, right: Self) -> Bool { left.picture == right.picture }

    /// The picture's running sums, for the mean of any region of it.
    var area: SummedArea { SummedArea(picture, side: Self.pictureSide) }

    /// The pHash of the whole picture.
    public var hash: UInt64 { hashes[0] }

    /// Bit 8u + v is set when the DCT coefficient (u, v) of `grid` is above the median of the 63 that are not DC.
    static func pHash(_ grid: [Float]) -> UInt64 {
        let side = Self.side, kept = 8, cosines = Self.cosines
        // Each row's 8 lowest frequencies across, then those down the columns.
        var across = [Float](repeating: 0, count: side * kept)
        for y in 0..<side {
            for v in 0..<kept {
                var sum: Float = 0
                for x in 0..<side { sum += grid[y * side + x] * cosines[v * side + x] }
                across[y * kept + v] = sum
            }
        }
        var coefficients = [Float](repeating: 0, count: kept * kept)
        for u in 0..<kept {
            for v in 0..<kept {
                var sum: Float = 0
                for y in 0..<side { sum += across[y * kept + v] * cosines[u * side + y] }
                coefficients[u * kept + v] = sum
            }
        }
        let median = coefficients.dropFirst().sorted()[31]
        var hash: UInt64 = 0
        for bit in 0..<kept * kept where coefficients[bit] > median { hash |= 1 << UInt64(bit) }
        return hash
    }

    /// Row u: cos(π (2i + 1) u / 2 side), for the 8 lowest frequencies.
    private static let cosines: [Float] = (0..<8).flatMap { u in
        (0..<side).map { i in Float(cos(Double.pi * Double((2 * i + 1) * u) / Double(2 * side))) }
    }
}

/// A picture's running sums (a summed-area table): the mean of any region of it in four reads,
/// exact for the picture taken as constant over each of its cells.
struct SummedArea: Sendable {
    let side: Int
    /// (side + 1)², row by row: the sum of the cells above and left of each corner.
    private let sums: [Double]

    init(_ picture: [UInt8], side: Int) {
        self.side = side
        var sums = [Double](repeating: 0, count: (side + 1) * (side + 1))
        for y in 0..<side {
            var row = 0.0
            for x in 0..<side {
                row += Double(picture[y * side + x])
                sums[(y + 1) * (side + 1) + x + 1] = sums[y * (side + 1) + x + 1] + row
            }
        }
        self.sums = sums
    }

    /// `window` averaged into a `cells` × `cells` grid.
    func grid(over window: FingerprintDistance.Window, side cells: Int) -> [Float] {
        let xs = (0...cells).map { (window.left + window.width * Double($0) / Double(cells)) * Double(side) }
        let ys = (0...cells).map { (window.top + window.height * Double($0) / Double(cells)) * Double(side) }
        var corners = [Double](repeating: 0, count: (cells + 1) * (cells + 1))
        for j in 0...cells { for i in 0...cells { corners[j * (cells + 1) + i] = sum(to: xs[i], ys[j]) } }
        var grid = [Float](repeating: 0, count: cells * cells)
        for j in 0..<cells {
            for i in 0..<cells {
                let total = corners[(j + 1) * (cells + 1) + i + 1] - corners[j * (cells + 1) + i + 1]
                    - corners[(j + 1) * (cells + 1) + i] + corners[j * (cells + 1) + i]
                grid[j * cells + i] = Float(total / ((xs[i + 1] - xs[i]) * (ys[j + 1] - ys[j])))
            }
        }
        return grid
    }

    /// The sum over [0, x] × [0, y], in cells (clamped to the picture): the table read bilinearly.
    private func sum(to x: Double, _ y: Double) -> Double {
        let x = min(max(x, 0), Double(side)), y = min(max(y, 0), Double(side))
        let left = min(Int(x), side - 1), top = min(Int(y), side - 1)
        let fx = x - Double(left), fy = y - Double(top), row = side + 1
        let upper = sums[top * row + left] * (1 - fx) + sums[top * row + left + 1] * fx
        let lower = sums[(top + 1) * row + left] * (1 - fx) + sums[(top + 1) * row + left + 1] * fx
        return upper * (1 - fy) + lower * fy
    }
}

#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
