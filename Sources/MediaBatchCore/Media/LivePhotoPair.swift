/// How an item belongs to a Live Photo: which half it is and where the other half is.
public struct LivePhotoPair: Codable, Equatable, Sendable {
    public enum Role: String, Codable, Sendable {
        case still, video
    }

    public let role: Role
    /// The other half, relative to the input root.
    public let partner: String
    /// The identifier both halves carry; nil when they were paired by name because neither
    /// carries one.
    public let contentIdentifier: String?
}
