import ArgumentParser
import Foundation
import MediaBatchCore

/// How `run --report` and `merge-reports` write a report.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case json
    /// One test case per item, failed items as failed tests, for CI.
    case junit

    func render(_ report: RunReport) throws -> Data {
        switch self {
        case .json: return try report.jsonData()
        case .junit: return JUnitReport.xml(report)
        }
    }
}
