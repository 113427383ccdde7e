import PipelineModel

/// What happened to one item, as written to the JSON report: its `Fields`, and beside them what
/// stages read of it (`readings`, each under its stage's key: `fingerprint`).
@dynamicMemberLookup
public struct ItemResult: Codable, Equatable, Sendable {
    public internal(set) var fields: Fields
    /// What `PhotoReader` stages read of the item, by key; written beside the fields.
    public internal(set) var readings: [String: JSONValue] = [:]

    init(_ fields: Fields) {
        self.fields = fields
    }

    public subscript<T>(dynamicMember path: KeyPath<Fields, T>) -> T {
        fields[keyPath: path]
    }

    subscript<T>(dynamicMember path: WritableKeyPath<Fields, T>) -> T {
        get { fields[keyPath: path] }
        set { fields[keyPath: path] = newValue }
    }

    public init(from decoder: Decoder) throws {
        fields = try Fields(from: decoder)
        readings = try Readings.decode(from: decoder, besides: fields)
    }

    public func encode(to encoder: Encoder) throws {
        try fields.encode(to: encoder)
        try Readings.encode(readings, to: encoder)
    }
}

extension ItemResult.Fields {
    /// Files written for the item in this run: its variants but those reused, else its output.
    var outputsWritten: Int {
        guard status == .ok else { return 0 }
        return variants.map { $0.filter { !$0.reused }.count } ?? (output == nil ? 0 : 1)
    }
}

extension ItemResult {
    public enum Status: String, Codable, Sendable {
        case ok, failed, skipped
        /// `--dry-run`: the item would be processed (its `output` is where it would go).
        case planned
        /// An earlier run's output stands (input, recipe and output as it left them): nothing done.
        case unchanged
    }

    public struct ErrorInfo: Codable, Equatable, Sendable {
        public let code: ItemError.Code
        public let stage: String
        public let message: String
    }

    /// The report's own fields of an item.
    public struct Fields: Codable, Equatable, Sendable {
    /// Relative to the input root.
    public internal(set) var input: String
    public internal(set) var format: String?
    /// Every kind the item is, in the order kinds are declared; absent when it was not classified.
    public internal(set) var kinds: [MediaKind]?
    /// Set when the item is half of a Live Photo.
    public internal(set) var livePhoto: LivePhotoPair?
    /// Set when the item is a camera's RAW or the JPEG beside it.
    public internal(set) var rawJpegPair: RawJpegPair?
    public internal(set) var status: Status
    /// Why it was (or would be) done again, or `unchanged`; absent without a state database.
    public internal(set) var change: ItemChange?
    /// Relative to the output root.
    public internal(set) var output: String?
    /// Why a skipped item was skipped; a note on an item read despite its extension, or whose record failed.
    public internal(set) var reason: String?
    /// Metadata removed on the way (e.g. "EXIF GPS", "moov/udta/©xyz"); absent when none.
    public internal(set) var removedMetadata: [String]?
    /// An animation of which some output holds the first frame alone, and why ("5 frames, the first
    /// written: jpeg does not animate"); absent otherwise.
    public internal(set) var firstFrameOnly: String?
    public internal(set) var error: ErrorInfo?
    public internal(set) var bytesIn: Int
    public internal(set) var bytesOut: Int
    public internal(set) var milliseconds: Int
    /// The memory the scheduler reserved for the item.
    public internal(set) var estimatedBytes: Int?
    /// With `variants`, or with several outputs (a movie and its poster): every output of the item.
    public internal(set) var variants: [Variant]?
    /// With `variants` and a placeholder: the item's ThumbHash, base64.
    public internal(set) var placeholder: String?
    /// A camera RAW whose picture was decoded: from its preview or its develop.
    public internal(set) var rawSource: RawSource?
    /// A HEIC's decoder, where it was decoded: libavcodec (mediabatch's own loader) or libheif.
    public internal(set) var decoder: ImageDecoder?
    /// Why a HEIC went to libheif (what the loader declines, the environment's choice, or its error), or
    /// that libavcodec decoded its thumbnail item rather than the photo.
    public internal(set) var decoderReason: String?
    /// The frame threads libavcodec decoded a HEIC's tiles with: more than one only where no item
    /// waited for the CPUs (a batch's last items, a run of one photo).
    public internal(set) var decoderThreads: Int?
}

    /// One output of a `variants` item.
    public struct Variant: Codable, Equatable, Sendable {
        /// Relative to the output root.
        public let path: String
        public let format: String
        /// The size as listed in the pipeline: a number, or a box; absent for an output no `variants` sized.
        public let size: VariantSize?
        /// A video item's poster or movie; absent for a still's outputs.
        public var role: OutputRole?
        public let width: Int
        public let height: Int
        public let bytes: Int
        /// Kept as an earlier run wrote it (its recipe unchanged, the file intact).
        public let reused: Bool
        /// True where it carries an HDR gain map (Ultra HDR); absent otherwise.
        public var gainMap: Bool?
        /// A movie's video codec (libavcodec's name: "h264", "av1"); absent for pictures.
        public var codec: String?
    }
}

extension ItemResult {
    public enum ImageDecoder: String, Codable, Sendable {
        case libavcodec, libheif
    }

    /// Which decoder made a HEIC's picture, and why libheif: what `write` found, for the report.
    struct DecoderUse: Codable, Equatable, Sendable {
        let decoder: ImageDecoder
        var reason: String? = nil
        /// libavcodec's frame threads (see `HEIFPicture.tailThreads`).
        var threads: Int? = nil
    }

    /// Where a camera RAW's picture came from, and its size, upright.
    public struct RawSource: Codable, Equatable, Sendable {
        public enum Kind: String, Codable, Sendable {
            case preview, develop
        }

        public let source: Kind
        public let width: Int
        public let height: Int
        /// A develop at half the sensor's size.
        public var halfSize: Bool?
        /// A preview smaller than the stages asked (`raw: "preview"`): the longest side they asked for.
        public var asked: Int?
        /// Why the other source was not used (`auto`): it was tried first and failed.
        public var fallbackReason: String?
    }
}

extension ItemResult.ErrorInfo {
    init(_ error: ItemError) {
        self.init(code: error.code, stage: error.stage.rawValue, message: error.message)
    }
}

extension ItemResult.Variant {
    init(_ output: WrittenOutput) {
        let pixels = output.planned.variant?.pixels ?? output.planned.picture?.size ?? output.planned.movie?.size
        self.init(path: output.path, format: output.planned.formatName, size: output.planned.variant?.size, role: output.planned.role,
                  width: pixels?.width ?? 0, height: pixels?.height ?? 0,
                  bytes: output.bytes, reused: output.planned.reused, gainMap: output.planned.carriesGainMap ? true : nil,
                  codec: output.planned.movie?.codec)
    }
}

extension ItemResult {
    /// The item made its outputs but they could not be published or recorded: it failed, and
    /// names no output (those published stand, unrecorded, until the next run redoes it).
    mutating func failToRecord(_ error: ItemError) {
        fields.status = .failed
        fields.error = ErrorInfo(error)
        fields.output = nil
        fields.variants = nil
        fields.placeholder = nil
        fields.bytesOut = 0
        fields.reason = "not recorded in the state database (the next run redoes it)"
        readings = [:]
    }
}
