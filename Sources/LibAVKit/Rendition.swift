import CLibAV
import Foundation

extension LibAV {
    /// A movie's container tags, as libavformat names them.
    public static func tags(of path: String) throws(LibAVError) -> [(String, String)] {
        try InputFile(path: path).tags
    }

    /// The RFC 6381 `codecs` parameter of the movie's first video stream (`avc1.64001F`), from
    /// its sample description; nil for a codec without one here.
    public static func codecsParameter(of path: String) -> String? {
        guard let file = try? InputFile(path: path), let video = file.firstStream(AVMEDIA_TYPE_VIDEO),
              let parameters = video.stream.pointee.codecpar?.pointee else { return nil }
        return CodecsParameter.of(parameters)
    }

    /// A rendition's size for a movie shown at `size`: within `maxPixelSize` on the longest side,
    /// never larger, even sides (4:2:0). The plan's and the encoder's alike.
    public static func renditionSize(_ size: (width: Int, height: Int), maxPixelSize: Int?) -> (width: Int, height: Int) {
        let longest = max(size.width, size.height)
        let scale = maxPixelSize.map { min(1, Double($0) / Double(longest)) } ?? 1
        func even(_ side: Int) -> Int { max(2, Int((Double(side) * scale / 2).rounded()) * 2) }
        return (even(size.width), even(size.height))
    }

    /// Writes a web rendition of the movie at `path` to `output`: its first video stream upright
    /// (display matrix applied, none left), cropped to its clean aperture where this FFmpeg
    /// exports one, fitted to `maxPixelSize`, at most `maxFps`, HDR kept or tone-mapped, encoded
    /// by the codec's encoder — or its packets copied where it already fits —; its first audio
    /// stream as `audio` says; the container's tags that `keepTag` keeps. Fails with `.noPicture`
    /// for a file without a video stream or a frame that decodes, `.failed` for a movie that ends
    /// well before the length its header states (cut off), `.encodeFailed` where an encoder or the
    /// muxer does. `progress` is told frames done and the total expected, every 30 frames.
    public static func rendition(of path: String, to output: String, _ settings: RenditionSettings, keepTag: (String) -> Bool,
                                 progress: ((Int, Int?) -> Void)? = nil) throws(LibAVError) -> RenditionFacts {
        let av = try LibAVEncoding.shared.get()
        let file = try InputFile(path: path, fully: true)
        guard let video = file.firstStream(AVMEDIA_TYPE_VIDEO) else {
            throw LibAVError(.noPicture, operation: "find a video stream", message: "the file has none")
        }
        let muxer = try MovieMuxer(av, muxer: settings.codec.muxer, path: output)
        let plan = VideoPlan(video.stream, settings, av.decoding.format)
        let videoStream: RenditionStream = try plan.fits ? CopiedStream(video, into: muxer) : plan.transcoder(video, av, muxer)
        let audio = try file.firstStream(AVMEDIA_TYPE_AUDIO).flatMap { stream throws(LibAVError) in
            try AudioPlan(stream.stream, settings, muxer).stream(stream, av, muxer)
        }
        try muxer.start(tags: file.tags.filter { keepTag($0.0) })
        let total = file.durationSeconds.map { Int(($0 * plan.framesPerSecond).rounded()) }
        try copyPackets(file, to: [videoStream] + (audio.map { [$0.stream] } ?? []), av) { (done: Int) in progress?(done, total) }
        try muxer.finish()
        let frames = videoStream.frames
        try refuseTruncated(frames: frames, plan, file)
        return RenditionFacts(width: plan.size.width, height: plan.size.height, seconds: file.durationSeconds, videoCopied: plan.fits,
                              audioCodec: audio?.codec, audioCopied: audio?.copied ?? false, frames: frames)
    }

    /// Every packet of the file to the stream that takes it, then the end to each.
    private static func copyPackets(_ file: InputFile, to streams: [RenditionStream], _ av: LibAVEncoding,
                                    progress: (Int) -> Void) throws(LibAVError) {
        var packet = av.decoding.packetAlloc()
        defer { av.decoding.packetFree(&packet) }
        guard let packet else { throw LibAVError(.failed, operation: "allocate a packet", message: "out of memory") }
        var videoPackets = 0
        while file.read(into: packet) {
            defer { av.decoding.packetUnref(packet) }
            guard let stream = streams.first(where: { $0.source == packet.pointee.stream_index }) else { continue }
            try stream.take(packet)
            if stream === streams[0] {
                videoPackets += 1
                if videoPackets % 30 == 0 { progress(videoPackets) }
            }
        }
        for stream in streams { try stream.finish() }
    }

    /// A movie whose frames stop well short of its stated length (a third of it and over a
    /// second missing) is cut off: its rendition would pretend to be the whole movie.
    private static func refuseTruncated(frames: Int, _ plan: VideoPlan, _ file: InputFile) throws(LibAVError) {
        guard frames > 0 else { throw LibAVError(.noPicture, operation: "decode a frame", message: "no frame of the video stream decodes") }
        guard let stated = file.durationSeconds else { return }
        let shown = Double(frames) / plan.framesPerSecond
        guard shown < stated * 2 / 3, stated - shown > 1 else { return }
        throw LibAVError(.failed, operation: "read the movie",
                         message: String(format: "its frames end after %.1f s of the %.1f s its header states: the file is cut off", shown, stated))
    }
}
