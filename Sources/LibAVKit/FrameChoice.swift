/// How a movie's poster frame is chosen among candidates, from small grey versions of them:
/// never black, washed out, flat (a fade) or blurred where a better one exists; of the rest, the
/// most representative — the frame whose brightness histogram is nearest the candidates' average,
/// the ffmpeg `thumbnail` filter's rule — or, for a movie too short to have a story, the sharpest.
enum FrameChoice {
    struct Score: Equatable {
        let mean: Double
        /// Standard deviation of the grey levels: a fade or a flat frame has little.
        let spread: Double
        /// Variance of the Laplacian: a blurred frame has little.
        let sharpness: Double
        /// 32 bins, summing to 1.
        let histogram: [Double]

        /// Neither black nor washed out nor flat.
        var showsSomething: Bool { mean >= 24 && mean <= 240 && spread >= 10 }
    }

    static func score(gray: [UInt8], width: Int, height: Int) -> Score {
        let count = Double(max(gray.count, 1))
        let mean = gray.reduce(0.0) { $0 + Double($1) } / count
        let spread = (gray.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / count).squareRoot()
        var histogram = [Double](repeating: 0, count: 32)
        for level in gray { histogram[Int(level) >> 3] += 1 / count }
        return Score(mean: mean, spread: spread, sharpness: laplacianVariance(gray, width, height), histogram: histogram)
    }

    private static func laplacianVariance(_ gray: [UInt8], _ width: Int, _ height: Int) -> Double {
        guard width > 2, height > 2 else { return 0 }
        var sum = 0.0, squares = 0.0
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let at = y * width + x
                let value = 4 * Double(gray[at]) - Double(gray[at - 1]) - Double(gray[at + 1]) - Double(gray[at - width]) - Double(gray[at + width])
                sum += value
                squares += value * value
            }
        }
        let count = Double((width - 2) * (height - 2))
        return squares / count - (sum / count) * (sum / count)
    }

    /// The index of the chosen candidate: `sharpest` for a short movie, else the most
    /// representative of those at least half as sharp as the sharpest. When every candidate is
    /// black or flat, the one with the most contrast.
    static func choose(_ scores: [Score], sharpest: Bool) -> Int {
        let usable = scores.indices.filter { scores[$0].showsSomething }
        guard let sharpestIndex = usable.max(by: { scores[$0].sharpness < scores[$1].sharpness }) else {
            return scores.indices.max { scores[$0].spread < scores[$1].spread } ?? 0
        }
        if sharpest { return sharpestIndex }
        let sharp = usable.filter { scores[$0].sharpness >= scores[sharpestIndex].sharpness / 2 }
        let average = (0..<32).map { bin in usable.reduce(0.0) { $0 + scores[$1].histogram[bin] } / Double(usable.count) }
        func distance(_ index: Int) -> Double {
            zip(scores[index].histogram, average).reduce(0.0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
        }
        return sharp.min { distance($0) < distance($1) } ?? sharpestIndex
    }
}
