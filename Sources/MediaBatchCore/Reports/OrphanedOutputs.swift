/// The outputs a run found without a current input.
public struct OrphanedOutputs: Codable, Equatable, Sendable {
    /// The input that produced them, relative to the input root.
    public let input: String
    /// Relative to the output root.
    public let outputs: [String]
    /// Whether they were removed (`--prune`).
    public let removed: Bool
}
