import XCTest
final class mediabatchTestsSmoke: XCTestCase { func testNothing() {} }
