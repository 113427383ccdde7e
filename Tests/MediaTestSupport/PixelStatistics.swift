import VipsKit

/// Colour as tests read it back: libvips computes the pixels (`VImage.pixels()`), the sums are
/// the tests' own.
extension VImage {
    /// The mean of each band.
    public func bandMeans() throws -> [Double] {
        let samples = try self.samples()
        var sums = [Double](repeating: 0, count: bands)
        for band in 0..<bands {
            var sum = 0
            for index in stride(from: band, to: samples.count, by: bands) { sum += samples[index] }
            sums[band] = Double(sum)
        }
        let pixels = Double(samples.count / max(1, bands))
        return sums.map { $0 / pixels }
    }

    /// The mean absolute difference of every sample from `other`'s, which has the same size;
    /// bands only one of them has (an alpha a JPEG could not keep) are left out.
    public func meanAbsoluteDifference(from other: VImage) throws -> Double {
        try Self.meanAbsoluteDifference(samples(), bands, try other.samples(), other.bands)
    }

    public static func meanAbsoluteDifference(_ mine: [Int], _ myBands: Int, _ theirs: [Int], _ theirBands: Int) throws -> Double {
        guard mine.count / myBands == theirs.count / theirBands else {
            throw PixelStatisticsError.differentShapes(mine.count / myBands, theirs.count / theirBands)
        }
        let bands = min(myBands, theirBands)
        var sum = 0
        for pixel in 0..<mine.count / myBands {
            for band in 0..<bands { sum += abs(mine[pixel * myBands + band] - theirs[pixel * theirBands + band]) }
        }
        return Double(sum) / Double(max(1, mine.count / myBands * bands))
    }

    /// Every sample as an integer, band-interleaved row by row: 8-bit and 16-bit images.
    public func samples() throws -> [Int] {
        let bytes = try pixels()
        switch bitsPerSample {
        case 8: return bytes.map(Int.init)
        case 16: return stride(from: 0, to: bytes.count - 1, by: 2).map { Int(UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        default: throw PixelStatisticsError.unsupportedDepth(bitsPerSample)
        }
    }
}

public enum PixelStatisticsError: Error {
    case differentShapes(Int, Int)
    case unsupportedDepth(Int)
}
