import CLibAV
import Foundation

/// One stream's libavcodec encoder, on the calling thread with one thread (items run in
/// parallel, not frames), its packets handed to a muxer. Freed in `deinit`.
final class StreamEncoder {
    let av: LibAVEncoding
    private(set) var codec: LibAVDecoding.Codec?
    private var packet: LibAVDecoding.Packet?
    /// Frames sent so far.
    private(set) var frames = 0

    /// `configure` sets the context's size, format, rate and time base before it is opened.
    init(_ av: LibAVEncoding, name: String, options: [(String, String)], globalHeader: Bool,
         configure: (LibAVDecoding.Codec) -> Void) throws(LibAVError) {
        self.av = av
        guard let encoder = av.findEncoder(name) else {
            throw LibAVError(.encodeFailed, operation: "find the encoder \(name)", message: "this FFmpeg was built without it")
        }
        codec = av.decoding.allocContext(encoder)
        packet = av.decoding.packetAlloc()
        guard let codec, packet != nil else { throw LibAVError(.failed, operation: "allocate an encoder", message: "out of memory") }
        codec.pointee.thread_count = 1
        configure(codec)
        if globalHeader { codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        for (option, value) in options {
            try av.check(av.setOption(UnsafeMutableRawPointer(codec), option, value, AV_OPT_SEARCH_CHILDREN), "set \(name)'s \(option) to \(value)")
        }
        try av.check(av.decoding.openCodec(codec, encoder, nil), "open the encoder \(name)")
    }

    deinit {
        av.decoding.packetFree(&packet)
        av.decoding.freeContext(&codec)
    }

    /// How many samples each audio frame must hold (0: any).
    var frameSize: Int {
        guard let codec, let encoder = codec.pointee.codec, Int32(encoder.pointee.capabilities) & AV_CODEC_CAP_VARIABLE_FRAME_SIZE == 0 else { return 0 }
        return Int(codec.pointee.frame_size)
    }

    /// Encodes `frame` (nil: the end, which drains the encoder), handing each packet made to `write`.
    func encode(_ frame: LibAVDecoding.Frame?, _ write: (LibAVDecoding.Packet) throws(LibAVError) -> Void) throws(LibAVError) {
        if let frame { frame.pointee.pict_type = AV_PICTURE_TYPE_NONE }
        try av.check(av.sendFrame(codec, frame), "encode a frame")
        if frame != nil { frames += 1 }
        while true {
            let received = av.receivePacket(codec, packet)
            if received == -EAGAIN || received == LibAV.endOfFile { return }
            try av.check(received, "encode a frame")
            guard let packet else { return }
            try write(packet)
            av.decoding.packetUnref(packet)
        }
    }
}
