import LibAVKit
import MediaFormats
import PipelineModel

extension StageName {
    public static let poster = StageName("poster")
}

/// Gives a video item a picture: the movie's frame that `at` names, upright (its display matrix
/// applied) and in sRGB (HDR tone-mapped), decoded by `write` (see `PictureRenderer`) and shaped
/// by the image stages after this one as a still's picture is. The movie's own output stays
/// (but with `movie: drop`); the poster is one more, at `write.posterPath`, in JPEG unless a stage
/// after says otherwise. Images pass through.
struct PosterStage: PipelineStage, Equatable {
    /// Immich's and ffmpegthumbnailer's idea: a frame that shows what the movie is.
    var at = Time.auto
    /// A poster beside its movie: a `poster` stage adds an output and takes none away.
    var movie = Movie.keep

    /// Which frame of a movie is its poster.
    enum Time: Codable, Equatable, Hashable, Sendable {
        /// The most representative keyframe of the first third (never black, faded or blurred);
        /// a movie under 2 s, its sharpest frame.
        case auto
        /// Seconds from the start (past the end: the last frame).
        case seconds(Double)
        /// Percent of the duration, 0–100.
        case percent(Double)

        var fingerprint: String {
            switch self {
            case .auto: return "auto"
            case .seconds(let seconds): return "\(seconds)s"
            case .percent(let percent): return "\(percent)%"
            }
        }

        /// As LibAVKit takes it.
        var frameTime: PosterTime {
            switch self {
            case .auto: return .auto
            case .seconds(let seconds): return .seconds(seconds)
            case .percent(let percent): return .fraction(percent / 100)
            }
        }
    }

    /// Whether a movie with a poster is written too.
    enum Movie: String, CaseIterable, Codable, Sendable {
        /// Its own output stays: the movie copied (location stripped as the pipeline says), or the
        /// `video` stage's renditions.
        case keep
        /// The poster alone: a gallery's thumbnails, the movies served from where they are.
        case drop
    }

    enum Keys {
        static let at = Key("at", .posterTime, .value(.auto),
                            "auto: the most representative keyframe of the first third, never black, faded or blurred (a movie under 2 s: "
                            + "its sharpest frame); a number: seconds from the start (past the end: the last frame); \"N%\": percent of the duration.")
        static let movie = Key("movie", ValueSyntax<Movie>.choice("keep or drop"), .value(.keep),
                               "keep: the movie is written too (copied, or the video stage's renditions); drop: the poster alone, "
                               + "the movie not written (not with a video stage).")
    }

    static let syntax = [StageSyntax(
        spelling: "poster",
        help: "Gives each video a picture, one of its frames (upright, HDR tone-mapped to sRGB), for the image stages after it; "
            + "written at write.posterPath. Images pass through. After decode, before the stages that shape pictures.",
        options: [Keys.at.described, Keys.movie.described]) { object in
            PosterStage(at: try object.value(Keys.at), movie: try object.value(Keys.movie))
        }]

    static let placement = StagePlacement(rules: [.notAfterLast, .after(.decode), .beforeShaping])

    /// `movie` at its default adds nothing, so pipelines that do not name it keep the fingerprint
    /// their items were recorded with.
    var fingerprint: String { "poster(at=\(at.fingerprint)\(movie == .keep ? "" : ",movie=\(movie.rawValue)"))" }

    func explanation(among stages: [any Stage]) -> String? {
        let frame: String
        switch at {
        case .auto: frame = "the most representative keyframe of the first third (a movie under 2 s: its sharpest frame)"
        case .seconds(let seconds): frame = "the frame at \(seconds) s (past the end: the last)"
        case .percent(let percent): frame = "the frame at \(percent)% of the duration"
        }
        let own = movie == .drop ? "; the movie itself is not written" : ""
        return "each movie's \(frame), upright, HDR tone-mapped to sRGB, through the image stages after it\(own)"
    }

    /// A movie dropped where `video` renders it: one stage would unsay the other.
    func checkAmong(_ context: StageListContext, index: Int, at reader: JSONReader) throws {
        guard movie == .drop, let video = context.index(of: .video) else { return }
        throw reader.child(Keys.movie.name, .string(movie.rawValue))
            .expected("keep: the \"video\" stage (stages[\(video)]) writes the movie's renditions, and drop writes no movie")
    }

    /// Which outputs a movie has, not how its own is made: changing `at` redoes the poster only.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format, format.isVideo else { return }
        fingerprint.outputs.append(self.fingerprint)
    }

    /// A frame larger than `maxPixels` fails before any is decoded, as an image would.
    func check(_ item: ItemContext) throws {
        guard let frame = item.video?.shownFrame else { return }
        try Self.refuseFrames(frame, over: item.environment.limits.maxPixels(decoding: nil))
    }

    /// A movie's frames over `limits.maxPixels` fail before any is decoded (the `video` stage's too).
    static func refuseFrames(_ frame: PixelSize, over maxPixels: Int) throws {
        let pixels = frame.width * frame.height
        guard pixels <= maxPixels else {
            throw StageFailure(.tooManyPixels, "frames of \(frame.width)×\(frame.height) are \(pixels) pixels, over limits.maxPixels (\(maxPixels))")
        }
    }

    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        guard let frame = item.video?.shownFrame else { return }
        // Decoded upright and in sRGB: nothing left to turn or convert.
        let source = Picture.Source(stored: frame, orientation: 1, needsConversion: false, hasProfile: false, decoder: .movieFrame(at))
        if movie == .drop { plan.outputs.removeAll { $0.role == .video } }
        let jpeg = MediaFormat.jpeg
        plan.outputs.append(PlannedOutput(format: jpeg, quality: jpeg.quality?.default ?? Defaults.keptFormatQuality, effort: nil,
                                          content: .poster(Picture(source: source))))
        plan.estimatedBytes += CostEstimator.posterBytes(frame: source.stored, codec: item.video?.videoCodec)
        plan.upright = frame
    }
}

extension ValueSyntax where Value == PosterStage.Time {
    /// `poster.at`: "auto", seconds (a number, 0 or more) or "N%" (0–100).
    static let posterTime: ValueSyntax = {
        let expected = "\"auto\", seconds from the start (a number, 0 or more) or a percent of the duration (\"N%\", 0–100)"
        let percent: JSONValue = ["type": "string", "pattern": "^(100(\\.0+)?|[0-9]{1,2}(\\.[0-9]+)?)%$"]
        let schema: JSONValue = ["anyOf": [["const": "auto"], ["type": "number", "minimum": 0], percent]]
        return ValueSyntax(schema: schema, read: { reader in
            switch reader.value {
            case .string("auto"): return .auto
            case .number(let seconds) where seconds >= 0 && seconds.isFinite: return .seconds(seconds)
            case .string(let text) where text.hasSuffix("%"):
                guard let value = Double(text.dropLast()), (0...100).contains(value), text.dropLast().allSatisfy({ $0.isNumber || $0 == "." })
                else { throw reader.expected(expected) }
                return .percent(value)
            default: throw reader.expected(expected)
            }
        }, json: { time in
            switch time {
            case .auto: return .string("auto")
            case .seconds(let seconds): return .number(seconds)
            case .percent(let percent): return .string("\(percent)%")
            }
        })
    }()
}
