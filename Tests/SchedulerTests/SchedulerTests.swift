import Foundation
import Scheduler
import TestSupport
import XCTest

/// Fake work: no libvips, just costs, sleeps and counters.
struct FakeJob: ScheduledJob {
    let id: Int
    let estimatedBytes: Int
    var milliseconds = 5
    var fails = false
}

/// Watches jobs from inside the work closure: what runs at once and what it reserved.
final class InFlightProbe: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var running: [Int: Int] = [:]
    private(set) var maxRunning = 0
    private(set) var maxBytes = 0
    private(set) var finished: [Int] = []
    private(set) var failures = 0
    /// Jobs that had company while a job over the budget was running.
    private(set) var giantCompany: [Int] = []

    func run(_ job: FakeJob, budget: Int) {
        lock.lock()
        running[job.id] = job.estimatedBytes
        maxRunning = max(maxRunning, running.count)
        maxBytes = max(maxBytes, running.values.reduce(0, +))
        if running.values.contains(where: { $0 > budget }), running.count > 1 { giantCompany.append(job.id) }
        lock.unlock()
        usleep(UInt32(job.milliseconds * 1000))
        lock.lock()
        running[job.id] = nil
        if job.fails { failures += 1 }
        finished.append(job.id)
        lock.unlock()
    }
}

final class SchedulerTests: XCTestCase {
    /// Runs the scheduler on a background thread so a deadlock fails the test instead of hanging it.
    func runWithDeadline(_ scheduler: Scheduler, _ jobs: [FakeJob], probe: InFlightProbe, seconds: Double = 20,
                         file: StaticString = #filePath, line: UInt = #line) -> Int {
        let done = expectation(description: "run returns")
        let admitted = Counter()
        Thread.detachNewThread {
            admitted.add(scheduler.run(jobs) { probe.run($0, budget: scheduler.memoryBudget) })
            done.fulfill()
        }
        wait(for: [done], timeout: seconds)
        return admitted.value
    }

    func testNeverMoreThanConcurrencyInFlight() {
        let scheduler = Scheduler(concurrency: 3, memoryBudget: 1 << 40)
        let probe = InFlightProbe()
        let jobs = (0..<60).map { FakeJob(id: $0, estimatedBytes: 1, milliseconds: 1 + $0 % 4) }
        XCTAssertEqual(runWithDeadline(scheduler, jobs, probe: probe), 60)
        XCTAssertEqual(probe.finished.count, 60)
        XCTAssertEqual(probe.maxRunning, 3, "the limit is reached and never passed")
    }

    func testSumOfAdmittedEstimatesNeverExceedsTheBudget() {
        let scheduler = Scheduler(concurrency: 8, memoryBudget: 100)
        let probe = InFlightProbe()
        var generator = SplitMix(seed: 42)
        let jobs = (0..<200).map { FakeJob(id: $0, estimatedBytes: 10 + Int(generator.next() % 51), milliseconds: 1 + Int(generator.next() % 3)) }
        XCTAssertEqual(runWithDeadline(scheduler, jobs, probe: probe), 200)
        XCTAssertLessThanOrEqual(probe.maxBytes, 100)
        XCTAssertGreaterThan(probe.maxRunning, 1, "jobs that fit together do run together")
        XCTAssertEqual(scheduler.reservedBytes, 0)
    }

    func testAGiantItemRunsAlone() {
        let scheduler = Scheduler(concurrency: 4, memoryBudget: 100)
        let probe = InFlightProbe()
        let costs = [30, 30, 500, 30, 30, 900, 30, 30, 30]
        let jobs = costs.enumerated().map { FakeJob(id: $0, estimatedBytes: $1, milliseconds: 10) }
        XCTAssertEqual(runWithDeadline(scheduler, jobs, probe: probe), costs.count)
        XCTAssertEqual(probe.giantCompany, [], "nothing ran beside a job larger than the budget")
        XCTAssertGreaterThan(probe.maxRunning, 1)
    }

    func testNoDeadlockWhenEveryItemIsBiggerThanTheBudget() {
        let scheduler = Scheduler(concurrency: 4, memoryBudget: 100)
        let probe = InFlightProbe()
        let jobs = (0..<12).map { FakeJob(id: $0, estimatedBytes: 1000 + $0, milliseconds: 2) }
        XCTAssertEqual(runWithDeadline(scheduler, jobs, probe: probe), 12)
        XCTAssertEqual(probe.finished.count, 12)
        XCTAssertEqual(probe.maxRunning, 1)
    }

    func testFailuresReleaseTheirBudget() {
        // Each job needs the whole budget: if a failed job kept its reservation, the next would wait forever.
        let scheduler = Scheduler(concurrency: 2, memoryBudget: 100)
        let probe = InFlightProbe()
        let jobs = (0..<20).map { FakeJob(id: $0, estimatedBytes: 100, milliseconds: 1, fails: $0 % 2 == 0) }
        XCTAssertEqual(runWithDeadline(scheduler, jobs, probe: probe), 20)
        XCTAssertEqual(probe.failures, 10)
        XCTAssertEqual(scheduler.reservedBytes, 0)
    }

    func testCancellationStopsAdmittingAndReleasesTheBudget() {
        let scheduler = Scheduler(concurrency: 2, memoryBudget: 100)
        let probe = InFlightProbe()
        let jobs = (0..<100).map { FakeJob(id: $0, estimatedBytes: 40, milliseconds: 20) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { scheduler.cancel() }
        let admitted = runWithDeadline(scheduler, jobs, probe: probe)
        XCTAssertLessThan(admitted, 100)
        XCTAssertEqual(probe.finished.count, admitted, "every admitted job finished before run returned")
        XCTAssertEqual(scheduler.reservedBytes, 0)
        XCTAssertTrue(scheduler.isCancelled)
    }

    func testJobsArePulledLazily() {
        // A listing of a million files must not be read ahead: the scheduler pulls a job only when it can admit it.
        let scheduler = Scheduler(concurrency: 2, memoryBudget: 1 << 30)
        let pulled = Counter(), started = Counter(), maxAhead = Counter()
        let jobs = (0..<40).lazy.map { id -> FakeJob in
            pulled.add(1)
            maxAhead.raise(to: pulled.value - started.value)
            return FakeJob(id: id, estimatedBytes: 1, milliseconds: 2)
        }
        scheduler.run(jobs) { _ in
            started.add(1)
            usleep(2000)
        }
        XCTAssertEqual(pulled.value, 40)
        XCTAssertLessThanOrEqual(maxAhead.value, 3, "at most the running jobs plus the one waiting for a slot")
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    var value: Int { lock.lock(); defer { lock.unlock() }; return current }
    func add(_ amount: Int) { lock.lock(); current += amount; lock.unlock() }
    func raise(to candidate: Int) { lock.lock(); current = max(current, candidate); lock.unlock() }
}
