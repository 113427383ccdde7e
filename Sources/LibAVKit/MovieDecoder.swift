import CLibAV
import Foundation

/// A movie's first video stream, decoded frame by frame on the calling thread (`StreamDecoder`),
/// seeking by time. Owns its file, decoder and packet.
final class MovieDecoder {
    let av: LibAVDecoding
    private let file: InputFile
    private let decoder: StreamDecoder
    private var packet: LibAVDecoding.Packet?
    private let stream: Int32
    let timeBase: AVRational
    /// The stream's first timestamp (0 where it has none).
    private let start: Int64
    let durationSeconds: Double?
    let framesPerSecond: Double?
    /// Degrees a player turns the picture clockwise (0, 90, 180, 270), from the display matrix.
    let rotationClockwise: Int
    /// The clean aperture the container states, where this FFmpeg exports it (see `LibAV.cropping`).
    let cropping: (top: Int, bottom: Int, left: Int, right: Int)?
    private var drained = false

    init(path: String) throws(LibAVError) {
        file = try InputFile(path: path)
        av = file.av
        guard let (index, stream) = file.firstStream(AVMEDIA_TYPE_VIDEO) else {
            throw LibAVError(.noPicture, operation: "find a video stream", message: "the file has none")
        }
        self.stream = index
        timeBase = stream.pointee.time_base
        start = stream.pointee.start_time == Int64.min ? 0 : stream.pointee.start_time
        durationSeconds = file.durationSeconds
        framesPerSecond = LibAV.rate(stream.pointee.avg_frame_rate) ?? LibAV.rate(stream.pointee.r_frame_rate)
        rotationClockwise = LibAV.clockwiseRotation(of: stream, av.format) ?? 0
        cropping = LibAV.cropping(of: stream, av.format)
        decoder = try StreamDecoder(av, stream)
        packet = av.packetAlloc()
        guard packet != nil else { throw LibAVError(.failed, operation: "allocate a packet", message: "out of memory") }
    }

    deinit {
        av.packetFree(&packet)
    }

    /// Decodes keyframes only (libavcodec drops the rest before decoding them), or every frame.
    func keyframesOnly(_ only: Bool) {
        decoder.codec?.pointee.skip_frame = only ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT
    }

    /// Moves to the keyframe at or before `seconds` (from the stream's start).
    func seek(toSeconds seconds: Double) throws(LibAVError) {
        try av.check(av.seekFrame(file.pointer, stream, timestamp(seconds), AVSEEK_FLAG_BACKWARD), "seek")
        decoder.flush()
        drained = false
    }

    /// The next decoded frame (valid until the next call), or nil at the end of the stream.
    func nextFrame() throws(LibAVError) -> LibAVDecoding.Frame? {
        while true {
            if let frame = try decoder.receive() { return frame }
            guard !drained else { return nil }
            feed()
        }
    }

    /// Sends the decoder the stream's next packet, or, at the end, the flush that drains it.
    private func feed() {
        while !drained {
            guard file.read(into: packet) else {
                drained = true
                decoder.send(nil)
                return
            }
            defer { av.packetUnref(packet) }
            guard packet?.pointee.stream_index == stream else { continue }
            decoder.send(packet)
            return
        }
    }

    /// A frame's time in seconds from the stream's start.
    func seconds(of frame: LibAVDecoding.Frame) -> Double {
        Double(frame.pointee.best_effort_timestamp - start) * Double(timeBase.num) / Double(timeBase.den)
    }

    private func timestamp(_ seconds: Double) -> Int64 {
        start + Int64((seconds * Double(timeBase.den) / Double(timeBase.num)).rounded())
    }
}

extension LibAV {
    /// FFmpeg's AVERROR_EOF, `FFERRTAG('E', 'O', 'F', ' ')`, a macro Swift does not import.
    static let endOfFile: Int32 = -Int32(bitPattern: UInt32(0x45) | UInt32(0x4F) << 8 | UInt32(0x46) << 16 | UInt32(0x20) << 24)
}
