import CLibAV
import Foundation

/// What decoding a video's frames takes beyond the container: libavcodec's decoders and
/// libavutil's frames and packets (looked up through libavformat's handle, which loads them), and
/// libavfilter's graphs (rotation, tone mapping, pixel formats: the filters the ffmpeg CLI runs),
/// opened on the first poster.
struct LibAVDecoding: @unchecked Sendable {
    typealias Context = UnsafeMutablePointer<AVFormatContext>
    typealias Codec = UnsafeMutablePointer<AVCodecContext>
    typealias Frame = UnsafeMutablePointer<AVFrame>
    typealias Packet = UnsafeMutablePointer<AVPacket>
    typealias Graph = UnsafeMutablePointer<AVFilterGraph>
    typealias Filter = UnsafeMutablePointer<AVFilterContext>

    let format: LibAVFormat
    let readFrame: @convention(c) (Context?, Packet?) -> Int32
    let seekFrame: @convention(c) (Context?, Int32, Int64, Int32) -> Int32
    let findDecoder: @convention(c) (AVCodecID) -> UnsafePointer<AVCodec>?
    let allocContext: @convention(c) (UnsafePointer<AVCodec>?) -> Codec?
    let parametersToContext: @convention(c) (Codec?, UnsafePointer<AVCodecParameters>?) -> Int32
    let openCodec: @convention(c) (Codec?, UnsafePointer<AVCodec>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    let sendPacket: @convention(c) (Codec?, UnsafePointer<AVPacket>?) -> Int32
    let receiveFrame: @convention(c) (Codec?, Frame?) -> Int32
    let flushBuffers: @convention(c) (Codec?) -> Void
    let freeContext: @convention(c) (UnsafeMutablePointer<Codec?>?) -> Void
    let frameAlloc: @convention(c) () -> Frame?
    let frameFree: @convention(c) (UnsafeMutablePointer<Frame?>?) -> Void
    let frameUnref: @convention(c) (Frame?) -> Void
    let frameClone: @convention(c) (UnsafePointer<AVFrame>?) -> Frame?
    let packetAlloc: @convention(c) () -> Packet?
    let packetFree: @convention(c) (UnsafeMutablePointer<Packet?>?) -> Void
    let packetUnref: @convention(c) (Packet?) -> Void
    let newPacket: @convention(c) (Packet?, Int32) -> Int32
    let mallocZeroed: @convention(c) (Int) -> UnsafeMutableRawPointer?
    let graphAlloc: @convention(c) () -> Graph?
    let graphParse: @convention(c) (Graph?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?,
                                    UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?, UnsafeMutableRawPointer?) -> Int32
    let graphConfig: @convention(c) (Graph?, UnsafeMutableRawPointer?) -> Int32
    let graphFilter: @convention(c) (Graph?, UnsafePointer<CChar>?) -> Filter?
    let graphFree: @convention(c) (UnsafeMutablePointer<Graph?>?) -> Void
    let addFrame: @convention(c) (Filter?, Frame?, Int32) -> Int32
    let getFrame: @convention(c) (Filter?, Frame?) -> Int32

    static let shared: Result<LibAVDecoding, LibAVError> = {
        do throws(LibAVError) { return .success(try LibAVDecoding()) } catch { return .failure(error) }
    }()

    private init() throws(LibAVError) {
        format = try LibAVFormat.shared.get()
        let av = format.library
        readFrame = try av.function("av_read_frame")
        seekFrame = try av.function("av_seek_frame")
        findDecoder = try av.function("avcodec_find_decoder")
        allocContext = try av.function("avcodec_alloc_context3")
        parametersToContext = try av.function("avcodec_parameters_to_context")
        openCodec = try av.function("avcodec_open2")
        sendPacket = try av.function("avcodec_send_packet")
        receiveFrame = try av.function("avcodec_receive_frame")
        flushBuffers = try av.function("avcodec_flush_buffers")
        freeContext = try av.function("avcodec_free_context")
        frameAlloc = try av.function("av_frame_alloc")
        frameFree = try av.function("av_frame_free")
        frameUnref = try av.function("av_frame_unref")
        frameClone = try av.function("av_frame_clone")
        packetAlloc = try av.function("av_packet_alloc")
        packetFree = try av.function("av_packet_free")
        packetUnref = try av.function("av_packet_unref")
        newPacket = try av.function("av_new_packet")
        mallocZeroed = try av.function("av_mallocz")
        // The same major version as the headers, as for libavformat.
        let filter = try SharedLibrary("libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)")
        graphAlloc = try filter.function("avfilter_graph_alloc")
        graphParse = try filter.function("avfilter_graph_parse_ptr")
        graphConfig = try filter.function("avfilter_graph_config")
        graphFilter = try filter.function("avfilter_graph_get_filter")
        graphFree = try filter.function("avfilter_graph_free")
        addFrame = try filter.function("av_buffersrc_add_frame_flags")
        getFrame = try filter.function("av_buffersink_get_frame")
    }

    /// The one choke point for these libraries' return codes (see `check` for libavformat's).
    func check(_ returnCode: Int32, _ operation: String) throws(LibAVError) {
        try LibAVKit.check(returnCode, operation, format)
    }
}
