import CLibAV
import Foundation

/// A movie's first video stream, decoded frame by frame on the calling thread: libavcodec's own
/// threads stay at one, as libvips' do (items run in parallel, not frames). Owns its contexts,
/// frame and packet, freed in `deinit`.
final class MovieDecoder {
    let av: LibAVDecoding
    private var context: LibAVDecoding.Context?
    private var codec: LibAVDecoding.Codec?
    private var packet: LibAVDecoding.Packet?
    private var decoded: LibAVDecoding.Frame?
    private let stream: Int32
    let timeBase: AVRational
    /// The stream's first timestamp (0 where it has none).
    private let start: Int64
    let durationSeconds: Double?
    let framesPerSecond: Double?
    /// Degrees a player turns the picture clockwise (0, 90, 180, 270), from the display matrix.
    let rotationClockwise: Int
    /// The clean aperture the container states, where this FFmpeg exports it (see `LibAV.cropping`).
    let cropping: (top: Int, bottom: Int, left: Int, right: Int)?
    private var drained = false

    init(path: String) throws(LibAVError) {
        av = try LibAVDecoding.shared.get()
        try av.check(av.format.openInput(&context, path, nil, nil), "open")
        let context = try Self.unwrap(context, "open")
        // As in `LibAV.probe`: finding stream info opens decoders of its own (threads and frames
        // each) where the header already says everything.
        if !LibAV.headerDescribesEveryStream(context) { try av.check(av.format.findStreamInfo(context, nil), "find stream info") }
        guard let (index, stream) = Self.videoStream(of: context) else {
            throw LibAVError(.noPicture, operation: "find a video stream", message: "the file has none")
        }
        self.stream = index
        timeBase = stream.pointee.time_base
        start = stream.pointee.start_time == Int64.min ? 0 : stream.pointee.start_time
        durationSeconds = context.pointee.duration > 0 ? Double(context.pointee.duration) / Double(AV_TIME_BASE) : nil
        framesPerSecond = LibAV.rate(stream.pointee.avg_frame_rate) ?? LibAV.rate(stream.pointee.r_frame_rate)
        rotationClockwise = LibAV.clockwiseRotation(of: stream, av.format) ?? 0
        cropping = LibAV.cropping(of: stream, av.format)
        try openDecoder(stream.pointee.codecpar)
        packet = av.packetAlloc()
        decoded = av.frameAlloc()
        guard packet != nil, decoded != nil else { throw LibAVError(.failed, operation: "allocate a frame", message: "out of memory") }
    }

    deinit {
        av.frameFree(&decoded)
        av.packetFree(&packet)
        av.freeContext(&codec)
        av.format.closeInput(&context)
    }

    /// The first video stream that is a movie, not a cover picture.
    private static func videoStream(of context: LibAVDecoding.Context) -> (Int32, UnsafeMutablePointer<AVStream>)? {
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index], stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
                  stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 else { continue }
            return (Int32(index), stream)
        }
        return nil
    }

    private func openDecoder(_ parameters: UnsafeMutablePointer<AVCodecParameters>?) throws(LibAVError) {
        guard let parameters, let decoder = av.findDecoder(parameters.pointee.codec_id) else {
            let name = parameters.flatMap { av.format.codecName($0.pointee.codec_id) }.map { String(cString: $0) } ?? "unknown"
            throw LibAVError(.noPicture, operation: "find a decoder", message: "this FFmpeg has no decoder for \(name)")
        }
        codec = av.allocContext(decoder)
        let codec = try Self.unwrap(codec, "allocate a decoder")
        try av.check(av.parametersToContext(codec, parameters), "configure the decoder")
        codec.pointee.thread_count = 1
        try av.check(av.openCodec(codec, decoder, nil), "open the decoder")
    }

    private static func unwrap<T>(_ value: T?, _ operation: String) throws(LibAVError) -> T {
        guard let value else { throw LibAVError(.failed, operation: operation, message: "out of memory") }
        return value
    }

    /// Decodes keyframes only (libavcodec drops the rest before decoding them), or every frame.
    func keyframesOnly(_ only: Bool) {
        codec?.pointee.skip_frame = only ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT
    }

    /// Moves to the keyframe at or before `seconds` (from the stream's start).
    func seek(toSeconds seconds: Double) throws(LibAVError) {
        try av.check(av.seekFrame(context, stream, timestamp(seconds), AVSEEK_FLAG_BACKWARD), "seek")
        av.flushBuffers(codec)
        drained = false
    }

    /// The next decoded frame (valid until the next call), or nil at the end of the stream. A
    /// packet the decoder refuses (damaged) is skipped, as the ffmpeg CLI skips it.
    func nextFrame() throws(LibAVError) -> LibAVDecoding.Frame? {
        while true {
            let received = av.receiveFrame(codec, decoded)
            if received >= 0 { return decoded }
            guard received == -EAGAIN, !drained else {
                if received == Self.endOfFile || received == -EAGAIN { return nil }
                try av.check(received, "decode")
                return nil
            }
            try feed()
        }
    }

    /// Sends the decoder the stream's next packet, or, at the end, the flush that drains it.
    private func feed() throws(LibAVError) {
        while !drained {
            let read = av.readFrame(context, packet)
            guard read >= 0 else {
                drained = true
                try av.check(av.sendPacket(codec, nil), "drain the decoder")
                return
            }
            defer { av.packetUnref(packet) }
            guard packet?.pointee.stream_index == stream else { continue }
            _ = av.sendPacket(codec, packet)
            return
        }
    }

    /// A frame's time in seconds from the stream's start.
    func seconds(of frame: LibAVDecoding.Frame) -> Double {
        Double(frame.pointee.best_effort_timestamp - start) * Double(timeBase.num) / Double(timeBase.den)
    }

    private func timestamp(_ seconds: Double) -> Int64 {
        start + Int64((seconds * Double(timeBase.den) / Double(timeBase.num)).rounded())
    }

    /// FFmpeg's AVERROR_EOF, `FFERRTAG('E', 'O', 'F', ' ')`, a macro Swift does not import.
    static let endOfFile: Int32 = -Int32(bitPattern: UInt32(0x45) | UInt32(0x4F) << 8 | UInt32(0x46) << 16 | UInt32(0x20) << 24)
}
