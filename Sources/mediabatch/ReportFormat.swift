import ArgumentParser
import Foundation
import MediaBatchCore

/// How `run --report` and `merge-reports` write a report.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case json
    /// One test case per item, failed items as failed tests, for CI.
    case junit

    func render(_ summary: RunSummary, _ items: ItemStream, to sink: TextSink) throws {
        switch self {
        case .json: try ReportJSON.write(summary, items: items, to: sink)
        case .junit: try JUnitReport.write(summary, items: items, to: sink)
        }
    }
}
