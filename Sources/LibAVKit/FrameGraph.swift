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
    init(_ av: LibAVDecoding, for frame: LibAVDecoding.Frame, timeBase: AVRational, filters: String) throws(LibAVError) {
        self.av = av
        graph = av.graphAlloc()
        output = av.frameAlloc()
        guard let graph, output != nil else { throw LibAVError(.failed, operation: "allocate a filter graph", message: "out of memory") }
        graph.pointee.nb_threads = 1
        let aspect = frame.pointee.sample_aspect_ratio
        let buffer = "video_size=\(frame.pointee.width)x\(frame.pointee.height):pix_fmt=\(frame.pointee.format)"
            + ":time_base=\(timeBase.num)/\(timeBase.den):pixel_aspect=\(max(aspect.num, 1))/\(max(aspect.den, 1))"
        let description = "buffer@in=\(buffer),\(filters),buffersink@out"
        try av.check(av.graphParse(graph, description, nil, nil, nil), "build the filters \(filters)")
        try av.check(av.graphConfig(graph, nil), "configure the filters \(filters)")
        guard let source = av.graphFilter(graph, "buffer@in"), let sink = av.graphFilter(graph, "buffersink@out") else {
            throw LibAVError(.failed, operation: "build the filters \(filters)", message: "no source or sink")
        }
        self.source = source
        self.sink = sink
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
