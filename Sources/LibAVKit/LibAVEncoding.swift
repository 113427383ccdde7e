import CLibAV
import Foundation

/// What writing a movie takes beyond decoding it: libavcodec's encoders, libavformat's muxers and
/// libavutil's options and dictionaries (through libavformat's handle, as for decoding), and the
/// buffer sinks' settings; opened on the first rendition.
struct LibAVEncoding: @unchecked Sendable {
    typealias Context = UnsafeMutablePointer<AVFormatContext>
    typealias Dictionary = UnsafeMutablePointer<OpaquePointer?>

    let decoding: LibAVDecoding
    let allocOutput: @convention(c) (UnsafeMutablePointer<Context?>?, UnsafePointer<AVOutputFormat>?, UnsafePointer<CChar>?,
                                     UnsafePointer<CChar>?) -> Int32
    let newStream: @convention(c) (Context?, UnsafePointer<AVCodec>?) -> UnsafeMutablePointer<AVStream>?
    let openFile: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?, UnsafePointer<CChar>?, Int32) -> Int32
    let closeFile: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?) -> Int32
    let writeHeader: @convention(c) (Context?, Dictionary?) -> Int32
    let writePacket: @convention(c) (Context?, LibAVDecoding.Packet?) -> Int32
    let writeTrailer: @convention(c) (Context?) -> Int32
    let freeOutput: @convention(c) (Context?) -> Void
    let queryCodec: @convention(c) (UnsafePointer<AVOutputFormat>?, AVCodecID, Int32) -> Int32
    let findEncoder: @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVCodec>?
    let sendFrame: @convention(c) (LibAVDecoding.Codec?, UnsafePointer<AVFrame>?) -> Int32
    let receivePacket: @convention(c) (LibAVDecoding.Codec?, LibAVDecoding.Packet?) -> Int32
    let parametersFromContext: @convention(c) (UnsafeMutablePointer<AVCodecParameters>?, UnsafePointer<AVCodecContext>?) -> Int32
    let copyParameters: @convention(c) (UnsafeMutablePointer<AVCodecParameters>?, UnsafePointer<AVCodecParameters>?) -> Int32
    let rescalePacket: @convention(c) (LibAVDecoding.Packet?, AVRational, AVRational) -> Void
    let dictionarySet: @convention(c) (Dictionary?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32) -> Int32
    let dictionaryGet: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<AVDictionaryEntry>?, Int32)
        -> UnsafeMutablePointer<AVDictionaryEntry>?
    let dictionaryFree: @convention(c) (Dictionary?) -> Void
    let setOption: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32) -> Int32
    let describeLayout: @convention(c) (UnsafePointer<AVChannelLayout>?, UnsafeMutablePointer<CChar>?, Int) -> Int32
    let copyLayout: @convention(c) (UnsafeMutablePointer<AVChannelLayout>?, UnsafePointer<AVChannelLayout>?) -> Int32
    let defaultLayout: @convention(c) (UnsafeMutablePointer<AVChannelLayout>?, Int32) -> Void
    let sampleFormatName: @convention(c) (AVSampleFormat) -> UnsafePointer<CChar>?
    let setFrameSize: @convention(c) (LibAVDecoding.Filter?, UInt32) -> Void
    let sinkTimeBase: @convention(c) (UnsafePointer<AVFilterContext>?) -> AVRational
    let rescale: @convention(c) (Int64, AVRational, AVRational) -> Int64

    static let shared: Result<LibAVEncoding, LibAVError> = {
        do throws(LibAVError) { return .success(try LibAVEncoding()) } catch { return .failure(error) }
    }()

    private init() throws(LibAVError) {
        decoding = try LibAVDecoding.shared.get()
        let av = decoding.format.library
        allocOutput = try av.function("avformat_alloc_output_context2")
        newStream = try av.function("avformat_new_stream")
        openFile = try av.function("avio_open")
        closeFile = try av.function("avio_closep")
        writeHeader = try av.function("avformat_write_header")
        writePacket = try av.function("av_interleaved_write_frame")
        writeTrailer = try av.function("av_write_trailer")
        freeOutput = try av.function("avformat_free_context")
        queryCodec = try av.function("avformat_query_codec")
        findEncoder = try av.function("avcodec_find_encoder_by_name")
        sendFrame = try av.function("avcodec_send_frame")
        receivePacket = try av.function("avcodec_receive_packet")
        parametersFromContext = try av.function("avcodec_parameters_from_context")
        copyParameters = try av.function("avcodec_parameters_copy")
        rescalePacket = try av.function("av_packet_rescale_ts")
        dictionarySet = try av.function("av_dict_set")
        dictionaryGet = try av.function("av_dict_get")
        dictionaryFree = try av.function("av_dict_free")
        setOption = try av.function("av_opt_set")
        describeLayout = try av.function("av_channel_layout_describe")
        copyLayout = try av.function("av_channel_layout_copy")
        defaultLayout = try av.function("av_channel_layout_default")
        sampleFormatName = try av.function("av_get_sample_fmt_name")
        rescale = try av.function("av_rescale_q")
        let filter = try SharedLibrary("libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)")
        setFrameSize = try filter.function("av_buffersink_set_frame_size")
        sinkTimeBase = try filter.function("av_buffersink_get_time_base")
        // SVT-AV1 prints its configuration to stderr at level info unless told otherwise: errors only.
        setenv("SVT_LOG", "1", 0)
    }

    /// The choke point for encoders' and muxers' return codes: `encodeFailed`.
    func check(_ returnCode: Int32, _ operation: String) throws(LibAVError) {
        try decoding.format.codec.check(returnCode, operation, code: .encodeFailed)
    }

    /// Every entry of a libavformat dictionary, in its order.
    func entries(of dictionary: OpaquePointer?) -> [(String, String)] {
        var entries: [(String, String)] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = dictionaryGet(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            entries.append((String(cString: next.pointee.key), String(cString: next.pointee.value)))
            entry = next
        }
        return entries
    }
}
