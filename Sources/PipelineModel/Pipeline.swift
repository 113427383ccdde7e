import Foundation
import MediaFormats

/// A validated pipeline: every option typed, every default filled in, every path absolute.
/// Stages receive these values and never re-check them.
public struct Pipeline: Sendable {
    public struct Input: Equatable, Sendable {
        /// Absolute; nil when the file leaves it to `--input`.
        public var root: URL?
        public var include: [Glob]
        public var exclude: [Glob]
        /// Formats read; anything else is skipped, and libvips' other loaders are blocked.
        public var formats: Set<MediaFormat>
        /// Whether a file whose content contradicts its extension is processed as what it is.
        public var extensionMismatch: ExtensionMismatch
        /// Whether symlinks to files and folders outside the input root (and symlinked folders
        /// inside it) are followed.
        public var followSymlinks: Bool
        /// Trusted input runs decoders in mediabatch's own process; untrusted input (the
        /// default) runs them in worker processes, so a decoder crash costs one item.
        public var trusted: Bool
        /// Which file of a camera's RAW+JPEG pair stands for the photo.
        public var rawJpegPairs: RawJpegPairs
        /// Whether the copies of a photo are all processed, or its keeper alone.
        public var duplicates: Duplicates = Defaults.duplicates
        /// Where the library was shot: gives a camera's zoneless time its offset, and a time known
        /// only in UTC its wall clock. Nil: zoneless times stay zoneless, UTC ones UTC.
        public var timeZone: TimeZone? = nil
        /// Whether the files beside a photo (XMP, AAE, Takeout JSON) travel with its outputs.
        public var sidecars: Sidecars = Defaults.sidecars
    }

    /// What becomes of the files that belong to a photo without being one.
    public enum Sidecars: String, CaseIterable, Sendable {
        /// Each is written beside its photo's outputs, renamed after them (its location removed with
        /// `stripMetadata`'s location).
        case copy
        /// None is written; they are still never items of their own.
        case ignore
    }

    /// The copies of one photo in the input (`mediabatch duplicates`' identical and samePhoto groups).
    public enum Duplicates: String, CaseIterable, Sendable {
        /// Every file is processed.
        case all
        /// The keeper is processed; its copies are skipped (`duplicateOf: KEEPER (tier)`).
        case keeper
    }

    /// A camera set to RAW+JPEG writes `IMG_0001.CR2` beside `IMG_0001.JPG` (or a HEIF): one photo,
    /// two files, which would become one output name.
    public enum RawJpegPairs: String, CaseIterable, Sendable {
        /// The camera's JPEG is processed; the RAW is skipped (`pairedWithJpeg`).
        case jpeg
        /// The RAW is processed; the JPEG is skipped (`pairedWithRaw`).
        case raw
        /// Both are processed: `write.path` must tell them apart.
        case both
    }

    public enum ExtensionMismatch: String, CaseIterable, Sendable {
        /// The item fails, naming both formats.
        case fail
        /// The item is processed as the format its bytes are, and the report says so.
        case process
    }

    public struct Output: Equatable, Sendable {
        /// Absolute; nil when the file leaves it to `--output`.
        public var root: URL?
        /// Where the manifest of every item's outputs is written, relative to the output root.
        public var manifest: String?
    }

    public struct Limits: Equatable, Sendable {
        /// Items in flight at once; nil means one per CPU this process may use.
        public var concurrency: Int?
        public var memoryBudget: ByteSize
        /// nil: by how the format decodes (`maxPixels(decoding:)`).
        public var maxPixels: Int?
        /// Larger inputs fail before any byte is decoded.
        public var maxFileBytes: ByteSize
        /// Images with more frames or pages (GIF, WebP, HEIF sequences, TIFF) fail on their header.
        public var maxFrames: Int
        /// A longer movie fails on its header (its length as the container states it).
        public var maxVideoDurationSeconds: Int
        /// A movie with more frames (length × rate, from its header) fails on its header.
        public var maxVideoFrames: Int
        /// An item still running after this long is abandoned and fails (with worker isolation;
        /// a decode stuck in mediabatch's own process cannot be stopped safely).
        public var timeoutSeconds: Int
    }

    /// What a failed item does to the rest of the run.
    public enum OnError: String, CaseIterable, Sendable {
        /// Report it and go on with the next item.
        case `continue`
        /// Stop admitting items; those in flight finish, the report is written.
        case stop
    }

    public var version: Int
    public var input: Input
    public var output: Output
    public var limits: Limits
    public var onError: OnError
    public var stages: [any Stage]

    /// The pipeline's stage of this type, if it has one.
    public func stage<S: Stage>(_ type: S.Type) -> S? {
        stages.lazy.compactMap { $0 as? S }.first
    }
}

extension Pipeline.Limits {
    /// `maxPixels`, or by default what `format`'s decoder admits: more where it streams (nil: a movie's frames).
    public func maxPixels(decoding format: MediaFormat?) -> Int {
        if let maxPixels { return maxPixels }
        if case .streaming? = format?.row.decodeCost { return Defaults.maxStreamedPixels }
        return Defaults.maxPixels
    }

    /// Under the default limits, whether a picture of `pixels` from a file of `bytes` is a
    /// decompression bomb: more pixels than a whole frame's default, and more a byte than any
    /// picture compresses to.
    public func isBomb(pixels: Int, bytes: Int) -> Bool {
        maxPixels == nil && pixels > Defaults.maxPixels && pixels > bytes * Defaults.bombPixelsPerByte
    }
}
