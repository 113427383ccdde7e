import Foundation
@testable import MediaBatchCore
import MetadataKit
import TestSupport
import XCTest

/// What `write` says of a file it cannot write: the system's reason, not Foundation's words.
final class WriteStageTests: XCTestCase {
    func testFoundationWriteErrorsGiveTheSystemsReason() throws {
        // Foundation says "There isn’t enough space"; the item's message names the errno. The JPEG
        // EXIF splice writes with Data.write, MovieLocationEditor with FileHandle.
        XCTAssertThrowsError(try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: URL(fileURLWithPath: "/dev/full"))) { error in
            XCTAssertEqual(WriteStage.systemReason(error), "No space left on device")
        }
        XCTAssertThrowsError(try MovieLocationEditor.writeWithoutLocation(from: Fixtures.sample("video/iphone6_with-gps.mov"),
                                                                          to: "/dev/full")) { error in
            XCTAssertEqual(WriteStage.systemReason(error), "No space left on device")
        }
    }
}
