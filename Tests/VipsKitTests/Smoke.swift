import XCTest
final class VipsKitTestsSmoke: XCTestCase { func testNothing() {} }
