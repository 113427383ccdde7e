import CAVFormat
import Foundation

/// What libavformat reads from a video container's header.
public struct VideoProbe: Sendable, Equatable {
    public struct Stream: Sendable, Equatable {
        public let kind: String
        public let codec: String
    }

    public let container: String
    public let durationSeconds: Double?
    public let width: Int?
    public let height: Int?
    public let streams: [Stream]
}

/// A libavformat call that failed.
public struct AVFormatError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let message: String
    public var description: String { "\(operation): \(message)" }
}

/// The one choke point where libavformat return codes become Swift errors.
private func check(_ returnCode: Int32, _ operation: String) throws {
    guard returnCode < 0 else { return }
    var buffer = [CChar](repeating: 0, count: 256)
    av_strerror(returnCode, &buffer, buffer.count)
    throw AVFormatError(operation: operation, message: String(cString: buffer))
}

public enum AVFormat {
    private static let quietLogs: Void = av_log_set_level(AV_LOG_QUIET)

    /// Opens the container and reads enough packets to describe every stream; fails on files
    /// libavformat cannot parse (a truncated MOV has no `moov` atom, for example).
    public static func probe(path: String) throws -> VideoProbe {
        _ = quietLogs
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_open_input(&context, path, nil, nil), "open")
        defer { avformat_close_input(&context) }
        try check(avformat_find_stream_info(context, nil), "find stream info")
        guard let context else { throw AVFormatError(operation: "open", message: "no context") }

        var streams: [VideoProbe.Stream] = []
        var width: Int?
        var height: Int?
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let parameters = context.pointee.streams[index]?.pointee.codecpar?.pointee else { continue }
            let kind = av_get_media_type_string(parameters.codec_type).map { String(cString: $0) } ?? "unknown"
            let codec = avcodec_get_name(parameters.codec_id).map { String(cString: $0) } ?? "unknown"
            streams.append(.init(kind: kind, codec: codec))
            if parameters.codec_type == AVMEDIA_TYPE_VIDEO, width == nil {
                width = Int(parameters.width)
                height = Int(parameters.height)
            }
        }
        let duration = context.pointee.duration > 0 ? Double(context.pointee.duration) / Double(AV_TIME_BASE) : nil
        let container = context.pointee.iformat?.pointee.name.map { String(cString: $0) } ?? "unknown"
        return VideoProbe(container: container, durationSeconds: duration, width: width, height: height, streams: streams)
    }
}
