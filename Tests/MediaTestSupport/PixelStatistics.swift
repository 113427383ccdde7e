import VipsKit

/// Colour as tests read it back: libvips computes the pixels (`VImage.pixels()`), the sums are
/// the tests' own. The loops walk raw pointers: tests are built unoptimised, where an array's
/// subscript is a call a sample (a 12 MP picture's 36 million samples took seconds to sum).
extension VImage {
    /// The mean of each band.
    public func bandMeans() throws -> [Double] {
        let bands = self.bands
        guard bitsPerSample == 8 else {
            let samples = try self.samples()
            return try Self.bandMeans(samples, bands)
        }
        let bytes = try pixels()
        var sums = [Int](repeating: 0, count: bands)
        bytes.withUnsafeBufferPointer { buffer in
            sums.withUnsafeMutableBufferPointer { sums in
                guard var sample = buffer.baseAddress, let first = sums.baseAddress else { return }
                let end = sample + buffer.count
                let lastBand = first + (bands - 1)
                var band = first
                while sample < end {
                    band.pointee &+= Int(sample.pointee)
                    band = band == lastBand ? first : band + 1
                    sample += 1
                }
            }
        }
        let pixels = Double(bytes.count / max(1, bands))
        return sums.map { Double($0) / pixels }
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
        let pixels = mine.count / myBands, bands = min(myBands, theirBands)
        let sum = mine.withUnsafeBufferPointer { mine in
            theirs.withUnsafeBufferPointer { theirs in
                guard let mine = mine.baseAddress, let theirs = theirs.baseAddress else { return 0 }
                return absoluteDifferences(mine, myBands, theirs, theirBands, pixels: pixels, bands: bands)
            }
        }
        return Double(sum) / Double(max(1, pixels * bands))
    }

    /// Every sample as an integer, band-interleaved row by row: 8-bit and 16-bit images.
    public func samples() throws -> [Int] {
        let bytes = try pixels()
        let wide: Bool
        switch bitsPerSample {
        case 8: wide = false
        case 16: wide = true
        default: throw PixelStatisticsError.unsupportedDepth(bitsPerSample)
        }
        let count = wide ? bytes.count / 2 : bytes.count
        return bytes.withUnsafeBufferPointer { bytes in
            [Int](unsafeUninitializedCapacity: count) { samples, initialized in
                if var byte = bytes.baseAddress, var sample = samples.baseAddress {
                    let end = sample + count
                    while sample < end {
                        // Little-endian, as libvips holds them on this machine.
                        sample.initialize(to: wide ? Int(byte.pointee) | Int((byte + 1).pointee) << 8 : Int(byte.pointee))
                        byte += wide ? 2 : 1
                        sample += 1
                    }
                }
                initialized = count
            }
        }
    }

    /// The sum of |mine − theirs| over `pixels` pixels' first `bands` bands. Unoptimised, a `for`
    /// over a range calls its iterator a sample: `while` loops over pointers.
    private static func absoluteDifferences(_ mine: UnsafePointer<Int>, _ myBands: Int, _ theirs: UnsafePointer<Int>, _ theirBands: Int,
                                            pixels: Int, bands: Int) -> Int {
        var sum = 0, mine = mine, theirs = theirs, pixel = 0
        while pixel < pixels {
            var band = 0
            while band < bands {
                let difference = (mine + band).pointee &- (theirs + band).pointee
                sum &+= difference < 0 ? -difference : difference
                band &+= 1
            }
            mine += myBands
            theirs += theirBands
            pixel &+= 1
        }
        return sum
    }

    private static func bandMeans(_ samples: [Int], _ bands: Int) throws -> [Double] {
        var sums = [Double](repeating: 0, count: bands)
        for band in 0..<bands {
            var sum = 0
            for index in stride(from: band, to: samples.count, by: bands) { sum += samples[index] }
            sums[band] = Double(sum)
        }
        let pixels = Double(samples.count / max(1, bands))
        return sums.map { $0 / pixels }
    }
}

public enum PixelStatisticsError: Error {
    case differentShapes(Int, Int)
    case unsupportedDepth(Int)
}
