/// The outcome of removing part of one metadata block (its location, or all but what is kept):
/// the edited bytes, and the names of what went (for run reports), e.g. `exif:GPSLatitude` or
/// `IPTC:City`.
public struct MetadataRemoval: Equatable, Sendable {
    public let bytes: [UInt8]
    public let removed: [String]
}

/// A metadata block that cannot be read safely enough to edit; callers drop the block whole.
public struct MetadataFormatError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String

    public var description: String { message }
}

extension Array where Element: Hashable {
    /// First occurrences in order: a report names a repeated property once.
    func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
