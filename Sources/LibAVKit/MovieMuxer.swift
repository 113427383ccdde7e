import CLibAV
import Foundation

/// A movie file being written by libavformat: streams added from encoders or copied from a
/// source, the header (with MP4's `moov` moved before `mdat` at the end: `+faststart`), packets
/// interleaved, the trailer. Owns its context and file, freed in `deinit`; a file left unfinished
/// is the caller's temporary to discard.
final class MovieMuxer {
    private let av: LibAVEncoding
    private let context: LibAVEncoding.Context
    private var opened = false
    private var inputTimeBases: [AVRational] = []

    init(_ av: LibAVEncoding, muxer: String, path: String) throws(LibAVError) {
        self.av = av
        var context: LibAVEncoding.Context?
        try av.check(av.allocOutput(&context, nil, muxer, path), "create a \(muxer) file")
        guard let context else { throw LibAVError(.failed, operation: "create a \(muxer) file", message: "out of memory") }
        self.context = context
        try av.check(av.openFile(&context.pointee.pb, path, AVIO_FLAG_WRITE), "open \(path) for writing")
        opened = true
    }

    deinit {
        if opened { _ = av.closeFile(&context.pointee.pb) }
        av.freeOutput(context)
    }

    /// Whether this container holds `codec` (MP4 holds no AMR; WebM only Opus and Vorbis sound).
    func holds(_ codec: AVCodecID) -> Bool {
        av.queryCodec(context.pointee.oformat, codec, FF_COMPLIANCE_NORMAL) == 1
    }

    /// Formats that keep codec headers apart from the packets (MP4's sample descriptions) want
    /// encoders to put them there.
    var wantsGlobalHeader: Bool { Int32(context.pointee.oformat.pointee.flags) & AVFMT_GLOBALHEADER != 0 }

    /// A stream for an opened encoder's packets; its index.
    func addStream(from encoder: LibAVDecoding.Codec, tag: UInt32? = nil) throws(LibAVError) -> Int {
        let stream = try newStream()
        try av.check(av.parametersFromContext(stream.pointee.codecpar, encoder), "describe a stream")
        if let tag { stream.pointee.codecpar.pointee.codec_tag = tag }
        stream.pointee.time_base = encoder.pointee.time_base
        inputTimeBases.append(encoder.pointee.time_base)
        return Int(stream.pointee.index)
    }

    /// A stream that takes `source`'s packets as they are; its index. Its tag is left for the
    /// muxer to choose: a MOV's tag may mean nothing in MP4.
    func addStream(copying source: UnsafeMutablePointer<AVStream>) throws(LibAVError) -> Int {
        let stream = try newStream()
        try av.check(av.copyParameters(stream.pointee.codecpar, source.pointee.codecpar), "copy a stream")
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = source.pointee.time_base
        inputTimeBases.append(source.pointee.time_base)
        return Int(stream.pointee.index)
    }

    private func newStream() throws(LibAVError) -> UnsafeMutablePointer<AVStream> {
        guard let stream = av.newStream(context, nil) else { throw LibAVError(.failed, operation: "add a stream", message: "out of memory") }
        return stream
    }

    /// Writes the header with the container's `tags`; MP4 moves its index to the front when the
    /// trailer is written, and writes Apple's keys (`com.apple.quicktime.*`) as QuickTime `mdta` keys.
    func start(tags: [(String, String)]) throws(LibAVError) {
        for (key, value) in tags { _ = av.dictionarySet(&context.pointee.metadata, key, value, 0) }
        var options: OpaquePointer?
        defer { av.dictionaryFree(&options) }
        if String(cString: context.pointee.oformat.pointee.name) == "mp4" {
            _ = av.dictionarySet(&options, "movflags", "+faststart+use_metadata_tags", 0)
        }
        try av.check(av.writeHeader(context, &options), "write the header")
    }

    /// Writes a packet of stream `index`, its times in the time base it was added with.
    func write(_ packet: LibAVDecoding.Packet, stream index: Int) throws(LibAVError) {
        guard let stream = context.pointee.streams[index] else { return }
        packet.pointee.stream_index = Int32(index)
        packet.pointee.pos = -1
        av.rescalePacket(packet, inputTimeBases[index], stream.pointee.time_base)
        try av.check(av.writePacket(context, packet), "write a packet")
    }

    /// The trailer: for MP4, the index, moved before the media data.
    func finish() throws(LibAVError) {
        try av.check(av.writeTrailer(context), "finish the file")
    }
}
