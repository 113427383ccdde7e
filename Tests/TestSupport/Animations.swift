import Foundation

/// Animated GIFs and WebPs made at test time by pyvips (the tests' venv, its own libvips 8.18), and
/// what pyvips and libwebp's `webpmux` read back from an output: frames, delays, loop count, and
/// each frame against libvips' own thumbnail of the same input frame.
public enum Animations {
    /// What an animation holds, as an independent reader finds it.
    public struct Reading: Decodable, Equatable {
        public let frames: Int
        public let width: Int
        public let frameHeight: Int
        public let delays: [Int]
        public let loop: Int
        /// Per frame: the largest difference of a band's mean from libvips' thumbnail of that input
        /// frame (forced to the output's size, cut with `crop` where given).
        public let meanDifferences: [Double]
    }

    /// Writes `name-gif.gif` and `name-webp.webp` into `folder`: `frames` frames of `width` × `height`, a
    /// gradient each, bluer frame by frame (so that frames out of order show), frame k shown for
    /// (k + 1) × 100 ms, played `loop` times; and `name-clear.gif`, the same with its left third transparent.
    public static func make(in folder: URL, name: String = "animation", frames: Int = 5, width: Int = 240, height: Int = 160,
                            loop: Int = 3) throws {
        _ = try PythonReference.run("""
            import sys, pyvips
            folder, name, n, w, h, loop = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
            x = pyvips.Image.xyz(w, h)
            frames = [(x[0] * 255 / w).bandjoin([x[1] * 255 / h, x[0] * 0 + 20 + 200 * k / max(1, n - 1)])
                      .cast('uchar').copy(interpretation='srgb') for k in range(n)]
            strip = pyvips.Image.arrayjoin(frames, across=1).copy()
            strip.set_type(pyvips.GValue.gint_type, 'page-height', h)
            strip.set_type(pyvips.GValue.array_int_type, 'delay', [100 * (k + 1) for k in range(n)])
            strip.set_type(pyvips.GValue.gint_type, 'loop', loop)
            strip.write_to_file(f'{folder}/{name}-gif.gif')
            strip.write_to_file(f'{folder}/{name}-webp.webp', Q=95)
            clear = strip.bandjoin((pyvips.Image.xyz(w, h * n)[0] >= w // 3).ifthenelse(255, 0).cast('uchar'))
            clear.set_type(pyvips.GValue.gint_type, 'page-height', h)
            clear.write_to_file(f'{folder}/{name}-clear.gif')
            """, [folder.path, name, String(frames), String(width), String(height), String(loop)])
    }

    /// `output` read by pyvips, each frame compared with the same frame of `input` thumbnailed by
    /// libvips to the output's frame size (`crop`: libvips' `crop` option, e.g. "centre").
    public static func read(_ output: URL, against input: URL, crop: String? = nil) throws -> Reading {
        let json = try PythonReference.run("""
            import sys, json, pyvips
            out_path, in_path, crop = sys.argv[1], sys.argv[2], sys.argv[3]
            def frames(path):
                image = pyvips.Image.new_from_file(path, **({'n': -1} if path.endswith(('.gif', '.webp')) else {}))
                page = image.get('page-height') if image.get_typeof('page-height') else image.height
                return image, page, [image.crop(0, k * page, image.width, page) for k in range(image.height // page)]
            out, page, out_frames = frames(out_path)
            _, _, in_frames = frames(in_path)
            def rgb(image):
                image = image.flatten(background=255) if image.hasalpha() else image
                return image.colourspace('srgb')[0:3]
            diffs = []
            for k, frame in enumerate(out_frames):
                options = {'height': page, 'size': 'force'} if crop == '-' else {'height': page, 'crop': crop}
                reference = rgb(in_frames[k].copy_memory().thumbnail_image(out.width, **options))
                got = rgb(frame)
                diffs.append(max(abs(got[b].avg() - reference[b].avg()) for b in range(3)))
            delays = list(out.get('delay')) if out.get_typeof('delay') else []
            loop = out.get('loop') if out.get_typeof('loop') else -1
            print(json.dumps({'frames': len(out_frames), 'width': out.width, 'frameHeight': page, 'delays': delays,
                              'loop': loop, 'meanDifferences': diffs}))
            """, [output.path, input.path, crop ?? "-"])
        return try JSONDecoder().decode(Reading.self, from: Data(json.utf8))
    }

    /// `webpmux -info`'s frame count, loop count and each frame's duration in milliseconds.
    public static func webpmuxInfo(_ file: URL) throws -> (frames: Int, loop: Int, durations: [Int]) {
        let result = try runProcess("webpmux", ["-info", file.path])
        guard result.exitCode == 0 else { throw PythonReferenceError(message: "webpmux: \(result.stderr)") }
        let lines = result.stdout.split(separator: "\n").map(String.init)
        // Frame rows: "  1:   100    75    no ... duration ...", the duration the seventh column.
        let durations = lines.filter { $0.range(of: #"^\s*\d+:"#, options: .regularExpression) != nil }
            .compactMap { row in Int(row.split(whereSeparator: { $0 == " " || $0 == ":" }).filter { !$0.isEmpty }[6]) }
        let frames = lines.first { $0.hasPrefix("Number of frames") }.flatMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }
        return (frames ?? 1, loopCount(lines), durations)
    }

    /// "Background color : 0xFFFFFFFF  Loop Count : 4" is one line.
    private static func loopCount(_ lines: [String]) -> Int {
        guard let line = lines.first(where: { $0.contains("Loop Count") }), let value = line.components(separatedBy: "Loop Count").last else { return -1 }
        return Int(value.replacingOccurrences(of: ":", with: "").trimmingCharacters(in: .whitespaces)) ?? -1
    }
}
