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

    /// Whether one photo could be a crop of the other within `crop`: their shapes (upright sizes).
    public static func shapesMatch(_ a: PixelShape, _ b: PixelShape) -> Bool {
        let limit = -log(1 - crop) + shapeTolerance
        return abs(log(a.aspect) - log(b.aspect)) <= limit
    }

    /// The two photos' grids compared at the best crop one may be of the other: whole where they are
    /// of one size (a crop changes the size; burst frames do not), within `enough` or beyond
    /// `hopeless` whole.
    public static func between(_ a: (print: PhotoFingerprint, shape: PixelShape), _ b: (print: PhotoFingerprint, shape: PixelShape),
                               enough: Double) -> Double {
        let unaligned = distance(a.print.grid, b.print.grid)
        guard unaligned > enough, unaligned <= hopeless, a.shape != b.shape, shapesMatch(a.shape, b.shape) else {
            return unaligned
        }
        var best = unaligned
        for (inner, outer) in [(a, b), (b, a)] {
            let whole = Window(left: 0, top: 0, width: 1, height: 1)
            let area = outer.print.area
            var found = (distance: unaligned, window: whole)
            func consider(_ window: Window) {
                let d = distance(inner.print.grid, area.grid(over: window, side: PhotoFingerprint.side))
                if d < found.distance { found = (d, window) }
            }
            windows(of: outer.shape.aspect, holding: inner.shape.aspect, step: coarseStep).forEach(consider)
            // Finer steps around the best window: half, then a quarter of the coarse one.
            for step in [coarseStep / 2, coarseStep / 4] {
                found.window.neighbours(step: step).filter { $0.isInside(crop: crop) }.forEach(consider)
            }
            best = min(best, found.distance)
        }
        return best
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

    /// The mean absolute difference of two grids, each one's mean taken out, 0–1.
    static func distance(_ inner: [Float], _ outer: [Float]) -> Double {
        let shift = (inner.reduce(0, +) - outer.reduce(0, +)) / Float(inner.count)
        var total: Float = 0
        for index in inner.indices { total += abs(inner[index] - outer[index] - shift) }
        return Double(total) / Double(inner.count) / 255
    }
}

/// A photo's size, upright.
public struct PixelShape: Equatable, Sendable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// width / height.
    var aspect: Double { Double(width) / Double(height) }
}

#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
