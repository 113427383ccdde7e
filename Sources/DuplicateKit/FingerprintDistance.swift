/// How far two fingerprints' pictures lie apart once aligned: the mean absolute difference of
/// their grids' luma (0–1, each grid's mean taken out, so a brighter re-encode is no further),
/// at the best of the windows one photo may have been cut to from the other.
///
/// A window is `crop` of the larger picture at most on each side together, its shape that of
/// the other photo (within `shapeTolerance`); the search tries the whole picture first, then a
/// coarse grid of windows, then finer steps around the best: the work is in the few candidate
/// pairs the hash found, never in all pairs.
public enum FingerprintDistance {
    /// The most a copy may have been cut by, in width and in height.
    public static let crop = 0.125
    /// How far the shapes (log of width / height) may differ beyond what the crop explains.
    static let shapeTolerance = 0.03
    static let coarseStep = 0.025
    /// Whole pictures further apart than this are not searched for a crop: a 10% crop lies 0.13–0.14
    /// from its photo unaligned (bench/README.md), unrelated pictures mostly 0.15–0.4, random grids 0.33.
    static let hopeless = 0.2

    /// Bits that differ between two hashes.
    public static func hamming(_ a: UInt64, _ b: UInt64) -> Int {
        (a ^ b).nonzeroBitCount
    }

    /// Whether one photo could be a crop of the other within `crop`: their shapes.
    public static func shapesMatch(_ a: PhotoFingerprint, _ b: PhotoFingerprint) -> Bool {
        let limit = -log(1 - crop) + shapeTolerance
        return abs(log(a.aspect) - log(b.aspect)) <= limit
    }

    /// Photos of one size: one cannot be a crop of the other (a crop changes the size), so they
    /// are compared whole. Burst frames are of one size.
    public static func sameSize(_ a: PhotoFingerprint, _ b: PhotoFingerprint) -> Bool {
        a.width == b.width && a.height == b.height
    }

    /// Two grids' distance whole, and at the best crop one may be of the other.
    public struct Comparison: Equatable, Sendable {
        public let whole: Double
        public let aligned: Double
    }

    /// The grids compared whole, and aligned where one may be a crop of the other: not where they
    /// are of one size, within `enough` or beyond `hopeless` whole.
    public static func between(_ a: PhotoFingerprint, _ b: PhotoFingerprint, enough: Double) -> Comparison {
        let whole = Window(left: 0, top: 0, width: 1, height: 1)
        let unaligned = distance(a.grid, b.grid, whole)
        guard unaligned > enough, unaligned <= hopeless, !sameSize(a, b), shapesMatch(a, b) else {
            return Comparison(whole: unaligned, aligned: unaligned)
        }
        var best = unaligned
        for (inner, outer) in [(a, b), (b, a)] {
            var found = (distance: unaligned, window: whole)
            for window in windows(of: outer.aspect, holding: inner.aspect, step: coarseStep) {
                let d = distance(inner.grid, outer.grid, window)
                if d < found.distance { found = (d, window) }
            }
            // Finer steps around the best window: half, then a quarter of the coarse one.
            for step in [coarseStep / 2, coarseStep / 4] {
                for window in found.window.neighbours(step: step) where window.isInside(crop: crop) {
                    let d = distance(inner.grid, outer.grid, window)
                    if d < found.distance { found = (d, window) }
                }
            }
            best = min(best, found.distance)
        }
        return Comparison(whole: unaligned, aligned: best)
    }

    /// A region of a picture, in fractions of its width and height.
    public struct Window: Equatable, Sendable {
        var left, top, width, height: Double

        func isInside(crop: Double) -> Bool {
            left >= -1e-9 && top >= -1e-9 && left + width <= 1 + 1e-9 && top + height <= 1 + 1e-9
                && width >= 1 - crop - 1e-9 && height >= 1 - crop - 1e-9
        }

        /// The windows a step away in position and size.
        func neighbours(step: Double) -> [Window] {
            let moves = [-step, 0, step]
            return moves.flatMap { dx in moves.flatMap { dy in moves.map { ds in
                Window(left: left + dx, top: top + dy, width: width + ds, height: height + ds * height / width)
            } } }
        }
    }

    /// Every window of a picture of shape `outer` with shape `inner`, `step` apart.
    static func windows(of outer: Double, holding inner: Double, step: Double) -> [Window] {
        let sizes = stride(from: 1.0, through: 1 - crop - 1e-9, by: -step)
        var found: [Window] = []
        for width in sizes {
            // The height the inner shape asks of a window this wide, in the outer picture's fractions.
            let height = width * outer / inner
            guard height <= 1 + shapeTolerance, height >= 1 - crop - shapeTolerance else { continue }
            let fitted = min(1, height)
            for left in stride(from: 0.0, through: 1 - width + 1e-9, by: step) {
                for top in stride(from: 0.0, through: 1 - fitted + 1e-9, by: step) {
                    found.append(Window(left: left, top: top, width: width, height: fitted))
                }
            }
        }
        return found
    }

    /// `inner`'s grid against `outer`'s sampled over `window`.
    static func distance(_ inner: [UInt8], _ outer: [UInt8], _ window: Window) -> Double {
        let sampled = sampled(outer, over: window), count = Double(sampled.count)
        let shift = (inner.reduce(0) { $0 + Double($1) } - sampled.reduce(0, +)) / count
        var total = 0.0
        for index in sampled.indices { total += abs(Double(inner[index]) - sampled[index] - shift) }
        return total / count / 255
    }

    /// A grid's values over `window`, as a grid of the same side (bilinear, at the centres of its cells).
    static func sampled(_ grid: [UInt8], over window: Window) -> [Double] {
        let side = PhotoFingerprint.side
        let columns = taps(start: window.left, size: window.width), rows = taps(start: window.top, size: window.height)
        var sampled = [Double](repeating: 0, count: side * side)
        for y in 0..<side {
            let row = rows[y]
            for x in 0..<side {
                let column = columns[x]
                let top = Double(grid[row.first * side + column.first]) * (1 - column.weight) + Double(grid[row.first * side + column.second]) * column.weight
                let bottom = Double(grid[row.second * side + column.first]) * (1 - column.weight) + Double(grid[row.second * side + column.second]) * column.weight
                sampled[y * side + x] = top * (1 - row.weight) + bottom * row.weight
            }
        }
        return sampled
    }

    /// For each of a grid's cells across a window from `start` of `size`: the two grid cells it lies between, and how far.
    static func taps(start: Double, size: Double) -> [(first: Int, second: Int, weight: Double)] {
        let side = PhotoFingerprint.side
        return (0..<side).map { index in
            let position = ((start + size * (Double(index) + 0.5) / Double(side)) * Double(side) - 0.5)
                .clamped(0, Double(side - 1))
            let first = Int(position)
            return (first, min(first + 1, side - 1), position - Double(first))
        }
    }
}

extension Double {
    fileprivate func clamped(_ low: Double, _ high: Double) -> Double {
        Swift.min(Swift.max(self, low), high)
    }
}

#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
