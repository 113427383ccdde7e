import XCTest
final class MediaBatchCoreTestsSmoke: XCTestCase { func testNothing() {} }
