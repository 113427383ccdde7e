import Dispatch
import Foundation

/// Something the scheduler can admit: it only needs to know what the job will cost.
public protocol ScheduledJob {
    /// Peak memory the job is expected to need while it runs, in bytes.
    var estimatedBytes: Int { get }
}

/// Runs jobs on Dispatch with at most `concurrency` in flight and the sum of their estimated
/// bytes within `memoryBudget`.
///
/// Jobs are pulled from their sequence one at a time, only when one can be admitted, so a
/// million inputs never sit in memory. Admission is first-in first-out: a job that does not fit
/// waits for running ones to finish rather than being overtaken, so a large job cannot starve.
/// A job larger than the whole budget runs alone. The scheduler knows nothing about images.
public final class Scheduler: @unchecked Sendable {
    public let concurrency: Int
    public let memoryBudget: Int

    private let condition = NSCondition()
    private var inFlight = 0
    private var bytesInFlight = 0
    private var cancelled = false
    /// One serial queue per slot. A shared concurrent queue would be capped by Dispatch at the
    /// core count on Linux; serial queues each get a thread, so `concurrency` is what runs.
    private var freeLanes: [DispatchQueue]

    public init(concurrency: Int, memoryBudget: Int) {
        precondition(concurrency >= 1 && memoryBudget >= 1)
        self.concurrency = concurrency
        self.memoryBudget = memoryBudget
        self.freeLanes = (0..<concurrency).map { DispatchQueue(label: "mediabatch.scheduler.lane\($0)", qos: .userInitiated) }
    }

    /// Memory currently reserved by running jobs.
    public var reservedBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return bytesInFlight
    }

    public var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Stops admitting jobs. Running jobs finish (they may check `isCancelled` to stop early);
    /// `run` then returns.
    public func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Runs every job of `jobs` through `work`, blocking until all admitted jobs have finished.
    /// Returns the number of jobs that were admitted (fewer than the sequence holds if cancelled).
    @discardableResult
    public func run<Jobs: Sequence>(_ jobs: Jobs, work: @escaping @Sendable (Jobs.Element) -> Void) -> Int
    where Jobs.Element: ScheduledJob {
        var admitted = 0
        var iterator = jobs.makeIterator()
        while !isCancelled, let job = iterator.next() {
            let cost = max(0, job.estimatedBytes)
            guard let lane = admit(cost) else { break }
            admitted += 1
            lane.async { [self] in
                work(job)
                release(cost, lane)
            }
        }
        waitForRunningJobs()
        return admitted
    }

    /// Waits until `cost` fits and returns the lane to run on; nil when cancelled while waiting.
    private func admit(_ cost: Int) -> DispatchQueue? {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled, !fits(cost) {
            condition.wait()
        }
        guard !cancelled else { return nil }
        inFlight += 1
        bytesInFlight += cost
        return freeLanes.removeLast()
    }

    /// A job fits when a slot is free and its cost stays within the budget, or when nothing else
    /// runs (the only way a job larger than the budget ever runs: alone).
    private func fits(_ cost: Int) -> Bool {
        guard inFlight < concurrency else { return false }
        return inFlight == 0 || bytesInFlight + cost <= memoryBudget
    }

    private func release(_ cost: Int, _ lane: DispatchQueue) {
        condition.lock()
        freeLanes.append(lane)
        inFlight -= 1
        bytesInFlight -= cost
        condition.broadcast()
        condition.unlock()
    }

    private func waitForRunningJobs() {
        condition.lock()
        while inFlight > 0 {
            condition.wait()
        }
        condition.unlock()
    }
}
