import LibAVKit
import LibRawKit
import MediaFormats
import PipelineModel
import RunState
import VipsKit

/// One item as the stages see it: what the run knows of the input, and its headers, read once
/// when first asked for. Stages read it and never change it (but `write`, which leaves the photo it
/// rendered for `PhotoReader`s); what they decide goes into the item's `ItemPlan`, and `write`
/// makes the plan's outputs from it.
final class ItemContext {
    let input: InputItem
    /// The run's limits and folders.
    let environment: RunEnvironment
    /// Sniffed from the file's bytes.
    let format: MediaFormat
    let bytesIn: Int
    /// See `ItemJob.isTail`: the pixel phase's job says (set before the stages run: the run may keep
    /// a context from the header phase, when it was not known).
    var isTail = false
    /// The smallest picture `write` encoded of the whole photo, squeezed to 64 × 64, for `PhotoReader`s.
    var renderedPhoto: VImage?
    /// When it was listed (see `ItemJob.listedModified`).
    private let listedModified: Int64?
    /// SHA-256 of the input, for `{hash:N}`: the run's own (it records it), or, in a dry run,
    /// read only when a path asks for it; empty if the file can no longer be read.
    private(set) lazy var contentHash: String = knownHash ?? (try? ContentHash.ofFile(atPath: input.path)) ?? ""
    private let knownHash: String?
    /// Read when a stage first asks (see `ItemHeader`), once: the header phase always does; a
    /// pixel phase that only copies the file never does. `decode` fails the item with its failure.
    private(set) lazy var header: Result<ItemHeader, StageFailure> = Result { try ItemHeader(path: input.path, format: format) }.mapError {
        $0 as? StageFailure ?? StageFailure(.decodeFailed, "\($0)")
    }
    /// What the filter decides on, classified from the header and the files beside it.
    private(set) lazy var facts: MediaFacts = MediaClassifier.facts(of: input, format: format, header: try? header.get(),
                                                                    sidecars: sidecarFacts, timeZone: environment.timeZone)
    /// A Live Photo movie's still, classified from its header: what the movie goes along with and is dated
    /// by. Nil for anything else, or a still that has vanished since it was paired.
    private(set) lazy var stillFacts: MediaFacts? = {
        guard let pair = input.livePhoto, pair.role == .video else { return nil }
        let still = InputItem(root: input.root, relativePath: pair.partner, livePhoto: LivePhotoPair(
            role: .still, partner: input.relativePath, contentIdentifier: pair.contentIdentifier))
        guard let format = (try? FormatSniffer.format(of: still.path)) ?? nil else { return nil }
        return MediaClassifier.facts(of: still, format: format, header: try? ItemHeader(path: still.path, format: format),
                                     timeZone: environment.timeZone)
    }()
    /// What the item's sidecars say, read once.
    private(set) lazy var sidecarFacts = SidecarFacts.read(input.sidecars, root: input.root)

    init(_ job: ItemJob, _ environment: RunEnvironment) {
        input = job.input
        self.environment = environment
        format = job.format
        bytesIn = job.bytesIn
        listedModified = job.listedModified
        knownHash = job.contentHash
    }

    /// The image's header and metadata; nil for a movie, a camera RAW or an unreadable header.
    var image: (image: VImage, metadata: ImageMetadata)? {
        guard case .image(let image, let metadata, _)? = try? header.get().content else { return nil }
        return (image, metadata)
    }

    /// An image's or a camera RAW's metadata, every copy merged; nil for a movie.
    var metadata: ImageMetadata? { try? header.get().metadata }

    /// What LibRaw read of a camera RAW's headers; nil for anything else, or a RAW LibRaw cannot open.
    var rawFacts: RawFacts? {
        guard case .cameraRaw(let facts, _, _)? = try? header.get().content else { return nil }
        return try? facts.get()
    }

    /// Why a camera RAW's sensor data cannot be developed, known from its header: it is cut off.
    var rawCutOff: String? {
        guard case .cameraRaw(_, _, let cutOff)? = try? header.get().content else { return nil }
        return cutOff
    }

    /// A movie's probe; nil for a still, or a movie whose header cannot be read.
    var video: VideoProbe? {
        guard case .video(let probe, _)? = try? header.get().content else { return nil }
        return probe
    }

    /// The file's primary picture as its header describes it (a RAW's: a full develop, which
    /// LibRaw turns upright, as its preview is turned: see `RawPicture`); nil for a movie.
    private(set) lazy var pictureSource: Picture.Source? = {
        if let raw = rawFacts {
            let turned = (5...8).contains(raw.orientation)
            return Picture.Source(stored: PixelSize(width: turned ? raw.developed.height : raw.developed.width,
                                                    height: turned ? raw.developed.width : raw.developed.height),
                                  orientation: 1, needsConversion: false, hasProfile: false)
        }
        guard case .image(let image, _, let structure)? = try? header.get().content else { return nil }
        let profile = image.iccProfile
        // Frames are turned as one tall image would be: an animation that asks to be turned is its first frame.
        let animation = format.row.animates && image.orientation == 1 && image.pageCount > 1
        return Picture.Source(stored: PixelSize(width: image.width, height: image.height), orientation: image.orientation,
                              needsConversion: image.isCMYK || profile.map { !ICCProfile.isSRGB($0) } ?? false,
                              hasProfile: profile != nil, gainMap: structure.gainMap,
                              decoder: format == .heic ? .heif(HEIFDecoding.choose(path: input.path)) : .libvips,
                              frames: animation ? image.pageCount : 1, frameDelays: animation ? image.frameDelays : [])
    }()
}

extension ItemContext {
    /// What decoding the pictures `plan` holds costs, for `CostEstimator`; nil for a movie (a poster's is `PosterStage`'s).
    func costHeader(_ plan: ItemPlan) -> CostEstimator.ImageHeader? {
        if let source = plan.outputs.lazy.compactMap(\.picture).first?.source, source.raw != nil { return .init(format: format, raw: source) }
        return image.map { .init(format: format, image: $0.image, plan: plan) }
    }

    /// Fails the item when its input is no longer the file that was listed (size or modification
    /// time): outputs read from a file being rewritten or truncated are not published.
    func requireUnchanged() throws {
        guard let listedModified else { return }
        guard let now = FileStamp(path: input.path) else {
            throw StageFailure(.inputChanged, "the input vanished while it was being read")
        }
        guard now.size == Int64(bytesIn), now.modifiedNanoseconds == listedModified else {
            throw StageFailure(.inputChanged, "the input changed while it was being read (\(bytesIn) bytes when listed, \(now.size) now)")
        }
    }
}

/// What a header stage throws when the item is not for this pipeline: skipped, not failed.
struct ItemSkipped: Error {
    let reason: String
}

extension VideoProbe {
    /// Its frames as shown (the display matrix applied); nil without a video stream.
    var shownFrame: PixelSize? {
        guard let width, let height, width > 0, height > 0 else { return nil }
        let turned = rotationClockwise == 90 || rotationClockwise == 270
        return turned ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
    }

    /// The codec of its first video stream (libavcodec's name: "h264", "hevc"…).
    var videoCodec: String? {
        streams.first { $0.kind == "video" }?.codec
    }

    /// Its streams, as "video h264", "audio aac".
    var streamNames: [String] {
        streams.map { "\($0.kind) \($0.codec)" }
    }

    /// Its size as shown, length and codec; nil without a video stream.
    var facts: MovieFacts? {
        shownFrame.map { MovieFacts(size: $0, seconds: durationSeconds, codec: videoCodec) }
    }
}
