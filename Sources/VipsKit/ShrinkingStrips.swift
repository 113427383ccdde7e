import CMediaShim
import Foundation

/// A picture another decoder makes a strip of rows at a time (a HEIC's row of tiles), box-shrunk
/// `factor` times each way as the strips come, into a picture `VImage.decoded(filling:)` fills:
/// what libvips' `vips_shrink` makes of the whole picture (`mediabatch_shrink.h`), without ever
/// holding it. The decoder writes each strip's rows at `strip`, from row `pending` on (the rows of
/// the last strip that did not fill a group of `factor` wait there), then calls `add(rows:)`.
public final class ShrinkingStrips {
    /// The whole picture's, before shrinking.
    public let width: Int
    public let height: Int
    public let factor: Int
    /// Rows of `stride` bytes: room for a strip and the rows still pending before it.
    public let strip: UnsafeMutablePointer<UInt8>
    public let stride: Int
    /// Rows at the top of `strip` not shrunk yet (fewer than `factor`).
    public private(set) var pending = 0
    private let bands: Int
    private let depth: VImage.SampleDepth
    private let output: UnsafeMutablePointer<UInt8>
    private let outputStride: Int
    private let sums: UnsafeMutablePointer<UInt32>
    private var rowsTaken = 0
    private var rowsMade = 0

    /// The shrunk picture's size for a picture of `width` × `height`: libvips' "ceil".
    public static func shrunk(width: Int, height: Int, by factor: Int) -> (width: Int, height: Int) {
        ((width + factor - 1) / factor, (height + factor - 1) / factor)
    }

    /// Strips of at most `stripRows` rows of `width` pixels of `bands` samples of `depth`, into
    /// `output`: the shrunk picture's pixels, row after row.
    public init(width: Int, height: Int, bands: Int, depth: VImage.SampleDepth, factor: Int, stripRows: Int,
                into output: UnsafeMutablePointer<UInt8>) {
        precondition(factor > 1 && stripRows > 0)
        (self.width, self.height, self.bands, self.depth, self.factor, self.output) = (width, height, bands, depth, factor, output)
        stride = width * bands * depth.rawValue / 8
        outputStride = Self.shrunk(width: width, height: height, by: factor).width * bands * depth.rawValue / 8
        strip = .allocate(capacity: stride * (stripRows + factor - 1))
        sums = .allocate(capacity: width * bands)
    }

    deinit {
        strip.deallocate()
        sums.deallocate()
    }

    /// `rows` more rows written after the pending ones: every whole group of `factor` rows shrunk,
    /// and at the picture's last row the rest too.
    public func add(rows: Int) {
        let available = pending + rows
        precondition(rowsTaken + available <= height, "more rows than the picture has")
        let taken = rowsTaken + available == height ? available : available / factor * factor
        mb_box_shrink(strip, stride, Int32(width), Int32(taken), Int32(bands), depth == .sixteen ? 1 : 0, Int32(factor),
                      output + rowsMade * outputStride, outputStride, sums)
        rowsMade += (taken + factor - 1) / factor
        rowsTaken += taken
        pending = available - taken
        if pending > 0 { memmove(strip, strip + taken * stride, pending * stride) }
    }
}
