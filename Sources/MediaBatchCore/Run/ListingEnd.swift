import Foundation

/// A run's items, noticing when the listing hands out its last: from then on, the items still to
/// run are the batch's tail, and nothing waits behind them for a CPU (see `ItemJob.isTail`). It
/// lists one item ahead, so that the last is known to be the last when it is handed out.
final class ListingEnd<Base: Sequence>: Sequence, @unchecked Sendable {
    private let base: Base
    private let lock = NSLock()
    private var hasEnded = false

    init(_ base: Base) {
        self.base = base
    }

    /// Whether every item has been handed out.
    var ended: Bool { lock.withLock { hasEnded } }

    func makeIterator() -> AnyIterator<Base.Element> {
        var iterator = base.makeIterator()
        var upcoming: Base.Element?
        var started = false
        return AnyIterator { [self] in
            if !started {
                started = true
                upcoming = listed(&iterator)
            }
            guard let current = upcoming else { return nil }
            upcoming = listed(&iterator)
            return current
        }
    }

    /// The next item, noting when there is none.
    private func listed(_ iterator: inout Base.Iterator) -> Base.Element? {
        let next = iterator.next()
        if next == nil { lock.withLock { hasEnded = true } }
        return next
    }
}
