import CVips
import Foundation

/// Pixel buffers for pictures another decoder fills (`VImage.decoded(filling:)`) and for pictures
/// converted to sRGB (`convertedToSRGB(using:)`), kept between items. A 12 MP picture's 36 MB is
/// above glibc's largest mmap threshold (32 MiB), so each malloc of one would map fresh pages that
/// the kernel faults in and zeroes, and each free would unmap them: a large share of a HEIC run's
/// system time (bench/README.md, "HEIC: buffers kept").
///
/// A buffer comes back when libvips finalises the image over it, not when a `VImage` wrapper
/// goes: images made from it (a reduce, a crop) hold it through libvips' own references.
enum CanvasPool {
    /// At most `spares` buffers wait here, each at most `largestSpare` bytes (a 16 MP picture):
    /// what a worker holds between items stays small beside an item's own cost.
    static let spares = 2
    static let largestSpare = 48 << 20
    /// Sizes round up to this, so that photos a few rows apart share buffers.
    static let granule = 4 << 20
    /// The buffer's capacity sits in front of its pixels, at an offset that keeps them aligned.
    private static let headerBytes = 64

    private static let lock = NSLock()
    nonisolated(unsafe) private static var waiting: [UnsafeMutableRawPointer] = []

    /// A memory image of `width` × `height` pixels of `bands` samples of `depth` over a pooled
    /// buffer, and the buffer (its pixels, row after row, not cleared).
    static func image(width: Int, height: Int, bands: Int, depth: VImage.SampleDepth) throws -> (VImage, UnsafeMutablePointer<UInt8>) {
        let bytes = width * height * bands * depth.rawValue / 8
        let pixels = take(bytes)
        let made: UnsafeMutablePointer<VipsImage>
        do {
            made = try check(vips_image_new_from_memory(pixels, bytes, Int32(width), Int32(height), Int32(bands), depth.format),
                             "new_from_memory")
        } catch {
            give(pixels)
            throw error
        }
        // What heifload calls it: libvips' guess calls 4 bands of 8 bits multiband, and 3 of 16 bits sRGB.
        made.pointee.Type = depth.interpretation(bands: bands)
        g_object_set_data_full(UnsafeMutableRawPointer(made).assumingMemoryBound(to: GObject.self), "mediabatch-canvas", pixels) {
            $0.map(CanvasPool.give)
        }
        return (VImage(owning: made), pixels.assumingMemoryBound(to: UInt8.self))
    }

    /// The waiting buffers' capacities (for tests).
    static var waitingCapacities: [Int] { lock.withLock { waiting.map(capacity) } }

    /// The smallest waiting buffer that holds `bytes`, else a new one.
    private static func take(_ bytes: Int) -> UnsafeMutableRawPointer {
        let reused: UnsafeMutableRawPointer? = lock.withLock {
            let fitting = waiting.indices.filter { capacity(waiting[$0]) >= bytes }
            guard let best = fitting.min(by: { capacity(waiting[$0]) < capacity(waiting[$1]) }) else { return nil }
            return waiting.remove(at: best)
        }
        if let reused { return reused }
        let rounded = (bytes + granule - 1) / granule * granule
        guard let base = malloc(headerBytes + rounded) else { fatalError("out of memory for a \(rounded)-byte picture") }
        base.storeBytes(of: rounded, as: Int.self)
        return base + headerBytes
    }

    /// Back to the pool, or freed when it is too large or the pool is full (the oldest goes).
    private static func give(_ pixels: UnsafeMutableRawPointer) {
        let freed: UnsafeMutableRawPointer? = lock.withLock {
            guard capacity(pixels) <= largestSpare else { return pixels }
            waiting.append(pixels)
            return waiting.count > spares ? waiting.removeFirst() : nil
        }
        freed.map { free($0 - headerBytes) }
    }

    private static func capacity(_ pixels: UnsafeMutableRawPointer) -> Int {
        (pixels - headerBytes).load(as: Int.self)
    }
}
