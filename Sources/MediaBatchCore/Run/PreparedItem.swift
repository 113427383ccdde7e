import Scheduler

/// An item after the header phase: decided already, or admitted for its pixel phase.
struct PreparedItem: ScheduledJob {
    enum Decision {
        /// Skipped, failed or unchanged: nothing more runs.
        case decided(ItemResult)
        /// Its outputs stand as an earlier run wrote them (reported unchanged), to be recorded as
        /// done again, with `outputs` (nil: those recorded) and the earlier run's time.
        case standing(ItemResult, outputs: [PlannedOutput]?, milliseconds: Int)
        /// To run: the job for the pixel phase, with the outputs the run claimed and their cost.
        case admitted(ItemJob, ItemPlan)
    }

    let findings: ItemFindings
    let decision: Decision

    var estimatedBytes: Int {
        guard case .admitted(_, let plan) = decision else { return 0 }
        return plan.estimatedBytes
    }

    static func decided(_ result: ItemResult, _ findings: ItemFindings) -> PreparedItem {
        PreparedItem(findings: findings, decision: .decided(result))
    }
}
