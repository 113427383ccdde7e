import CLibAV
import Foundation

/// What becomes of a movie's video stream in a rendition: its size and rate, and whether its
/// packets already fit (Immich's "required" policy: the codec asked for, 8-bit 4:2:0 limited range
/// — or 10-bit HDR kept —, no larger, no faster, upright, square pixels, nothing to crop).
struct VideoPlan {
    let settings: RenditionSettings
    /// As written, upright.
    let size: (width: Int, height: Int)
    let framesPerSecond: Double
    /// The rate frames are retimed to, as the ffmpeg CLI does for MP4 (`fps`, duplicating and
    /// dropping): `maxFps` where the movie is faster, the average rate where its timestamps run on
    /// a clock of their own (a FLIR's 600 Hz: no two frames the same distance apart, which players
    /// and FFmpeg's own rate guess would round onto one instant); nil keeps the source's times.
    private let constantRate: AVRational?
    let fits: Bool
    /// PQ or HLG.
    let isHDR: Bool
    private let parameters: AVCodecParameters
    private let rotation: Int
    private let cropping: (top: Int, bottom: Int, left: Int, right: Int)?
    private let timeBase: AVRational
    private let sourceRate: AVRational
    /// A frame's average length: the stream's length over its frames where the header states both
    /// (a phone's variable rate), else one frame at the rate written.
    private let averageFrame: (ticks: Int64, timeBase: AVRational)
    /// Where the stream ends (its time base), when its header says.
    private let end: Int64?

    init(_ stream: UnsafeMutablePointer<AVStream>, _ settings: RenditionSettings, _ library: LibAVFormat) {
        self.settings = settings
        parameters = stream.pointee.codecpar.pointee
        rotation = LibAV.clockwiseRotation(of: stream, library) ?? 0
        cropping = LibAV.cropping(of: stream, library)
        timeBase = stream.pointee.time_base
        sourceRate = LibAV.rate(stream.pointee.avg_frame_rate) != nil ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
        let rate = LibAV.rate(sourceRate) ?? 30
        let capsRate = rate > Double(settings.maxFps) + 0.01
        framesPerSecond = min(rate, Double(settings.maxFps))
        constantRate = capsRate ? AVRational(num: Int32(settings.maxFps), den: 1)
            : Self.hasOwnClock(stream.pointee) ? stream.pointee.avg_frame_rate : nil
        isHDR = LibAV.isHDR(parameters.color_trc)
        let start = stream.pointee.start_time == Int64.min ? 0 : stream.pointee.start_time
        end = stream.pointee.duration > 0 ? start + stream.pointee.duration : nil
        let frames = stream.pointee.nb_frames, length = stream.pointee.duration
        averageFrame = if let constantRate { (1, AVRational(num: constantRate.den, den: constantRate.num)) }
            else if frames > 0 && length > 0 { (length / frames, timeBase) }
            else { (1, AVRational(num: 1000, den: Int32((framesPerSecond * 1000).rounded()))) }
        let stored = (width: Int(parameters.width) - (cropping.map { $0.left + $0.right } ?? 0),
                      height: Int(parameters.height) - (cropping.map { $0.top + $0.bottom } ?? 0))
        let aspect = parameters.sample_aspect_ratio
        let square = aspect.num <= 0 || aspect.den <= 0 || aspect.num == aspect.den
        let shown = square ? stored.width : Int((Double(stored.width) * Double(aspect.num) / Double(aspect.den)).rounded())
        let upright = rotation % 180 == 90 ? (width: stored.height, height: shown) : (width: shown, height: stored.height)
        let size = LibAV.renditionSize(upright, maxPixelSize: settings.maxPixelSize), source = stream.pointee.codecpar.pointee
        self.size = size
        let tagFits = settings.codec.codecTag.map { $0 == source.codec_tag } ?? true
        fits = settings.copyWhereFits && source.codec_id == settings.codec.codecID && rotation == 0 && cropping == nil && square
            && constantRate == nil && size == stored && tagFits && Self.pixelsFit(source, settings)
    }


    /// 8-bit 4:2:0 in limited range (not `yuvj420p`), SDR — or 10-bit HDR where it is kept.
    private static func pixelsFit(_ parameters: AVCodecParameters, _ settings: RenditionSettings) -> Bool {
        guard parameters.color_range != AVCOL_RANGE_JPEG else { return false }
        if LibAV.isHDR(parameters.color_trc) {
            return settings.keepHDR && parameters.format == AV_PIX_FMT_YUV420P10LE.rawValue
        }
        return parameters.format == AV_PIX_FMT_YUV420P.rawValue
    }

    /// Timestamps on a clock finer than any frame rate with an average rate a player could keep
    /// (`av_guess_frame_rate`'s rule: a "real" rate over 210 fps, an average under 70).
    private static func hasOwnClock(_ stream: AVStream) -> Bool {
        guard let real = LibAV.rate(stream.r_frame_rate), let average = LibAV.rate(stream.avg_frame_rate) else { return false }
        return real > 210 && average < 70
    }

    /// HDR kept: 10-bit, the source's colour signalled.
    private var keepsHDR: Bool { isHDR && settings.keepHDR }

    func transcoder(_ source: (index: Int32, stream: UnsafeMutablePointer<AVStream>), _ av: LibAVEncoding,
                    _ muxer: MovieMuxer) throws(LibAVError) -> TranscodedStream {
        let encoder = try StreamEncoder(av, name: settings.codec.encoderName, options: settings.codec.options(crf: settings.crf),
                                        globalHeader: muxer.wantsGlobalHeader, configure: configure)
        let timeBase = self.timeBase
        let frameDuration = av.rescale(averageFrame.ticks, averageFrame.timeBase, encoder.codec!.pointee.time_base)
        return try TranscodedStream(source, encoder: encoder, tag: settings.codec.codecTag, frameDuration: frameDuration,
                                    end: constantRate == nil ? nil : end, into: muxer) { frame throws(LibAVError) in
            try FrameGraph(av.decoding, for: frame, timeBase: timeBase, filters: filters(for: frame))
        }
    }

    private func configure(_ codec: LibAVDecoding.Codec) {
        codec.pointee.width = Int32(size.width)
        codec.pointee.height = Int32(size.height)
        codec.pointee.pix_fmt = keepsHDR ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P
        codec.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        codec.pointee.time_base = constantRate.map { AVRational(num: $0.den, den: $0.num) } ?? timeBase
        codec.pointee.framerate = constantRate ?? sourceRate
        codec.pointee.color_range = AVCOL_RANGE_MPEG
        if isHDR, !keepsHDR {
            codec.pointee.color_primaries = AVCOL_PRI_BT709
            codec.pointee.color_trc = AVCOL_TRC_BT709
            codec.pointee.colorspace = AVCOL_SPC_BT709
        } else {
            codec.pointee.color_primaries = parameters.color_primaries
            codec.pointee.color_trc = parameters.color_trc
            codec.pointee.colorspace = parameters.color_space
        }
    }

    /// Cropped, upright, sized (limited range), rate-capped, then tone-mapped (HDR to SDR) and in
    /// the encoder's pixel format: the ffmpeg CLI's filters by name.
    private func filters(for frame: LibAVDecoding.Frame) -> String {
        let upright = LibAV.uprightFilters(frame, cropping: cropping, rotation: rotation)
        let toneMap = isHDR && !keepsHDR ? LibAV.toneMapping(frame, output: "t=bt709:m=bt709:r=tv") : []
        // Tone mapping is told the frame's own range: only SDR is moved to limited range here.
        let scale = ["scale=\(size.width):\(size.height)" + (toneMap.isEmpty ? ":out_range=tv" : "") + ",setsar=1"]
        let rate = constantRate.map { ["fps=\($0.num)/\($0.den)"] } ?? []
        return (upright + scale + rate + toneMap + ["format=\(keepsHDR ? "yuv420p10le" : "yuv420p")"]).joined(separator: ",")
    }
}

/// What becomes of a movie's first audio stream: copied where it fits (the codec asked for, or
/// `copy` where the container holds it), re-encoded otherwise (`copy` into a container that
/// cannot hold it: the container's own codec, AAC in MP4, Opus in WebM), or left out.
struct AudioPlan {
    let encoding: RenditionSettings.Audio?
    let copies: Bool

    init(_ stream: UnsafeMutablePointer<AVStream>, _ settings: RenditionSettings, _ muxer: MovieMuxer) {
        let codec = stream.pointee.codecpar.pointee.codec_id
        let containerOwn: RenditionSettings.Audio = settings.codec.muxer == "webm" ? .opus : .aac
        switch settings.audio {
        case .none: (encoding, copies) = (nil, false)
        case .copy: (encoding, copies) = muxer.holds(codec) ? (nil, true) : (containerOwn, false)
        case .aac, .opus:
            let same = settings.audio.codecID == codec && settings.copyWhereFits
            (encoding, copies) = same ? (nil, true) : (settings.audio, false)
        }
    }

    func stream(_ source: (index: Int32, stream: UnsafeMutablePointer<AVStream>), _ av: LibAVEncoding,
                _ muxer: MovieMuxer) throws(LibAVError) -> (stream: RenditionStream, codec: String, copied: Bool)? {
        if copies {
            let name = av.decoding.codecName(source.stream.pointee.codecpar.pointee.codec_id).map { String(cString: $0) } ?? "unknown"
            return (try CopiedStream(source, into: muxer), name, true)
        }
        guard let encoding, let name = encoding.encoderName else { return nil }
        let parameters = source.stream.pointee.codecpar.pointee
        let rate = encoding == .opus || !Self.aacRates.contains(parameters.sample_rate) ? 48000 : parameters.sample_rate
        let channels = min(max(parameters.ch_layout.nb_channels, 1), 2)
        let format = encoding == .opus ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_FLTP
        let encoder = try StreamEncoder(av, name: name, options: [], globalHeader: muxer.wantsGlobalHeader) { codec in
            codec.pointee.sample_fmt = format
            codec.pointee.sample_rate = rate
            av.defaultLayout(&codec.pointee.ch_layout, channels)
            codec.pointee.bit_rate = encoding == .opus ? 96000 : 128000
            codec.pointee.time_base = AVRational(num: 1, den: rate)
        }
        let timeBase = source.stream.pointee.time_base
        let stream = try TranscodedStream(source, encoder: encoder, into: muxer) { frame throws(LibAVError) in
            let formatName = av.sampleFormatName(format).map { String(cString: $0) } ?? "fltp"
            let graph = try FrameGraph(av.decoding, source: "abuffer@in=" + Self.source(frame, timeBase, av),
                                       filters: "aresample=\(rate),aformat=sample_fmts=\(formatName):channel_layouts=\(channels == 1 ? "mono" : "stereo")",
                                       sink: "abuffersink@out")
            if encoder.frameSize > 0 { av.setFrameSize(graph.sinkFilter, UInt32(encoder.frameSize)) }
            return graph
        }
        return (stream, encoding.rawValue, false)
    }

    /// The rates FFmpeg's AAC encoder takes that a movie's sound is likely to have.
    private static let aacRates: Set<Int32> = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]

    /// An `abuffer` source's options for frames like `frame` (a layout of unknown order by its channel count).
    private static func source(_ frame: LibAVDecoding.Frame, _ timeBase: AVRational, _ av: LibAVEncoding) -> String {
        var layout = AVChannelLayout()
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || frame.pointee.ch_layout.nb_channels == 0 {
            av.defaultLayout(&layout, max(frame.pointee.ch_layout.nb_channels, 1))
        } else {
            _ = av.copyLayout(&layout, &frame.pointee.ch_layout)
        }
        var description = [CChar](repeating: 0, count: 128)
        _ = av.describeLayout(&layout, &description, description.count)
        let format = av.sampleFormatName(AVSampleFormat(frame.pointee.format)).map { String(cString: $0) } ?? "fltp"
        return "time_base=\(timeBase.num)/\(timeBase.den):sample_rate=\(frame.pointee.sample_rate):sample_fmt=\(format)"
            + ":channel_layout=\(String(cString: description))"
    }
}
