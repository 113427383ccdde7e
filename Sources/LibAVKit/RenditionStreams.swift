import CLibAV
import Foundation

/// What a rendition does with one source stream's packets.
protocol RenditionStream: AnyObject {
    /// The source stream's index in its file.
    var source: Int32 { get }
    /// Frames (or packets) written so far.
    var frames: Int { get }
    func take(_ packet: LibAVDecoding.Packet) throws(LibAVError)
    /// The end of the source: everything held is written.
    func finish() throws(LibAVError)
}

/// A stream whose packets go into the rendition as they are.
final class CopiedStream: RenditionStream {
    let source: Int32
    private let muxer: MovieMuxer
    private let index: Int
    private(set) var frames = 0

    init(_ source: (index: Int32, stream: UnsafeMutablePointer<AVStream>), into muxer: MovieMuxer) throws(LibAVError) {
        self.source = source.index
        self.muxer = muxer
        index = try muxer.addStream(copying: source.stream)
    }

    func take(_ packet: LibAVDecoding.Packet) throws(LibAVError) {
        frames += 1
        try muxer.write(packet, stream: index)
    }

    func finish() throws(LibAVError) {}
}

/// A stream decoded, filtered (a graph made for its first frame: size, pixel or sample format)
/// and encoded again.
final class TranscodedStream: RenditionStream {
    typealias GraphMaker = (LibAVDecoding.Frame) throws(LibAVError) -> FrameGraph

    let source: Int32
    private let decoder: StreamDecoder
    let encoder: StreamEncoder
    private let muxer: MovieMuxer
    private let index: Int
    private let makeGraph: GraphMaker
    private var graph: FrameGraph?
    /// A video frame's length in the encoder's time base, for packets the encoder leaves without
    /// one (the muxer would give the last frame none, and the movie would end a frame early).
    private let frameDuration: Int64
    /// Where the source stream ends, in its time base, for a graph that retimes frames.
    private let end: Int64?
    var frames: Int { encoder.frames }

    init(_ source: (index: Int32, stream: UnsafeMutablePointer<AVStream>), encoder: StreamEncoder, tag: UInt32? = nil,
         frameDuration: Int64 = 0, end: Int64? = nil, into muxer: MovieMuxer, graph: @escaping GraphMaker) throws(LibAVError) {
        self.frameDuration = frameDuration
        self.end = end
        self.source = source.index
        decoder = try StreamDecoder(encoder.av.decoding, source.stream)
        self.encoder = encoder
        self.muxer = muxer
        index = try muxer.addStream(from: encoder.codec!, tag: tag)
        makeGraph = graph
    }

    func take(_ packet: LibAVDecoding.Packet) throws(LibAVError) {
        decoder.send(packet)
        try drainDecoder()
    }

    func finish() throws(LibAVError) {
        decoder.send(nil)
        try drainDecoder()
        if let graph {
            try graph.close(at: end)
            try drainGraph(graph)
        }
        try encoder.encode(nil, write)
    }

    private func drainDecoder() throws(LibAVError) {
        while let frame = try decoder.receive() {
            if graph == nil { graph = try makeGraph(frame) }
            guard let graph else { return }
            try graph.push(frame)
            try drainGraph(graph)
        }
    }

    private func drainGraph(_ graph: FrameGraph) throws(LibAVError) {
        guard let codec = encoder.codec else { return }
        let from = encoder.av.sinkTimeBase(graph.sinkFilter)
        while let frame = try graph.pull() {
            if frame.pointee.pts != Int64.min { frame.pointee.pts = encoder.av.rescale(frame.pointee.pts, from, codec.pointee.time_base) }
            try encoder.encode(frame, write)
        }
    }

    private func write(_ packet: LibAVDecoding.Packet) throws(LibAVError) {
        if packet.pointee.duration == 0 { packet.pointee.duration = frameDuration }
        try muxer.write(packet, stream: index)
    }
}
