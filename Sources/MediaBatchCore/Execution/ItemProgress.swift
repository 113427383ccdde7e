import Foundation

/// How far a long item's work has gone (a movie's renditions: frames done of those expected), for
/// the progress line. Reported where the work runs: in the run's own process straight into this
/// registry; in a worker, sent on to the run as an interim reply (see `WorkerMessage.Reply.progress`).
public final class ItemProgress: @unchecked Sendable {
    public struct Entry: Codable, Equatable, Sendable {
        /// The input, relative to the input root.
        public let item: String
        /// What is being made ("h264").
        public let work: String
        public let done: Int
        public let total: Int?
    }

    public static let shared = ItemProgress()
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    /// Where this process's reports go instead of the registry: a worker's line to its run.
    private var sink: (@Sendable (Entry) -> Void)?

    /// Items in flight that have said how far they are, by input.
    public var inFlight: [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return entries.values.sorted { $0.item < $1.item }
    }

    func report(_ entry: Entry) {
        lock.lock()
        let sink = self.sink
        if sink == nil { entries[entry.item] = entry }
        lock.unlock()
        sink?(entry)
    }

    /// The item is done (or failed): it has no progress to show.
    func finish(_ item: String) {
        lock.lock()
        entries[item] = nil
        lock.unlock()
    }

    func sendReports(to sink: @escaping @Sendable (Entry) -> Void) {
        lock.lock()
        self.sink = sink
        lock.unlock()
    }
}
