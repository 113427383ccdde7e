/// Why an item is done again, or that it is not: the incremental part of an item's report.
public enum ItemChange: String, Codable, Sendable, CaseIterable {
    /// No earlier run decided it.
    case new
    /// Its bytes differ from the last run's (size and time differ, and so does the hash).
    case inputChanged
    /// A stage that shapes its output, the filter, or mediabatch's output version changed.
    case pipelineChanged
    case outputMissing
    /// The output's bytes are not those the last run wrote.
    case outputAltered
    /// It failed last time: failures are always tried again.
    case failedBefore
    /// `--force`.
    case forced
    /// The last run's decision stands; nothing is read or written.
    case unchanged
}
