import ArgumentParser
import Foundation
import MediaBatchCore

/// Reads each of a sharded run's manifests whole as `Document` and merges them (reports are
/// merged as they are read: `ShardReports`). A file that is not one, or shards that do not fit
/// together (they overlap), end the command with the reason and exit 2.
func mergeShards<Document: Decodable>(_ paths: [String], as what: String,
                                      _ merge: ([Document]) throws -> Document) throws -> Document {
    do {
        return try merge(paths.map { path in
            do {
                return try JSONDecoder().decode(Document.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw ReportMergeError(message: "\(path) is not a mediabatch \(what): \(error)")
            }
        })
    } catch let error as ReportMergeError {
        printError("error: \(error)")
        throw ExitCode(ExitStatus.invalid)
    }
}
