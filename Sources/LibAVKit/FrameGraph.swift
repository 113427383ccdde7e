import CLibAV
import Foundation

/// A libavfilter graph that turns decoded frames into 8-bit pictures: the filters the ffmpeg CLI
/// runs, by the same names and options, so a frame here is the CLI's frame. Built for the first
/// frame's size and pixel format; owns its graph, freed in `deinit`.
final class FrameGraph {
    private let av: LibAVDecoding
    private var graph: LibAVDecoding.Graph?
    private let source: LibAVDecoding.Filter
    private let sink: LibAVDecoding.Filter
    private var output: LibAVDecoding.Frame?

    /// `filters`: a chain in the CLI's syntax, between the decoded frame and the sink.
    convenience init(_ av: LibAVDecoding, for frame: LibAVDecoding.Frame, timeBase: AVRational, filters: String) throws(LibAVError) {
        try self.init(av, source: "buffer@in=" + Self.videoSource(frame, timeBase), filters: filters, sink: "buffersink@out")
    }

    /// `source` and `sink` name the graph's ends `@in` and `@out` (`abuffer@in=…`, `abuffersink@out`).
    init(_ av: LibAVDecoding, source: String, filters: String, sink: String) throws(LibAVError) {
        self.av = av
        graph = av.graphAlloc()
        output = av.frameAlloc()
        guard let graph, output != nil else { throw LibAVError(.failed, operation: "allocate a filter graph", message: "out of memory") }
        graph.pointee.nb_threads = 1
        let description = "\(source),\(filters),\(sink)"
        try av.check(av.graphParse(graph, description, nil, nil, nil), "build the filters \(filters)")
        try av.check(av.graphConfig(graph, nil), "configure the filters \(filters)")
        guard let source = av.graphFilter(graph, "buffer@in") ?? av.graphFilter(graph, "abuffer@in"),
              let sink = av.graphFilter(graph, "buffersink@out") ?? av.graphFilter(graph, "abuffersink@out") else {
            throw LibAVError(.failed, operation: "build the filters \(filters)", message: "no source or sink")
        }
        self.source = source
        self.sink = sink
    }

    /// A `buffer` source's options for frames like `frame`.
    static func videoSource(_ frame: LibAVDecoding.Frame, _ timeBase: AVRational) -> String {
        let aspect = frame.pointee.sample_aspect_ratio
        return "video_size=\(frame.pointee.width)x\(frame.pointee.height):pix_fmt=\(frame.pointee.format)"
            + ":time_base=\(timeBase.num)/\(timeBase.den):pixel_aspect=\(max(aspect.num, 1))/\(max(aspect.den, 1))"
    }

    var sinkFilter: LibAVDecoding.Filter { sink }

    /// Sends a frame into the graph.
    func push(_ frame: LibAVDecoding.Frame) throws(LibAVError) {
        try av.check(av.addFrame(source, frame, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)), "filter a frame")
    }

    /// The end, which flushes the graph: at `pts` (the source's time base) where the stream's
    /// end is known, so that `fps` fills the last frame's time as the ffmpeg CLI does, rather
    /// than stopping at its start.
    func close(at pts: Int64?) throws(LibAVError) {
        if let pts {
            try av.check(av.closeSource(source, pts, 0), "filter a frame")
        } else {
            try av.check(av.addFrame(source, nil, 0), "filter a frame")
        }
    }

    /// The graph's next frame (valid until the next call), or nil when it needs more or has ended.
    func pull() throws(LibAVError) -> LibAVDecoding.Frame? {
        av.frameUnref(output)
        let got = av.getFrame(sink, output)
        if got == -EAGAIN || got == LibAV.endOfFile { return nil }
        try av.check(got, "filter a frame")
        return output
    }

    deinit {
        av.frameFree(&output)
        av.graphFree(&graph)
    }

    /// `frame` through the filters, as packed rows of `channels` bytes a pixel (the chain must end
    /// in that many: `format=rgb24` 3, `format=gray` 1).
    func picture(of frame: LibAVDecoding.Frame, channels: Int) throws(LibAVError) -> (width: Int, height: Int, pixels: [UInt8]) {
        try av.check(av.addFrame(source, frame, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)), "filter a frame")
        try av.check(av.getFrame(sink, output), "filter a frame")
        guard let output else { throw LibAVError(.failed, operation: "filter a frame", message: "no frame") }
        defer { av.frameUnref(output) }
        let width = Int(output.pointee.width), height = Int(output.pointee.height), stride = Int(output.pointee.linesize.0)
        guard let rows = output.pointee.data.0 else { throw LibAVError(.failed, operation: "filter a frame", message: "no pixels") }
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        pixels.withUnsafeMutableBytes { target in
            for row in 0..<height {
                memcpy(target.baseAddress! + row * width * channels, rows + row * stride, width * channels)
            }
        }
        return (width, height, pixels)
    }
}
