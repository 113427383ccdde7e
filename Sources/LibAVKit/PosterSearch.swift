/// Finds a movie's poster frame (`PosterTime.auto`): scores candidate frames, shrunk to 160 px
/// wide and grey after the same tone mapping as the poster (see `FrameChoice`), and keeps those
/// that may win (a reference each, the decoder's buffer: at most 8 frames) so that the winner is
/// not decoded again.
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

    typealias Candidate = (seconds: Double, score: FrameChoice.Score, frame: HeldFrame?)

    func best() throws(LibAVError) -> Candidate {
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

    private func choose(_ candidates: [Candidate], sharpest: Bool) throws(LibAVError) -> Candidate {
        guard !candidates.isEmpty else {
            throw LibAVError(.noPicture, operation: "decode a frame", message: "no frame of the video stream decodes")
        }
        return candidates[FrameChoice.choose(candidates.map(\.score), sharpest: sharpest)]
    }

    /// Up to `count` frames from the current position to `until` seconds (the first always),
    /// every frame or one in `stride` so they spread over the span.
    /// Of many candidates (a short movie's, where the sharpest wins), only the two that may win
    /// keep their frames: the sharpest that shows something, and the one with the most contrast.
    private static func release(_ candidates: inout [Candidate]) {
        let scores = candidates.map(\.score)
        let sharpest = scores.indices.filter { scores[$0].showsSomething }.max { scores[$0].sharpness < scores[$1].sharpness }
        let contrast = scores.indices.max { scores[$0].spread < scores[$1].spread }
        for index in candidates.indices where index != sharpest && index != contrast { candidates[index].frame = nil }
    }

    private func sample(until: Double, count: Int, keyframesOnly: Bool) throws(LibAVError) -> [Candidate] {
        movie.keyframesOnly(keyframesOnly)
        let span = until.isFinite ? until : (movie.durationSeconds ?? Self.shortSeconds)
        let stride = keyframesOnly ? 1 : max(1, Int((span * (movie.framesPerSecond ?? 30) / Double(count)).rounded(.down)))
        var graph: FrameGraph?
        var candidates: [Candidate] = []
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
            candidates.append((seconds, FrameChoice.score(gray: gray.pixels, width: gray.width, height: gray.height), HeldFrame(movie.av, frame)))
            if count > Self.keyframes { Self.release(&candidates) }
        }
        return candidates
    }
}

/// A decoded frame kept past the decoder's next one (a new reference to its buffers), freed with it.
final class HeldFrame {
    private let av: LibAVDecoding
    private var held: LibAVDecoding.Frame?

    init?(_ av: LibAVDecoding, _ frame: LibAVDecoding.Frame) {
        self.av = av
        held = av.frameClone(frame)
        if held == nil { return nil }
    }

    var frame: LibAVDecoding.Frame { held! }

    deinit {
        av.frameFree(&held)
    }
}
