import LibAVKit
import MediaFormats
import PipelineModel

extension StageName {
    public static let video = StageName("video")
}

/// Gives a video item its web renditions in place of its own file: one output per codec, the
/// movie upright, fitted to `maxPixelSize`, at most `maxFps`, HDR kept or tone-mapped, location
/// removed — encoded by `write` (see `MovieRendition`), or remuxed where the streams already fit.
/// Its poster, if any, stays. Images pass through.
struct VideoStage: PipelineStage, Equatable {
    /// One per codec, in the order listed.
    var renditions: [Rendition]
    /// The longest side's maximum; nil: the source's size. Never upscaled.
    var maxPixelSize: Int?
    /// Frames per second at most: a phone's slow-motion 120 or 240 fps is more than a web page shows.
    var maxFps = 60
    /// Immich's "required" policy: streams that fit are copied.
    var reencode = Reencode.needed

    /// One web rendition of a movie.
    struct Rendition: Codable, Equatable, Hashable, Sendable {
        var codec: VideoCodec
        /// The encoder's constant rate factor (lower is better and larger).
        var quality: Int
        var audio: Audio
        var hdr: HDR

        /// Each option at its codec's default unless given.
        init(codec: VideoCodec, quality: Int? = nil, audio: Audio? = nil, hdr: HDR? = nil) {
            self.codec = codec
            self.quality = quality ?? codec.defaultQuality
            self.audio = audio ?? codec.audioCodecs[0]
            self.hdr = hdr ?? (codec.keepsHDR ? .keep : .tonemap)
        }

        /// What its output depends on besides the stage's size and rate.
        var fingerprint: String { "\(codec.rawValue),q=\(quality),audio=\(audio.rawValue),hdr=\(hdr.rawValue)" }
    }

    /// The sound of a rendition.
    enum Audio: String, CaseIterable, Codable, Sendable {
        case aac, opus
        /// The source's audio packets as they are (where the container can hold them).
        case copy
        case none
    }

    /// A movie has no gain map to drop: its HDR is tone-mapped or kept.
    enum HDR: String, CaseIterable, Codable, Sendable {
        /// PQ and HLG to SDR BT.709.
        case tonemap
        /// 10-bit, the source's transfer and primaries signalled (HEVC, AV1).
        case keep
    }

    enum Reencode: String, CaseIterable, Codable, Sendable {
        /// Streams that already fit (codec, size, rate, pixel format, upright) are copied, not re-encoded.
        case needed
        case always
    }

    static let syntax = [StageSyntax(
        spelling: "video",
        help: "Gives each video web renditions, one per codec (MP4, or WebM for vp9), upright, at most maxPixelSize and maxFps, "
            + "+faststart, location removed; streams that already fit are copied (reencode needed). Images pass through. After decode.",
        options: [Keys.codec.described, Keys.maxPixelSize.described, Keys.quality.described, Keys.maxFps.described,
                  Keys.audio.described, Keys.reencode.described, Keys.hdr.described], make: make)]

    static let placement = StagePlacement(rules: [.notAfterLast, .after(.decode)])

    var fingerprint: String {
        "video(\(renditions.map(\.fingerprint).joined(separator: ";")),maxPixelSize=\(maxPixelSize.map(String.init) ?? "*"),"
            + "maxFps=\(maxFps),reencode=\(reencode.rawValue))"
    }

    func explanation(among stages: [any Stage]) -> String? {
        let renditions = renditions.map { rendition in
            "\(rendition.codec.rawValue) in \(rendition.codec.container.rawValue) (CRF \(rendition.quality), audio \(rendition.audio.rawValue), HDR "
                + (rendition.hdr == .keep ? "kept as 10-bit" : "tone-mapped to SDR BT.709") + ")"
        }
        let size = maxPixelSize.map { "at most \($0) px on the longest side (never upscaled)" } ?? "at the movie's own size"
        let copy = reencode == .needed ? "streams that already fit are copied" : "every stream re-encoded"
        return "each movie as " + renditions.joined(separator: ", ") + ", \(size), at most \(maxFps) fps, upright, +faststart, "
            + "location removed, date, camera and Live Photo identifier kept; \(copy)"
    }

    /// Several renditions of a movie need a path that tells them apart: {codec}, {hash}, or
    /// {ext} where their containers differ. Posters are no renditions.
    static func checkNames(_ template: PathTemplate, _ reader: JSONReader, posters: Bool, stage: VideoStage?) throws {
        guard let stage, !posters else { return }
        let containers = stage.renditions.map(\.codec.container)
        guard stage.renditions.count > 1, !template.uses("codec"), !template.awaitsOutputHash,
              !(template.uses("ext") && Set(containers).count == containers.count) else { return }
        throw reader.fail("with \(stage.renditions.count) video codecs, expected {codec} in \"\(template.text)\", "
                          + "or every rendition would be written to the same file")
    }

    /// Which outputs a movie has, not how its poster is made: changing a rendition redoes the
    /// renditions only (each output's spec holds its settings).
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format, format.isVideo else { return }
        fingerprint.outputs.append(self.fingerprint)
    }

    /// A movie without a video stream (sound only) has nothing to render; one whose frames are
    /// over `maxPixels` fails before a frame is decoded, as an image would.
    func check(_ item: ItemContext) throws {
        guard item.format.isVideo else { return }
        guard let frame = item.video?.shownFrame else {
            throw StageFailure(.decodeFailed, "no video stream to render (streams: \((item.video?.streamNames ?? []).joined(separator: ", ")))")
        }
        try PosterStage.refuseFrames(frame, over: item.environment.limits.maxPixels(decoding: nil))
    }

    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        guard let video = item.video, let frame = video.shownFrame, let own = plan.outputs.firstIndex(where: { $0.role == .video }) else { return }
        let written = Self.fitted(frame, maxPixelSize)
        let renditions = self.renditions.map { rendition in
            PlannedOutput(format: rendition.codec.container, quality: rendition.quality, effort: nil, content: .rendition(
                VideoRendition(rendition: rendition, maxPixelSize: maxPixelSize, maxFps: maxFps, reencode: reencode),
                movie: MovieFacts(size: written, seconds: video.durationSeconds, codec: rendition.codec.rawValue)))
        }
        plan.outputs.replaceSubrange(own...own, with: renditions)
        // One rendition at a time: the item costs its dearest.
        plan.estimatedBytes = max(plan.estimatedBytes, self.renditions.map {
            CostEstimator.renditionBytes(source: frame, output: written, codec: $0.codec)
        }.max() ?? 0)
        plan.encodingSeconds = self.renditions.map {
            CostEstimator.encodingSeconds(frame: frame, seconds: video.durationSeconds ?? 0,
                                          fps: min(video.framesPerSecond ?? 30, Double(maxFps)), codec: $0.codec)
        }.reduce(0, +)
    }

    /// As LibAVKit sizes it.
    static func fitted(_ frame: PixelSize, _ maxPixelSize: Int?) -> PixelSize {
        let size = LibAV.renditionSize((frame.width, frame.height), maxPixelSize: maxPixelSize)
        return PixelSize(width: size.width, height: size.height)
    }
}

/// A codec a rendition is encoded with: each one's container and quality scale. Which encoder
/// library makes it is LibAVKit's to say.
enum VideoCodec: String, CaseIterable, Codable, Sendable {
    /// High profile, 8-bit 4:2:0: what every browser plays.
    case h264
    /// Tagged `hvc1`, as Apple's players require.
    case hevc
    case av1
    case vp9

    /// The container it is written in: WebM for VP9, MP4 for the others.
    var container: MediaFormat { self == .vp9 ? .webm : .mp4 }

    /// The encoder's constant rate factor scale.
    var qualityRange: ClosedRange<Int> {
        switch self {
        case .h264, .hevc: return 0...51
        case .av1: return 1...63
        case .vp9: return 0...63
        }
    }

    /// Each encoder's CRF where it gives about the same quality (FFmpeg's and SVT-AV1's guides).
    var defaultQuality: Int {
        switch self {
        case .h264: return 23
        case .hevc: return 28
        case .av1: return 35
        case .vp9: return 33
        }
    }

    /// Whether it can keep a movie's HDR: 10-bit with its transfer signalled.
    var keepsHDR: Bool { self == .hevc || self == .av1 }

    /// The audio codecs its container holds, the first its default: AAC in MP4, Opus in WebM (which holds no AAC).
    var audioCodecs: [VideoStage.Audio] { container == .webm ? [.opus] : [.aac, .opus] }
}

extension VideoStage {
    enum Keys {
        static let codec = Key("codec", ValueSyntax<VideoCodec>.choice("a video codec").oneOrDistinct(of: "codec"), .value([.h264]),
                               "h264 (libx264, High, 8-bit), hevc (libx265, hvc1), av1 (SVT-AV1) or vp9 (WebM), or a list of them: one "
                               + "rendition each, named apart by {codec} in write.path.")
        static let maxPixelSize = Key("maxPixelSize", .positiveInteger, .noDefault,
                                      "The longest side's maximum, in pixels; by default the movie's own size. Never upscaled.")
        static let quality = Key("quality", .videoQuality, .noDefault,
                                 "The encoder's CRF (lower: better, larger): a number, or one per codec ({\"av1\": 35, \"h264\": 23}); "
                                 + "by default " + VideoCodec.allCases.map { "\($0.rawValue) \($0.defaultQuality)" }.joined(separator: ", ") + ".")
        static let maxFps = Key("maxFps", .positiveInteger, .value(60), "Frames per second at most; a faster movie drops frames to this rate.")
        static let audio = Key("audio", ValueSyntax<Audio>.choice("aac, opus, copy or none"), .noDefault,
                               "aac or opus (re-encoded unless the source's already is), copy (the source's packets) or none; by default aac, "
                               + "opus in WebM (vp9).")
        static let reencode = Key("reencode", ValueSyntax<Reencode>.choice("needed or always"), .value(.needed),
                                  "needed: a stream that already fits (codec, size, rate, 8-bit 4:2:0 limited range, upright) is copied, not "
                                  + "re-encoded; always: every stream is re-encoded.")
        static let hdr = Key("hdr", ValueSyntax<HDR>.choice("tonemap or keep"), .noDefault,
                             "A PQ or HLG movie: tonemap to SDR BT.709, or keep as 10-bit with its transfer and primaries (hevc, av1); by "
                             + "default keep for hevc and av1, tonemap for h264 and vp9.")
    }

    /// Every codec's audio and HDR as its container and bit depth allow.
    @Sendable private static func make(_ object: ObjectReader) throws -> any Stage {
        let codecs = try object.value(Keys.codec)
        let quality = try videoQuality(object, for: codecs)
        let audio = try object.optionalValue(Keys.audio), hdr = try object.optionalValue(Keys.hdr)
        for codec in codecs {
            if let audio, ![.copy, .none].contains(audio), !codec.audioCodecs.contains(audio) {
                throw try object.required(Keys.audio.name).expected(
                    "\(codec.audioCodecs.map(\.rawValue).joined(separator: " or ")), copy or none: \(codec.rawValue) is written as "
                    + "\(codec.container.rawValue), which holds no \(audio.rawValue)")
            }
            if hdr == .keep, !codec.keepsHDR {
                throw try object.required(Keys.hdr.name).expected("tonemap: keep writes 10-bit HEVC or AV1, and \(codec.rawValue) is listed")
            }
        }
        return VideoStage(renditions: codecs.map { .init(codec: $0, quality: quality[$0], audio: audio, hdr: hdr) },
                          maxPixelSize: try object.optionalValue(Keys.maxPixelSize),
                          maxFps: try object.value(Keys.maxFps), reencode: try object.value(Keys.reencode))
    }

    /// `quality` for each of `codecs`: a number is the one codec's, in its range; an object names
    /// only codecs listed. A codec not given takes its default (see `Rendition`).
    private static func videoQuality(_ object: ObjectReader, for codecs: [VideoCodec]) throws -> [VideoCodec: Int] {
        guard let given = object.optional(Keys.quality.name) else { return [:] }
        switch try Keys.quality.syntax.read(given) {
        case .one(let value):
            guard codecs.count == 1 else {
                throw given.expected("one CRF per codec, as {\"\(codecs[0].rawValue)\": …}: \(codecs.count) codecs are listed and their scales differ")
            }
            guard codecs[0].qualityRange.contains(value) else {
                throw given.expected("an integer from \(codecs[0].qualityRange.lowerBound) to \(codecs[0].qualityRange.upperBound) for \(codecs[0].rawValue)")
            }
            return [codecs[0]: value]
        case .perCodec(let values):
            if let stray = values.keys.sorted(by: { $0.rawValue < $1.rawValue }).first(where: { !codecs.contains($0) }) {
                throw given.child(stray.rawValue, .string(stray.rawValue))
                    .expected("one of this stage's codecs (\(codecs.map(\.rawValue).joined(separator: ", ")))")
            }
            return values
        }
    }
}

/// `video.quality` as written: one CRF, or one per codec.
enum VideoQuality {
    case one(Int)
    case perCodec([VideoCodec: Int])
}

extension ValueSyntax where Value == VideoQuality {
    static let videoQuality: ValueSyntax = {
        let number = ValueSyntax<Int>.integer(in: 0...63)
        let perCodec = objectSchema(VideoCodec.allCases.map {
            DescribedKey(name: $0.rawValue, required: false, schema: ValueSyntax<Int>.integer(in: $0.qualityRange).schema)
        })
        return ValueSyntax(schema: ["anyOf": [number.schema, perCodec]], read: { reader in
            guard case .object = reader.value else { return .one(try number.read(reader)) }
            let object = try reader.object()
            var values: [VideoCodec: Int] = [:]
            for key in object.keys {
                let codec = try reader.child(key, .string(key)).oneOf("a video codec", VideoCodec.allCases.map { ($0.rawValue, $0) })
                values[codec] = try ValueSyntax<Int>.integer(in: codec.qualityRange).read(object.required(key))
            }
            try object.finish()
            return .perCodec(values)
        }, json: nil)
    }()
}
