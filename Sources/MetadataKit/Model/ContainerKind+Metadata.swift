import MediaFormats

extension ContainerKind {
    /// The reader and writer of this container's metadata blocks; nil for movies, whose
    /// location `MovieLocationEditor` removes in place.
    public var metadata: MetadataContainer.Type? {
        switch self {
        case .jpeg: return JPEGMetadata.self
        case .png: return PNGMetadata.self
        case .webp: return WebPMetadata.self
        case .tiff: return TIFFMetadata.self
        case .heif: return HEIFMetadata.self
        case .jxl: return JXLMetadata.self
        case .cr3: return CR3Metadata.self
        case .quickTime, .matroska: return nil
        }
    }
}
