import XCTest
final class SchedulerTestsSmoke: XCTestCase { func testNothing() {} }
