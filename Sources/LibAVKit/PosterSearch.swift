/// Finds the time of a movie's poster frame (`PosterTime.auto`): scores candidate frames, shrunk
/// to 160 px wide and grey after the same tone mapping as the poster (see `FrameChoice`).
/// Candidates: the keyframes of the first third (at most 8; libavcodec decodes nothing else);
/// where none shows anything, 8 frames spread over it, then 8 keyframes after it; for a movie
/// under 2 s (a Live Photo's), up to 60 frames spread over all of it.
struct PosterSearch {
    let movie: MovieDecoder
    static let keyframes = 8
    static let shortFrames = 60
    static let shortSeconds = 2.0

    init(_ movie: MovieDecoder) {
        self.movie = movie
    }

    func bestSeconds() throws(LibAVError) -> Double {
        let duration = movie.durationSeconds ?? 0
        if duration < Self.shortSeconds {
            let candidates = try sample(until: .infinity, count: Self.shortFrames, keyframesOnly: false)
            return try choose(candidates, sharpest: true)
        }
        var candidates = try sample(until: duration / 3, count: Self.keyframes, keyframesOnly: true)
        // Keyframes that all show nothing (one black keyframe opening a long group of pictures):
        // frames spread over the first third, which costs decoding all of it.
        if !candidates.contains(where: \.score.showsSomething) {
            try movie.seek(toSeconds: 0)
            candidates = try sample(until: duration / 3, count: Self.keyframes, keyframesOnly: false)
        }
        // Still nothing (a slow opening from black or white): the keyframes of the rest.
        if !candidates.contains(where: \.score.showsSomething) {
            try movie.seek(toSeconds: duration / 3)
            candidates += try sample(until: duration, count: Self.keyframes, keyframesOnly: true)
        }
        return try choose(candidates, sharpest: false)
    }

    private func choose(_ candidates: [(seconds: Double, score: FrameChoice.Score)], sharpest: Bool) throws(LibAVError) -> Double {
        guard !candidates.isEmpty else {
            throw LibAVError(.noPicture, operation: "decode a frame", message: "no frame of the video stream decodes")
        }
        return candidates[FrameChoice.choose(candidates.map(\.score), sharpest: sharpest)].seconds
    }

    /// Up to `count` frames from the current position to `until` seconds (the first always),
    /// every frame or one in `stride` so they spread over the span.
    private func sample(until: Double, count: Int, keyframesOnly: Bool) throws(LibAVError) -> [(seconds: Double, score: FrameChoice.Score)] {
        movie.keyframesOnly(keyframesOnly)
        let span = until.isFinite ? until : (movie.durationSeconds ?? Self.shortSeconds)
        let stride = keyframesOnly ? 1 : max(1, Int((span * (movie.framesPerSecond ?? 30) / Double(count)).rounded(.down)))
        var graph: FrameGraph?
        var candidates: [(seconds: Double, score: FrameChoice.Score)] = []
        var index = 0
        while candidates.count < count, let frame = try movie.nextFrame() {
            let seconds = movie.seconds(of: frame)
            guard candidates.isEmpty || seconds <= until else { break }
            defer { index += 1 }
            guard index % stride == 0 else { continue }
            let analysis: FrameGraph
            if let graph { analysis = graph } else {
                let filters = (["scale=160:-2"] + LibAV.toneMapping(frame) + ["format=gray"]).joined(separator: ",")
                analysis = try FrameGraph(movie.av, for: frame, timeBase: movie.timeBase, filters: filters)
                graph = analysis
            }
            let gray = try analysis.picture(of: frame, channels: 1)
            candidates.append((seconds, FrameChoice.score(gray: gray.pixels, width: gray.width, height: gray.height)))
        }
        return candidates
    }
}
