import CLibAV
import Foundation

/// The libavformat functions mediabatch calls, opened with dlopen on the first video rather than
/// linked (see CLibAV's module map): a run without videos never loads it, and without FFmpeg
/// installed, videos fail with the loader's reason while images still work.
struct LibAVFormat: @unchecked Sendable {
    typealias ContextSlot = UnsafeMutablePointer<UnsafeMutablePointer<AVFormatContext>?>?

    let openInput: @convention(c) (ContextSlot, UnsafePointer<CChar>?, UnsafePointer<AVInputFormat>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    let findStreamInfo: @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    let closeInput: @convention(c) (ContextSlot) -> Void
    let mediaTypeName: @convention(c) (AVMediaType) -> UnsafePointer<CChar>?
    let streamSideData: @convention(c) (UnsafePointer<AVStream>?, AVPacketSideDataType, UnsafeMutablePointer<Int>?) -> UnsafeMutablePointer<UInt8>?
    let displayRotation: @convention(c) (UnsafePointer<Int32>?) -> Double

    static let shared: Result<LibAVFormat, LibAVError> = {
        do throws(LibAVError) { return .success(try LibAVFormat()) } catch { return .failure(error) }
    }()

    /// libavformat's own handle, for the functions the demuxer and muxer look up (`LibAVDecoding`, `LibAVEncoding`).
    let library: SharedLibrary
    /// libavcodec, which libavformat needs: its errors and codec names.
    let codec: LibAVCodec

    private init() throws(LibAVError) {
        // The major version of the headers compiled against, as for libavcodec.
        codec = try LibAVCodec.shared.get()
        library = try SharedLibrary("libavformat.so.\(LIBAVFORMAT_VERSION_MAJOR)")
        openInput = try library.function("avformat_open_input")
        findStreamInfo = try library.function("avformat_find_stream_info")
        closeInput = try library.function("avformat_close_input")
        mediaTypeName = try library.function("av_get_media_type_string")
        streamSideData = try library.function("av_stream_get_side_data")
        displayRotation = try library.function("av_display_rotation_get")
    }
}
