import CLibAV
import Foundation

/// libavcodec's decoding calls and the libavutil ones they take (frames, packets, errors),
/// opened with dlopen on the first HEIC or video. A HEIC's tiles need nothing else: libavformat
/// and libavfilter, whose many dependencies cost every process that loads them its dynamic
/// linking, load only with the first video (`LibAVFormat`, `LibAVDecoding`).
struct LibAVCodec: @unchecked Sendable {
    typealias Codec = UnsafeMutablePointer<AVCodecContext>
    typealias Frame = UnsafeMutablePointer<AVFrame>
    typealias Packet = UnsafeMutablePointer<AVPacket>

    let strerror: @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32
    let codecName: @convention(c) (AVCodecID) -> UnsafePointer<CChar>?
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

    static let shared: Result<LibAVCodec, LibAVError> = {
        do throws(LibAVError) { return .success(try LibAVCodec()) } catch { return .failure(error) }
    }()

    private init() throws(LibAVError) {
        // The major version of the headers compiled against: a different ABI is not loaded.
        // libavutil comes with it, and dlsym on its handle searches it too.
        let av = try SharedLibrary("libavcodec.so.\(LIBAVCODEC_VERSION_MAJOR)")
        strerror = try av.function("av_strerror")
        codecName = try av.function("avcodec_get_name")
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
        let setLogLevel: @convention(c) (Int32) -> Void = try av.function("av_log_set_level")
        setLogLevel(AV_LOG_QUIET)
    }

    /// The one choke point for FFmpeg's return codes (libavformat's and libavfilter's too).
    func check(_ returnCode: Int32, _ operation: String, code: LibAVError.Code = .failed) throws(LibAVError) {
        guard returnCode < 0 else { return }
        var buffer = [CChar](repeating: 0, count: 256)
        _ = strerror(returnCode, &buffer, buffer.count)
        throw LibAVError(code, operation: operation, message: String(cString: buffer))
    }
}
