import MediaBatchCore

/// One stdout line per item of a `--dry-run`: what would happen to it, why, and what it is.
/// The first word is `new`, `changed`, `failed-before` (would be written), `unchanged`,
/// `filtered` or `skip`.
enum DryRunListing {
    static func line(for result: ItemResult) -> String? {
        let kinds = result.kinds.map { " [\($0.map(\.rawValue).joined(separator: ", "))]" } ?? ""
        let pair = result.livePhoto.map { " (Live Photo \($0.role.rawValue) of \($0.partner))" } ?? ""
        switch result.status {
        case .planned:
            let word: String
            switch result.change ?? .new {
            case .new: word = "new"
            case .failedBefore: word = "failed-before"
            case let change: word = "changed (\(change.rawValue))"
            }
            return "\(word) \(result.input) -> \(result.output ?? "(no output)")\(kinds)\(pair)"
        case .unchanged:
            return "unchanged \(result.input) -> \(result.output ?? "(no output)")"
        case .skipped:
            let word = result.reason?.hasPrefix("filtered") == true ? "filtered" : "skip"
            return "\(word) \(result.input): \(result.reason ?? "")"
        case .failed, .ok:
            return nil // failures are reported on stderr as in a real run
        }
    }
}
