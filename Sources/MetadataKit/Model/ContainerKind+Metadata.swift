import MediaFormats

/// How MetadataKit reads and edits one container kind: a still's blocks, or a movie's location.
public enum ContainerMetadata {
    /// EXIF, XMP, IPTC and Photoshop blocks, read, written into an encoder's file and edited in place.
    case blocks(MetadataContainer.Type)
    /// A movie's location, found and removed in place.
    case movie(MovieContainer.Type)

    public var blocks: MetadataContainer.Type? {
        if case .blocks(let container) = self { return container }
        return nil
    }

    public var movie: MovieContainer.Type? {
        if case .movie(let container) = self { return container }
        return nil
    }
}

extension ContainerKind {
    /// The reader and editor of this container's metadata.
    public var metadata: ContainerMetadata {
        switch self {
        case .jpeg: return .blocks(JPEGMetadata.self)
        case .png: return .blocks(PNGMetadata.self)
        case .webp: return .blocks(WebPMetadata.self)
        case .tiff: return .blocks(TIFFMetadata.self)
        case .heif: return .blocks(HEIFMetadata.self)
        case .jxl: return .blocks(JXLMetadata.self)
        case .cr3: return .blocks(CR3Metadata.self)
        case .quickTime: return .movie(MovieLocationEditor.self)
        case .matroska: return .movie(MatroskaLocationEditor.self)
        }
    }
}

/// A movie container: where its location lies, and a copy without it, every sample kept.
public protocol MovieContainer {
    /// Where `inspect` says the location was found ("QuickTime", "Matroska tags").
    static var locationPlace: String { get }
    /// Whether the file at `path` carries a location; `header` is its QuickTime metadata, read
    /// with its header (nil where it is not QuickTime or could not be read).
    static func carriesLocation(path: String, header: MovieMetadata?) -> Bool
    /// Writes `output` as a copy of `input` without its location; a file without any is copied
    /// unchanged. `output` is overwritten: point it at a temporary path and rename.
    ///
    /// - Throws: `MovieFileError` when the file cannot be walked or edited in place.
    static func writeWithoutLocation(from input: String, to output: String) throws -> MovieLocationReport
}

extension MovieLocationEditor: MovieContainer {
    public static let locationPlace = "QuickTime"

    /// What its `moov` says, read with the header: a `moov` the box walker rejects carries none to remove.
    public static func carriesLocation(path: String, header: MovieMetadata?) -> Bool {
        header?.carriesLocation ?? false
    }
}

extension MatroskaLocationEditor: MovieContainer {
    public static let locationPlace = "Matroska tags"

    public static func carriesLocation(path: String, header: MovieMetadata?) -> Bool {
        carriesLocation(path: path)
    }
}
