@testable import MetadataKit
import XCTest

final class ByteReadingTests: XCTestCase {
    func testReadsBothByteOrdersAndRefusesShortInput() {
        let bytes: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        XCTAssertEqual(bytes.uint16(at: 0), 0x1234)
        XCTAssertEqual(bytes.uint16(at: 0, bigEndian: false), 0x3412)
        XCTAssertEqual(bytes.uint32(at: 0), 0x1234_5678)
        XCTAssertEqual(bytes.uint32(at: 0, bigEndian: false), 0x7856_3412)
        XCTAssertNil(bytes.uint32(at: 1))
        XCTAssertNil(bytes.uint16(at: -1))
        XCTAssertEqual(bytes.fourCC(at: 0)?.count, 4)
    }

    func testWritesRoundTrip() {
        var bytes = [UInt8](repeating: 0, count: 8)
        bytes.setUInt32(0xDEAD_BEEF, at: 0, bigEndian: false)
        bytes.setUInt16(0xCAFE, at: 4)
        XCTAssertEqual(bytes.uint32(at: 0, bigEndian: false), 0xDEAD_BEEF)
        XCTAssertEqual(bytes.uint16(at: 4), 0xCAFE)
    }
}
