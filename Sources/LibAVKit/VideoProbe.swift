import CLibAV
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
    /// Frames per second of the first video stream: its average rate, else its base rate.
    public let framesPerSecond: Double?
    /// Degrees a player turns the first video stream clockwise to show it upright (0, 90, 180
    /// or 270), from its display matrix. exiftool's `Rotation` counts the same way; FFmpeg's
    /// `av_display_rotation_get` counts counterclockwise, so it gives the negative.
    public let rotationClockwise: Int?
}

public enum LibAV {
    /// Opens the container and, when its header does not describe every stream, reads packets
    /// until it does; fails on files libavformat cannot parse (a truncated MOV has no `moov`
    /// atom, for example).
    public static func probe(path: String) throws -> VideoProbe {
        let library = try LibAVFormat.shared.get()
        var context: UnsafeMutablePointer<AVFormatContext>?
        try library.codec.check(library.openInput(&context, path, nil, nil), "open")
        defer { library.closeInput(&context) }
        guard let context else { throw LibAVError(.failed, operation: "open", message: "no context") }
        // Finding stream info decodes frames: a large share of a dry run over Live Photo movies.
        // MOV and MP4 headers state every stream's codec, size, rate and the duration already.
        if !headerDescribesEveryStream(context) {
            try library.codec.check(library.findStreamInfo(context, nil), "find stream info")
        }

        var streams: [VideoProbe.Stream] = []
        var width: Int?
        var height: Int?
        var framesPerSecond: Double?
        var rotation: Int?
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index], let parameters = stream.pointee.codecpar?.pointee else { continue }
            let kind = library.mediaTypeName(parameters.codec_type).map { String(cString: $0) } ?? "unknown"
            let codec = library.codec.codecName(parameters.codec_id).map { String(cString: $0) } ?? "unknown"
            streams.append(.init(kind: kind, codec: codec))
            if parameters.codec_type == AVMEDIA_TYPE_VIDEO, width == nil {
                let crop = cropping(of: stream, library)
                width = Int(parameters.width) - (crop.map { $0.left + $0.right } ?? 0)
                height = Int(parameters.height) - (crop.map { $0.top + $0.bottom } ?? 0)
                framesPerSecond = rate(stream.pointee.avg_frame_rate) ?? rate(stream.pointee.r_frame_rate)
                rotation = clockwiseRotation(of: stream, library)
            }
        }
        let duration = context.pointee.duration > 0 ? Double(context.pointee.duration) / Double(AV_TIME_BASE) : nil
        let container = context.pointee.iformat?.pointee.name.map { String(cString: $0) } ?? "unknown"
        return VideoProbe(container: container, durationSeconds: duration, width: width, height: height, streams: streams,
                          framesPerSecond: framesPerSecond, rotationClockwise: rotation)
    }

    /// Whether what the probe reports is known from the header alone: the duration, every audio
    /// and video stream's codec, and a video stream's size and average frame rate. A data stream
    /// may stay unnamed: reading packets cannot name Apple's timed metadata (`mebx`, in Live Photo,
    /// cinematic and GPS-tagged iPhone movies) either, and trying costs a dry run a large share of its time.
    static func headerDescribesEveryStream(_ context: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        guard context.pointee.duration > 0, context.pointee.nb_streams > 0 else { return false }
        return (0..<Int(context.pointee.nb_streams)).allSatisfy { index in
            guard let stream = context.pointee.streams[index], let parameters = stream.pointee.codecpar?.pointee else { return false }
            switch parameters.codec_type {
            case AVMEDIA_TYPE_DATA: return true
            case AVMEDIA_TYPE_VIDEO:
                return parameters.codec_id != AV_CODEC_ID_NONE && parameters.width > 0 && parameters.height > 0
                    && rate(stream.pointee.avg_frame_rate) != nil
            default: return parameters.codec_id != AV_CODEC_ID_NONE
            }
        }
    }

    /// A rate, or nil when libavformat left it unknown (0/0).
    static func rate(_ rational: AVRational) -> Double? {
        guard rational.num > 0, rational.den > 0 else { return nil }
        return Double(rational.num) / Double(rational.den)
    }

    /// The clean aperture a container states (a MOV's `clap`: iPhone Live Photos have one) as
    /// FFmpeg 7.1 exports it — side data type 36, `AV_PKT_DATA_FRAME_CROPPING`, four little-endian
    /// 32-bit counts: top, bottom, left, right — and its CLI crops to. FFmpeg 5.1 (Debian 12) has no
    /// such type (its last is 31) and shows the whole frame: each release as its CLI shows the movie.
    static func cropping(of stream: UnsafeMutablePointer<AVStream>, _ library: LibAVFormat) -> (top: Int, bottom: Int, left: Int, right: Int)? {
        var size = 0
        guard let data = library.streamSideData(stream, AVPacketSideDataType(rawValue: 36), &size), size >= 16 else { return nil }
        let counts = (0..<4).map { index in
            (0..<4).reduce(0) { $0 | Int(data[index * 4 + $1]) << (8 * $1) }
        }
        guard let parameters = stream.pointee.codecpar?.pointee, counts[0] + counts[1] < parameters.height,
              counts[2] + counts[3] < parameters.width, counts.contains(where: { $0 > 0 }) else { return nil }
        return (counts[0], counts[1], counts[2], counts[3])
    }

    /// The display matrix's rotation, clockwise and in 0..<360; nil when the matrix is unusable.
    static func clockwiseRotation(of stream: UnsafeMutablePointer<AVStream>, _ library: LibAVFormat) -> Int? {
        var size = 0
        // libavformat attaches no matrix for the identity: the video is shown as stored.
        guard let data = library.streamSideData(stream, AV_PKT_DATA_DISPLAYMATRIX, &size) else { return 0 }
        guard size >= 9 * MemoryLayout<Int32>.size else { return nil }
        let counterclockwise = data.withMemoryRebound(to: Int32.self, capacity: 9) { library.displayRotation($0) }
        guard counterclockwise.isFinite else { return nil }
        let degrees = Int((-counterclockwise).rounded())
        return (degrees % 360 + 360) % 360
    }
}
