import Scheduler

/// An item after the header phase: decided already, or admitted with its job for the pixel phase.
struct PreparedItem: ScheduledJob {
    var findings: ItemFindings
    /// Set when the header phase decided the item (skipped, failed, unchanged).
    var decided: ItemResult?
    /// Set when the item runs: `job.plan` holds its outputs and cost.
    var job: ItemJob?

    var estimatedBytes: Int { job?.plan?.estimatedBytes ?? 0 }

    static func decided(_ result: ItemResult, _ findings: ItemFindings) -> PreparedItem {
        PreparedItem(findings: findings, decided: result)
    }
}
