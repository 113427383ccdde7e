import Foundation

/// Movies the tests make with the ffmpeg CLI, and what ffprobe and the CLI read of a movie.
public enum Movies {
    /// A clip made by the ffmpeg CLI: `input` its lavfi source, `options` its encoding.
    public static func clip(_ name: String, _ input: String, _ options: [String], folder: String = "movies") throws -> String {
        let path = Fixtures.temporaryFolder(folder).appendingPathComponent(name).path
        let made = try runProcess("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", input] + options + [path])
        precondition(made.exitCode == 0, made.stderr)
        return path
    }

    /// 10-bit HEVC in BT.2020, tagged `hvc1`, as an iPhone writes HDR; the transfer goes with it.
    public static let hevcHDR = ["-c:v", "libx265", "-pix_fmt", "yuv420p10le", "-tag:v", "hvc1", "-colorspace", "bt2020nc", "-color_primaries", "bt2020"]

    /// An HDR clip with its transfer (`smpte2084`, `arib-std-b67`) in the HEVC stream itself, as a
    /// phone writes it (FFmpeg 7.1's CLI passes `-color_trc` to x265 no more).
    public static func hdrClip(_ name: String, transfer: String, _ input: String = "testsrc2=size=320x180:rate=30:duration=3") throws -> String {
        try clip(name, input, hevcHDR + ["-color_trc", transfer, "-x265-params",
                                         "log-level=error:colorprim=bt2020:colormatrix=bt2020nc:transfer=\(transfer)"])
    }

    /// A copy of `path` whose video stream a player turns a quarter clockwise: FFmpeg 5.1 writes the
    /// display matrix from `rotate` when it copies the stream, 7.1 from its input option.
    public static func rotated(_ path: String, name: String) throws -> String {
        let rotated = Fixtures.temporaryFolder("movies").appendingPathComponent(name).path
        var remux = try runProcess("ffmpeg", ["-v", "error", "-y", "-i", path, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated])
        let side = try runProcess("ffprobe", ["-v", "error", "-show_entries", "stream_side_data=rotation", "-of", "csv=p=0", rotated])
        if !side.stdout.contains("90") {
            remux = try runProcess("ffmpeg", ["-v", "error", "-y", "-display_rotation", "90", "-i", path, "-c", "copy", rotated])
        }
        precondition(remux.exitCode == 0, remux.stderr)
        return rotated
    }

    /// ffprobe's streams and format (`-of json`).
    public static func probe(_ path: String) throws -> (streams: [[String: Any]], format: [String: Any]) {
        let probed = try runProcess("ffprobe", ["-v", "error", "-show_streams", "-show_format", "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: Data(probed.stdout.utf8)) as? [String: Any] ?? [:]
        return (json["streams"] as? [[String: Any]] ?? [], json["format"] as? [String: Any] ?? [:])
    }

    /// The names of the top-level boxes of an MP4 or MOV, in file order (`moov` before `mdat`: faststart).
    public static func topLevelBoxes(_ path: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var boxes: [String] = [], offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if size == 1, offset + 16 <= data.count { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
            boxes.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
            guard size >= 8 else { break }
            offset += size
        }
        return boxes
    }

    /// What the ffmpeg CLI says decoding every frame of every stream: nothing for a whole movie.
    public static func decodingErrors(_ path: String) throws -> String {
        let decoded = try runProcess("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
        return decoded.exitCode == 0 ? decoded.stderr : "exit \(decoded.exitCode): \(decoded.stderr)"
    }

    /// Each packet's MD5 (the CLI's `framemd5` of the streams copied): equal lists are the same packets.
    public static func packetDigests(_ path: String, stream: String) throws -> [String] {
        let hashed = try runProcess("ffmpeg", ["-v", "error", "-i", path, "-map", "0:\(stream)", "-c", "copy", "-f", "framemd5", "-"])
        return hashed.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map(String.init) }
    }
}
