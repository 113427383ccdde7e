import CLibAV
import Foundation

/// What decoding a video's frames takes beyond the container: libavcodec's decoders and
/// libavutil's frames and packets (`LibAVCodec`, whose members it offers as its own), and
/// libavfilter's graphs (rotation, tone mapping, pixel formats: the filters the ffmpeg CLI runs),
/// opened on the first poster.
@dynamicMemberLookup
struct LibAVDecoding: @unchecked Sendable {
    typealias Context = UnsafeMutablePointer<AVFormatContext>
    typealias Codec = LibAVCodec.Codec
    typealias Frame = LibAVCodec.Frame
    typealias Packet = LibAVCodec.Packet
    typealias Graph = UnsafeMutablePointer<AVFilterGraph>
    typealias Filter = UnsafeMutablePointer<AVFilterContext>

    let format: LibAVFormat
    let readFrame: @convention(c) (Context?, Packet?) -> Int32
    let seekFrame: @convention(c) (Context?, Int32, Int64, Int32) -> Int32
    let graphAlloc: @convention(c) () -> Graph?
    let graphParse: @convention(c) (Graph?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?,
                                    UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?, UnsafeMutableRawPointer?) -> Int32
    let graphConfig: @convention(c) (Graph?, UnsafeMutableRawPointer?) -> Int32
    let graphFilter: @convention(c) (Graph?, UnsafePointer<CChar>?) -> Filter?
    let graphFree: @convention(c) (UnsafeMutablePointer<Graph?>?) -> Void
    let addFrame: @convention(c) (Filter?, Frame?, Int32) -> Int32
    let closeSource: @convention(c) (Filter?, Int64, UInt32) -> Int32
    let getFrame: @convention(c) (Filter?, Frame?) -> Int32

    static let shared: Result<LibAVDecoding, LibAVError> = {
        do throws(LibAVError) { return .success(try LibAVDecoding()) } catch { return .failure(error) }
    }()

    private init() throws(LibAVError) {
        format = try LibAVFormat.shared.get()
        let av = format.library
        readFrame = try av.function("av_read_frame")
        seekFrame = try av.function("av_seek_frame")
        // The same major version as the headers, as for libavformat.
        let filter = try SharedLibrary("libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)")
        graphAlloc = try filter.function("avfilter_graph_alloc")
        graphParse = try filter.function("avfilter_graph_parse_ptr")
        graphConfig = try filter.function("avfilter_graph_config")
        graphFilter = try filter.function("avfilter_graph_get_filter")
        graphFree = try filter.function("avfilter_graph_free")
        addFrame = try filter.function("av_buffersrc_add_frame_flags")
        closeSource = try filter.function("av_buffersrc_close")
        getFrame = try filter.function("av_buffersink_get_frame")
    }

    subscript<Member>(dynamicMember member: KeyPath<LibAVCodec, Member>) -> Member {
        format.codec[keyPath: member]
    }

    func check(_ returnCode: Int32, _ operation: String) throws(LibAVError) {
        try format.codec.check(returnCode, operation)
    }
}
