import CMediaShim
import CVips

extension VImage {
    /// A pass-through over this image that adds up its luma into a `side` × `side` grid as a saver
    /// computes it (`mb_vips_tally`): a small picture of what was written, with no second decode.
    public func tallied(side: Int) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_tally(pointer, Int32(side), &out), "tally") }
        return VImage(owning: out!)
    }

    /// The mean luma (0–255) of each cell, row by row, once every row of a `tallied` image was
    /// computed; nil before, or for samples neither 8 nor 16 bits wide.
    public func talliedGrid(side: Int) -> [UInt8]? {
        var grid = [UInt8](repeating: 0, count: side * side)
        return mb_vips_tally_grid(pointer, &grid) == 0 ? grid : nil
    }
}
