import CLibAV

/// Where in a movie its poster is taken.
public enum PosterTime: Sendable, Equatable, Hashable {
    /// The most representative keyframe of the first third, or a movie's sharpest frame when it
    /// lasts under 2 s; never a black, faded or blurred frame where another shows something.
    case auto
    /// Seconds from the start; past the end, the last frame.
    case seconds(Double)
    /// A fraction of the duration, 0...1.
    case fraction(Double)
}

/// A movie's frame as a picture: upright (its display matrix applied), 8-bit sRGB, HDR (PQ or
/// HLG) tone-mapped to SDR.
public struct PosterFrame: Sendable {
    public let width: Int
    public let height: Int
    /// Packed rows, 3 bytes a pixel.
    public let rgb: [UInt8]
    /// Its time, in seconds from the movie's start.
    public let seconds: Double
    /// The movie is HDR and its frame was tone-mapped.
    public let toneMapped: Bool
}

extension LibAV {
    /// The poster frame of the movie at `path`, shrunk (Lanczos, before tone mapping: a 4K HDR
    /// frame in float planes is 100 MB) to fit `fitting` × `fitting` where that is smaller; fails
    /// with `.noPicture` when the movie has no video stream, no decoder for it, or no frame that decodes.
    public static func poster(path: String, at time: PosterTime, fitting: Int? = nil) throws(LibAVError) -> PosterFrame {
        let movie = try MovieDecoder(path: path)
        let seconds: Double
        switch time {
        case .auto:
            let best = try PosterSearch(movie).best()
            if let held = best.frame { return try picture(of: held.frame, at: best.seconds, movie, fitting: fitting) }
            seconds = best.seconds
        case .seconds(let value): seconds = value
        case .fraction(let fraction): seconds = (movie.durationSeconds ?? 0) * fraction
        }
        return try frame(of: movie, at: seconds, fitting: fitting)
    }

    /// `frame` through the poster's filters.
    private static func picture(of frame: LibAVDecoding.Frame, at seconds: Double, _ movie: MovieDecoder,
                                fitting: Int?) throws(LibAVError) -> PosterFrame {
        let (filters, toneMapped) = posterFilters(movie, frame, fitting: fitting)
        let graph = try FrameGraph(movie.av, for: frame, timeBase: movie.timeBase, filters: filters)
        let picture = try graph.picture(of: frame, channels: 3)
        return PosterFrame(width: picture.width, height: picture.height, rgb: picture.pixels, seconds: seconds, toneMapped: toneMapped)
    }

    /// The first frame at or after `seconds` (within half a frame), else the movie's last.
    private static func frame(of movie: MovieDecoder, at seconds: Double, fitting: Int?) throws(LibAVError) -> PosterFrame {
        try movie.seek(toSeconds: seconds)
        movie.keyframesOnly(false)
        let slack = 0.5 / (movie.framesPerSecond ?? 30)
        var last: Double?
        while let frame = try movie.nextFrame() {
            let time = movie.seconds(of: frame)
            last = time
            guard time >= seconds - slack else { continue }
            return try picture(of: frame, at: time, movie, fitting: fitting)
        }
        guard let last, last < seconds - slack else {
            throw LibAVError(.noPicture, operation: "decode a frame", message: "no frame of the video stream decodes")
        }
        return try frame(of: movie, at: last, fitting: fitting)
    }

    /// Cropped to the container's clean aperture, upright, shrunk, then (for HDR) tone-mapped, then packed RGB.
    private static func posterFilters(_ movie: MovieDecoder, _ frame: LibAVDecoding.Frame, fitting: Int?) -> (String, Bool) {
        let upright = uprightFilters(frame, cropping: movie.cropping, rotation: movie.rotationClockwise)
        let shrink = fitting.flatMap { side in
            max(frame.pointee.width, frame.pointee.height) > side
                ? ["scale=\(side):\(side):force_original_aspect_ratio=decrease:flags=lanczos"] : nil
        } ?? []
        let toneMap = toneMapping(frame)
        return ((upright + shrink + toneMap + ["format=rgb24"]).joined(separator: ","), !toneMap.isEmpty)
    }

    /// Cropped to the container's clean aperture, then turned as the display matrix says (`transpose`,
    /// `hflip`/`vflip`, as the ffmpeg CLI does): a poster's and a rendition's first filters.
    static func uprightFilters(_ frame: LibAVDecoding.Frame, cropping: (top: Int, bottom: Int, left: Int, right: Int)?,
                               rotation: Int) -> [String] {
        let crop = cropping.map { crop in
            ["crop=w=\(Int(frame.pointee.width) - crop.left - crop.right):h=\(Int(frame.pointee.height) - crop.top - crop.bottom)"
                + ":x=\(crop.left):y=\(crop.top)"]
        } ?? []
        return crop + ([90: ["transpose=clock"], 180: ["hflip", "vflip"], 270: ["transpose=cclock"]][rotation] ?? [])
    }

    /// For a PQ or HLG frame, the chain photo-library servers use (Immich's): linear light at 100
    /// nits, BT.709 primaries, Hable's curve without desaturation; then `output`'s transfer,
    /// matrix and range (a still's sRGB, full range; a video's BT.709, limited). Nothing for SDR:
    /// `format=rgb24` converts by the frame's own matrix and range. The first `zscale` is told the
    /// frame's own transfer, primaries, matrix and range: FFmpeg 7.1's graphs do not carry them
    /// from a `buffer` source told none (5.1's `buffer` takes no such options), and zimg then
    /// finds "no path between colorspaces".
    static func toneMapping(_ frame: LibAVDecoding.Frame, output: String = "t=iec61966-2-1:m=bt709:r=pc") -> [String] {
        let transfer = frame.pointee.color_trc
        guard isHDR(transfer) else { return [] }
        let given = "tin=\(transfer == AVCOL_TRC_SMPTE2084 ? "smpte2084" : "arib-std-b67")"
            + ":pin=\(frame.pointee.color_primaries == AVCOL_PRI_BT709 ? "709" : "2020")"
            + ":min=\(frame.pointee.colorspace == AVCOL_SPC_BT709 ? "709" : frame.pointee.colorspace == AVCOL_SPC_BT2020_CL ? "2020_cl" : "2020_ncl")"
            + ":rin=\(frame.pointee.color_range == AVCOL_RANGE_JPEG ? "full" : "limited")"
        return ["zscale=t=linear:npl=100:\(given)", "format=gbrpf32le", "zscale=p=bt709", "tonemap=hable:desat=0", "zscale=\(output)"]
    }

    /// PQ (HDR10, Dolby Vision's base layers) or HLG.
    static func isHDR(_ transfer: AVColorTransferCharacteristic) -> Bool {
        transfer == AVCOL_TRC_SMPTE2084 || transfer == AVCOL_TRC_ARIB_STD_B67
    }
}
