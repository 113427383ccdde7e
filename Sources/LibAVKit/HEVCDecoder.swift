import CLibAV
import Foundation

/// libavcodec's HEVC decoder for a HEIF image's coded pictures: opened once with the image's
/// decoder configuration (the `hvcC` record as extradata: parameter sets and NAL length size) and
/// fed pictures of length-prefixed NAL units, on the calling thread, or with `threads` frame
/// threads (a HEIC's tiles are independent pictures). Errors the decoder only conceals (a
/// damaged slice) fail the picture: the caller falls back to libheif.
public final class HEVCDecoder {
    private let av: LibAVCodec
    private var codec: LibAVCodec.Codec?
    private var packet: LibAVCodec.Packet?
    private var frame: LibAVCodec.Frame?

    public init(configuration: [UInt8], threads: Int = 1) throws(LibAVError) {
        av = try LibAVCodec.shared.get()
        guard let decoder = av.findDecoder(AV_CODEC_ID_HEVC) else {
            throw LibAVError(.noPicture, operation: "find a decoder", message: "this FFmpeg has no HEVC decoder")
        }
        codec = av.allocContext(decoder)
        packet = av.packetAlloc()
        frame = av.frameAlloc()
        guard let codec, packet != nil, frame != nil,
              let extradata = av.mallocZeroed(configuration.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw LibAVError(.failed, operation: "allocate a decoder", message: "out of memory")
        }
        configuration.withUnsafeBytes { extradata.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        codec.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
        codec.pointee.extradata_size = Int32(configuration.count)
        codec.pointee.thread_count = Int32(threads)
        if threads > 1 { codec.pointee.thread_type = FF_THREAD_FRAME }
        codec.pointee.err_recognition |= AV_EF_EXPLODE
        try av.check(av.openCodec(codec, decoder, nil), "open the HEVC decoder")
    }

    deinit {
        av.frameFree(&frame)
        av.packetFree(&packet)
        av.freeContext(&codec)
    }

    /// Decodes `count` coded pictures, `picture(i)` giving the i-th's NAL units (each after its
    /// length), and hands each one's planes (valid only during the call) to `body` with its
    /// index, in order. With frame threads, later pictures decode while `body` takes earlier ones.
    public func decode(pictures count: Int, _ picture: (Int) throws -> [UInt8], _ body: (Int, YCbCrPlanes) throws -> Void) throws {
        var delivered = 0
        func deliver(_ planes: YCbCrPlanes) throws {
            guard delivered < count else { throw LibAVError(.failed, operation: "decode", message: "more pictures than packets") }
            try body(delivered, planes)
            delivered += 1
        }
        defer { av.flushBuffers(codec) }
        for index in 0..<count {
            try send(try picture(index))
            try receiveAll(deliver)
        }
        // The pictures the decoder still holds: its other threads' and any held back for reordering.
        try av.check(av.sendPacket(codec, nil), "drain the decoder")
        try receiveAll(deliver)
        guard delivered == count else { throw LibAVError(.failed, operation: "decode", message: "\(count - delivered) of \(count) pictures did not decode") }
    }

    /// Decodes one coded picture (`data`: its NAL units, each after its length) and hands its
    /// planes to `body` (valid only during the call).
    public func decode<T>(_ data: [UInt8], _ body: (YCbCrPlanes) throws -> T) throws -> T {
        var result: T?
        try decode(pictures: 1, { _ in data }) { _, planes in result = try body(planes) }
        return result!
    }

    private func send(_ data: [UInt8]) throws(LibAVError) {
        guard data.count < Int32.max - 64 else { throw LibAVError(.failed, operation: "decode", message: "a picture of \(data.count) bytes") }
        try av.check(av.newPacket(packet, Int32(data.count)), "allocate a packet")
        data.withUnsafeBytes { UnsafeMutableRawPointer(packet!.pointee.data).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        defer { av.packetUnref(packet) }
        try av.check(av.sendPacket(codec, packet), "decode")
    }

    /// Every picture the decoder has ready, to `body`; errors it only conceals (a damaged slice) fail.
    private func receiveAll(_ body: (YCbCrPlanes) throws -> Void) throws {
        while true {
            let received = av.receiveFrame(codec, frame)
            if received == -EAGAIN || received == LibAV.endOfFile { return }
            try av.check(received, "decode")
            defer { av.frameUnref(frame) }
            guard let frame, frame.pointee.decode_error_flags == 0, frame.pointee.flags & AV_FRAME_FLAG_CORRUPT == 0 else {
                throw LibAVError(.failed, operation: "decode", message: "the picture is damaged")
            }
            guard let planes = YCbCrPlanes(frame) else {
                throw LibAVError(.failed, operation: "decode", message: "pixel format \(frame.pointee.format) is not 8-, 10- or 12-bit YCbCr")
            }
            try body(planes)
        }
    }
}

/// A decoded picture's planes, borrowed from libavcodec's frame, and the colour its HEVC stream
/// states (the VUI; unspecified where it has none).
public struct YCbCrPlanes {
    public let width: Int
    public let height: Int
    /// 8, or 10 or 12: then each sample is 16 bits, native-endian (libavcodec's `…P10LE`, `…P12LE` formats).
    public let bitDepth: Int
    /// log2 of the chroma subsampling: (1, 1) for 4:2:0, (1, 0) 4:2:2, (0, 0) 4:4:4; nil for monochrome.
    public let chromaShift: (x: Int, y: Int)?
    /// Each plane's first row and the bytes from one row to the next (samples of `bitDepth` > 8 are two bytes);
    /// no chroma for monochrome.
    public let luma: (start: UnsafePointer<UInt8>, stride: Int)
    public let cb: (start: UnsafePointer<UInt8>, stride: Int)?
    public let cr: (start: UnsafePointer<UInt8>, stride: Int)?
    /// ISO/IEC 23091-2 code points from the stream.
    public let matrix: Int
    public let primaries: Int
    public let fullRange: Bool

    init?(_ frame: LibAVCodec.Frame) {
        let shift: (x: Int, y: Int)?
        switch AVPixelFormat(frame.pointee.format) {
        // The J formats: FFmpeg 5.1's HEVC decoder names a full-range stream's planes so.
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: (shift, bitDepth) = ((1, 1), 8)
        case AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P: (shift, bitDepth) = ((1, 0), 8)
        case AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P: (shift, bitDepth) = ((0, 0), 8)
        case AV_PIX_FMT_GRAY8: (shift, bitDepth) = (nil, 8)
        // Its native-endian 16-bit formats (LE on the machines mediabatch runs on).
        case AV_PIX_FMT_YUV420P10LE: (shift, bitDepth) = ((1, 1), 10)
        case AV_PIX_FMT_YUV422P10LE: (shift, bitDepth) = ((1, 0), 10)
        case AV_PIX_FMT_YUV444P10LE: (shift, bitDepth) = ((0, 0), 10)
        case AV_PIX_FMT_GRAY10LE: (shift, bitDepth) = (nil, 10)
        case AV_PIX_FMT_YUV420P12LE: (shift, bitDepth) = ((1, 1), 12)
        case AV_PIX_FMT_YUV422P12LE: (shift, bitDepth) = ((1, 0), 12)
        case AV_PIX_FMT_YUV444P12LE: (shift, bitDepth) = ((0, 0), 12)
        case AV_PIX_FMT_GRAY12LE: (shift, bitDepth) = (nil, 12)
        default: return nil
        }
        let data = frame.pointee.data, lines = frame.pointee.linesize
        guard let y = data.0, lines.0 > 0 else { return nil }
        width = Int(frame.pointee.width)
        height = Int(frame.pointee.height)
        chromaShift = shift
        luma = (UnsafePointer(y), Int(lines.0))
        cb = shift != nil ? data.1.map { (start: UnsafePointer($0), stride: Int(lines.1)) } : nil
        cr = shift != nil ? data.2.map { (start: UnsafePointer($0), stride: Int(lines.2)) } : nil
        if shift != nil && (cb == nil || cr == nil) { return nil }
        matrix = Int(frame.pointee.colorspace.rawValue)
        primaries = Int(frame.pointee.color_primaries.rawValue)
        fullRange = frame.pointee.color_range == AVCOL_RANGE_JPEG
    }
}
