import CMediaShim
import CVips

/// An animation as libvips holds it: every frame loaded (`n=-1`) and stacked into one tall image
/// whose `page-height` is a frame's, with the frames' `delay` (milliseconds) and `loop` count.
/// libvips' thumbnail and resize keep frames whole (they scale by the frame's height), and
/// `gifsave` and `webpsave` write a frame a page; a cut or a pad must be done a frame at a time.
extension VImage {
    /// libvips' filename option for every frame (its loaders read one by default).
    static func loading(_ path: String, allFrames: Bool) -> String {
        allFrames ? path + "[n=-1]" : path
    }

    /// A frame's height: the whole image's for a still.
    public var frameHeight: Int {
        let page = int("page-height") ?? height
        return page > 0 && page < height && height % page == 0 ? page : height
    }

    /// The frames stacked in it: 1 for a still.
    public var frameCount: Int { height / frameHeight }

    /// Each frame's delay in milliseconds, as the header gives them (every frame's, even when only
    /// the first was loaded); empty for a still.
    public var frameDelays: [Int] {
        guard hasField("delay") else { return [] }
        var values: UnsafeMutablePointer<Int32>?
        var count: Int32 = 0
        guard vips_image_get_array_int(pointer, "delay", &values, &count) == 0, let values else {
            vips_error_clear()
            return []
        }
        return (0..<Int(count)).map { Int(values[$0]) }
    }

    /// How many times the animation plays (0: for ever), as libvips reads it.
    public var loopCount: Int? { int("loop") }

    /// The first frame alone.
    public func firstFrame() throws -> VImage {
        frameCount == 1 ? self : try cropped(left: 0, top: 0, width: width, height: frameHeight)
    }

    /// `transform` applied to every frame alike, the results stacked again: a still's one frame is
    /// transformed as it is.
    public func frameByFrame(_ transform: (VImage) throws -> VImage) throws -> VImage {
        guard frameCount > 1 else { return try transform(self) }
        let frames = try (0..<frameCount).map { index in
            try transform(try cropped(left: 0, top: index * frameHeight, width: width, height: frameHeight))
        }
        var pointers: [UnsafeMutablePointer<VipsImage>?] = frames.map(\.pointer)
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_join_frames(&pointers, Int32(frames.count), &out), "arrayjoin") }
        return VImage(owning: out!)
    }
}
