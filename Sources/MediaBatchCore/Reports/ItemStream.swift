import Foundation

/// Items in input order, handed to the body one at a time: from the spool after a run, or from
/// the shard reports as they are merged; what the report renderers take.
public typealias ItemStream = ((ItemResult) throws -> Void) throws -> Void
