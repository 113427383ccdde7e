import CLibAV
import Foundation

/// A movie opened by libavformat, its streams described (from the header where it says
/// everything, see `LibAV.headerDescribesEveryStream`, unless `fully`: pixel formats and colour
/// ranges are known only from packets); closed in `deinit`.
final class InputFile {
    let av: LibAVDecoding
    private var context: LibAVDecoding.Context?
    let pointer: LibAVDecoding.Context

    init(path: String, fully: Bool = false) throws(LibAVError) {
        av = try LibAVDecoding.shared.get()
        try av.check(av.format.openInput(&context, path, nil, nil), "open")
        guard let context else { throw LibAVError(.failed, operation: "open", message: "out of memory") }
        pointer = context
        // Finding stream info opens decoders of its own (threads and frames each) where the header already says everything.
        if fully || !LibAV.headerDescribesEveryStream(context) { try av.check(av.format.findStreamInfo(context, nil), "find stream info") }
    }

    deinit {
        av.format.closeInput(&context)
    }

    /// The first stream of `type` (a video's: a movie, not a cover picture).
    func firstStream(_ type: AVMediaType) -> (index: Int32, stream: UnsafeMutablePointer<AVStream>)? {
        for index in 0..<Int(pointer.pointee.nb_streams) {
            guard let stream = pointer.pointee.streams[index], stream.pointee.codecpar.pointee.codec_type == type,
                  stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 else { continue }
            return (Int32(index), stream)
        }
        return nil
    }

    /// The container's length in seconds, where it states one.
    var durationSeconds: Double? {
        pointer.pointee.duration > 0 ? Double(pointer.pointee.duration) / Double(AV_TIME_BASE) : nil
    }

    /// The container's tags, as libavformat names them (`creation_time`, `com.apple.quicktime.make`, `location`).
    var tags: [(String, String)] {
        (try? LibAVEncoding.shared.get()).map { $0.entries(of: pointer.pointee.metadata) } ?? []
    }

    /// Reads the next packet of any stream into `packet`; false at the end (or on a read error,
    /// which ends the stream as the ffmpeg CLI ends it).
    func read(into packet: LibAVDecoding.Packet?) -> Bool {
        av.readFrame(pointer, packet) >= 0
    }
}

/// One stream's libavcodec decoder, on the calling thread: libavcodec's own threads stay at one,
/// as libvips' do (items run in parallel, not frames). Freed in `deinit`.
final class StreamDecoder {
    let av: LibAVDecoding
    private(set) var codec: LibAVDecoding.Codec?
    private var decoded: LibAVDecoding.Frame?

    init(_ av: LibAVDecoding, _ stream: UnsafeMutablePointer<AVStream>) throws(LibAVError) {
        self.av = av
        let parameters = stream.pointee.codecpar
        guard let parameters, let decoder = av.findDecoder(parameters.pointee.codec_id) else {
            let name = parameters.flatMap { av.codecName($0.pointee.codec_id) }.map { String(cString: $0) } ?? "unknown"
            throw LibAVError(.noPicture, operation: "find a decoder", message: "this FFmpeg has no decoder for \(name)")
        }
        codec = av.allocContext(decoder)
        decoded = av.frameAlloc()
        guard let codec, decoded != nil else { throw LibAVError(.failed, operation: "allocate a decoder", message: "out of memory") }
        try av.check(av.parametersToContext(codec, parameters), "configure the decoder")
        codec.pointee.thread_count = 1
        codec.pointee.pkt_timebase = stream.pointee.time_base
        try av.check(av.openCodec(codec, decoder, nil), "open the decoder")
    }

    deinit {
        av.frameFree(&decoded)
        av.freeContext(&codec)
    }

    /// Sends a packet (nil: the end, which drains the decoder). A packet the decoder refuses
    /// (damaged) is skipped, as the ffmpeg CLI skips it.
    func send(_ packet: LibAVDecoding.Packet?) {
        _ = av.sendPacket(codec, packet)
    }

    /// The next decoded frame (valid until the next call), or nil when the decoder needs a packet
    /// or is drained; its timestamp is set from libavcodec's best guess.
    func receive() throws(LibAVError) -> LibAVDecoding.Frame? {
        let received = av.receiveFrame(codec, decoded)
        guard received >= 0, let decoded else {
            if received == -EAGAIN || received == LibAV.endOfFile { return nil }
            try av.check(received, "decode")
            return nil
        }
        decoded.pointee.pts = decoded.pointee.best_effort_timestamp
        return decoded
    }

    func flush() {
        av.flushBuffers(codec)
    }
}
