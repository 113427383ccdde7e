/// What `stripMetadata` does to every copy of every metadata block of every output (a movie's:
/// its location).
public enum MetadataEdit: Codable, Equatable, Sendable {
    /// Removes the named groups; what is not named stays. `stripLocation` is `[.location]`.
    case remove(Set<MetadataGroup>)
    /// Keeps only what is named; everything else goes, location always.
    case keep(Set<KeptMetadata>)

    /// Whether location goes: a keep-list never keeps it.
    public var removesLocation: Bool {
        if case .remove(let groups) = self { return groups.contains(.location) }
        return true
    }
}
