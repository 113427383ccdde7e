import Foundation
import VipsKit

/// A ThumbHash of an image: about 25 bytes that a page decodes into a blurred preview (with the
/// image's aspect ratio and average colour) while the real image loads. The format is Evan
/// Wallace's (https://evanw.github.io/thumbhash/, MIT): the average colour, then the lowest DCT
/// frequencies of luminance, two chroma channels and alpha, each scaled and packed in 4 bits.
/// Written here from the format's description; `ThumbHashTests` checks it byte for byte
/// against the reference implementation.
enum ThumbHash {
    /// The format encodes at most 100 × 100 pixels: more adds time, not detail.
    static let maxSide = 100

    static func base64(of image: VImage) throws -> String {
        let side = min(maxSide, max(image.width, image.height))
        let fitted = PixelSize(width: image.width, height: image.height).fitting(longestSide: side)
        let small = try image.resized(width: fitted.width, height: fitted.height)
        let rgba = try RGBA(small)
        return Data(encode(width: small.width, height: small.height, rgba: rgba.samples)).base64EncodedString()
    }

    /// The hash of `rgba` (row by row, 4 samples a pixel, not premultiplied), `width` and `height` ≤ 100.
    static func encode(width: Int, height: Int, rgba: [UInt8]) -> [UInt8] {
        let image = Channels(width: width, height: height, rgba: rgba)
        let longest = max(width, height)
        let limit = image.hasAlpha ? 5.0 : 7.0 // fewer luminance terms when alpha takes room
        let lx = max(1, Int((limit * Double(width) / Double(longest)).rounded()))
        let ly = max(1, Int((limit * Double(height) / Double(longest)).rounded()))
        let l = image.dct(image.l, max(3, lx), max(3, ly))
        let p = image.dct(image.p, 3, 3), q = image.dct(image.q, 3, 3)
        let isLandscape = width > height
        let header24 = quantise(63 * l.dc) | quantise(31.5 + 31.5 * p.dc) << 6 | quantise(31.5 + 31.5 * q.dc) << 12
            | quantise(31 * l.scale) << 18 | (image.hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx) | quantise(63 * p.scale) << 3 | quantise(63 * q.scale) << 9 | (isLandscape ? 1 << 15 : 0)
        var hash = [header24 & 255, header24 >> 8 & 255, header24 >> 16, header16 & 255, header16 >> 8].map { UInt8($0) }
        var terms = [l.ac, p.ac, q.ac]
        if image.hasAlpha {
            let a = image.dct(image.a, 5, 5)
            hash.append(UInt8(quantise(15 * a.dc) | quantise(15 * a.scale) << 4))
            terms.append(a.ac)
        }
        // Two 4-bit terms a byte, low nibble first.
        for (index, term) in terms.joined().enumerated() {
            if index % 2 == 0 { hash.append(0) }
            hash[hash.count - 1] |= UInt8(quantise(15 * term) << (index % 2 * 4))
        }
        return hash
    }

    /// Every value quantised here is 0 or more, where rounding half away from zero is half up.
    private static func quantise(_ value: Double) -> Int {
        Int(value.rounded())
    }

    /// The image as luminance, yellow–blue, red–green and alpha, composited over its average colour.
    private struct Channels {
        let width: Int
        let height: Int
        let hasAlpha: Bool
        private(set) var l: [Double] = [], p: [Double] = [], q: [Double] = [], a: [Double] = []

        init(width: Int, height: Int, rgba: [UInt8]) {
            self.width = width
            self.height = height
            let pixels = width * height
            var average = (r: 0.0, g: 0.0, b: 0.0, a: 0.0)
            for index in 0..<pixels {
                let alpha = Double(rgba[index * 4 + 3]) / 255
                average.r += alpha / 255 * Double(rgba[index * 4])
                average.g += alpha / 255 * Double(rgba[index * 4 + 1])
                average.b += alpha / 255 * Double(rgba[index * 4 + 2])
                average.a += alpha
            }
            if average.a > 0 { (average.r, average.g, average.b) = (average.r / average.a, average.g / average.a, average.b / average.a) }
            hasAlpha = average.a < Double(pixels)
            for index in 0..<pixels {
                let alpha = Double(rgba[index * 4 + 3]) / 255
                func composited(_ sample: Int, _ mean: Double) -> Double { mean * (1 - alpha) + alpha / 255 * Double(rgba[index * 4 + sample]) }
                let (r, g, b) = (composited(0, average.r), composited(1, average.g), composited(2, average.b))
                l.append((r + g + b) / 3)
                p.append((r + g) / 2 - b)
                q.append(r - g)
                a.append(alpha)
            }
        }

        /// The constant term and the varying ones (a triangle of `nx` × `ny` frequencies),
        /// the latter mapped to 0...1 by their largest magnitude.
        func dct(_ channel: [Double], _ nx: Int, _ ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
            var dc = 0.0, ac: [Double] = [], scale = 0.0
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    let f = coefficient(channel, cx, cy)
                    if cx == 0 && cy == 0 { dc = f } else { ac.append(f); scale = max(scale, abs(f)) }
                    cx += 1
                }
            }
            if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
            return (dc, ac, scale)
        }

        private func coefficient(_ channel: [Double], _ cx: Int, _ cy: Int) -> Double {
            let fx = (0..<width).map { cos(Double.pi / Double(width) * Double(cx) * (Double($0) + 0.5)) }
            var sum = 0.0
            for y in 0..<height {
                let fy = cos(Double.pi / Double(height) * Double(cy) * (Double(y) + 0.5))
                for x in 0..<width { sum += channel[x + y * width] * fx[x] * fy }
            }
            return sum / Double(width * height)
        }
    }

    /// An image's pixels as 8-bit RGBA, from grey, grey and alpha, RGB or RGBA, 8 or 16 bits a sample.
    struct RGBA {
        let samples: [UInt8]

        init(_ image: VImage) throws {
            let pixels = try image.pixels()
            let bytesPerSample = image.bitsPerSample / 8
            guard [1, 2].contains(bytesPerSample), (1...4).contains(image.bands) else {
                throw StageFailure(.encodeFailed, "no placeholder for \(image.bands) bands of \(image.bitsPerSample) bits")
            }
            // The most significant byte of a 16-bit sample (little-endian) is its second.
            func sample(_ pixel: Int, _ band: Int) -> UInt8 { pixels[(pixel * image.bands + band) * bytesPerSample + bytesPerSample - 1] }
            let colourBands = image.bands >= 3 ? [0, 1, 2] : [0, 0, 0]
            let alphaBand = image.bands == 2 || image.bands == 4 ? image.bands - 1 : nil
            samples = (0..<image.width * image.height).flatMap { pixel in
                colourBands.map { sample(pixel, $0) } + [alphaBand.map { sample(pixel, $0) } ?? 255]
            }
        }
    }
}
