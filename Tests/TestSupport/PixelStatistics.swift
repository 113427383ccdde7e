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

    /// The mean absolute difference of every sample from `other`'s, which has the same size and bands.
    public func meanAbsoluteDifference(from other: VImage) throws -> Double {
        let mine = try samples(), theirs = try other.samples()
        guard mine.count == theirs.count else { throw PixelStatisticsError.differentShapes(mine.count, theirs.count) }
        var sum = 0
        for index in mine.indices { sum += abs(mine[index] - theirs[index]) }
        return Double(sum) / Double(max(1, mine.count))
    }

    /// Every sample as an integer: 8-bit and 16-bit images.
    private func samples() throws -> [Int] {
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
