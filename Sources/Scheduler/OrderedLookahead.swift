import Dispatch
import Foundation

/// `base`'s elements transformed on up to `width` threads at once, handed on in `base`'s order.
/// Elements are pulled `width` ahead of the consumer, never more, so a lazy million-element
/// sequence stays lazy; the consumer waits only for the element it asks for next. With a width
/// of 1, each element is transformed on the consumer's thread when asked for. The header phase
/// uses it to read several headers at once while claims stay in listing order.
public struct OrderedLookahead<Base: Sequence, Output>: Sequence {
    let base: Base
    let width: Int
    let transform: @Sendable (Base.Element) -> Output

    public init(_ base: Base, width: Int, transform: @escaping @Sendable (Base.Element) -> Output) {
        precondition(width >= 1)
        self.base = base
        self.width = width
        self.transform = transform
    }

    public func makeIterator() -> Iterator {
        Iterator(source: base.makeIterator(), width: width, transform: transform)
    }

    public final class Iterator: IteratorProtocol {
        private var source: Base.Iterator
        private let transform: @Sendable (Base.Element) -> Output
        /// One serial queue per lane (none for a width of 1): a shared concurrent queue is capped at
        /// the core count on Linux.
        private let lanes: [DispatchQueue]
        private var submitted = 0
        private var pending: [Slot] = []

        /// Where one element's output arrives.
        private final class Slot: @unchecked Sendable {
            let done = DispatchSemaphore(value: 0)
            var output: Output?
        }

        init(source: Base.Iterator, width: Int, transform: @escaping @Sendable (Base.Element) -> Output) {
            self.source = source
            self.transform = transform
            lanes = width == 1 ? [] : (0..<width).map { DispatchQueue(label: "mediabatch.lookahead.lane\($0)") }
        }

        public func next() -> Output? {
            guard !lanes.isEmpty else { return source.next().map(transform) }
            while pending.count < lanes.count, let element = source.next() { submit(element) }
            guard !pending.isEmpty else { return nil }
            let slot = pending.removeFirst()
            slot.done.wait()
            return slot.output
        }

        /// Lanes take elements in turn; a lane's elements run in order, so at most `width` run at once.
        private func submit(_ element: Base.Element) {
            let slot = Slot()
            pending.append(slot)
            let transform = transform
            let box = UncheckedBox(element)
            lanes[submitted % lanes.count].async {
                slot.output = transform(box.value)
                slot.done.signal()
            }
            submitted += 1
        }
    }
}

/// Hands an element to the lane that transforms it; only that lane touches it afterwards.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

extension Sequence {
    /// See `OrderedLookahead`.
    public func lookahead<Output>(_ width: Int, _ transform: @escaping @Sendable (Element) -> Output) -> OrderedLookahead<Self, Output> {
        OrderedLookahead(self, width: width, transform: transform)
    }
}
