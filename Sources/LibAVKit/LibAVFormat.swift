import CLibAV
import Foundation

/// The libavformat functions mediabatch calls, opened with dlopen on the first video rather than
/// linked (see CLibAV's module map): an image-only run never loads FFmpeg, and without it
/// installed, videos fail with the loader's reason while images still work.
struct LibAVFormat: @unchecked Sendable {
    typealias ContextSlot = UnsafeMutablePointer<UnsafeMutablePointer<AVFormatContext>?>?

    let openInput: @convention(c) (ContextSlot, UnsafePointer<CChar>?, UnsafePointer<AVInputFormat>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    let findStreamInfo: @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    let closeInput: @convention(c) (ContextSlot) -> Void
    let strerror: @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32
    let mediaTypeName: @convention(c) (AVMediaType) -> UnsafePointer<CChar>?
    let codecName: @convention(c) (AVCodecID) -> UnsafePointer<CChar>?
    let streamSideData: @convention(c) (UnsafePointer<AVStream>?, AVPacketSideDataType, UnsafeMutablePointer<Int>?) -> UnsafeMutablePointer<UInt8>?
    let displayRotation: @convention(c) (UnsafePointer<Int32>?) -> Double

    static let shared: Result<LibAVFormat, LibAVError> = {
        do throws(LibAVError) { return .success(try LibAVFormat()) } catch { return .failure(error) }
    }()

    /// libavformat's own handle: libavcodec's and libavutil's functions are looked up through it.
    let library: SharedLibrary

    private init() throws(LibAVError) {
        // The major version of the headers compiled against: a different ABI is not loaded.
        // libavcodec and libavutil come with it, and dlsym on its handle searches them too.
        library = try SharedLibrary("libavformat.so.\(LIBAVFORMAT_VERSION_MAJOR)")
        openInput = try library.function("avformat_open_input")
        findStreamInfo = try library.function("avformat_find_stream_info")
        closeInput = try library.function("avformat_close_input")
        strerror = try library.function("av_strerror")
        mediaTypeName = try library.function("av_get_media_type_string")
        codecName = try library.function("avcodec_get_name")
        streamSideData = try library.function("av_stream_get_side_data")
        displayRotation = try library.function("av_display_rotation_get")
        let setLogLevel: @convention(c) (Int32) -> Void = try library.function("av_log_set_level")
        setLogLevel(AV_LOG_QUIET)
    }
}
