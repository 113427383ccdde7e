import XCTest
final class PipelineModelTestsSmoke: XCTestCase { func testNothing() {} }
