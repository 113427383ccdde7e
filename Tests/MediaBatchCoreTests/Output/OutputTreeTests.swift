import Foundation
@testable import MediaBatchCore
import TestSupport
import XCTest

/// `AtomicFile` refuses what would leave the output root: relative paths that climb out or have
/// empty parts, and a temporary folder behind a symlink.
final class OutputTreeTests: XCTestCase {
    private var output: URL!
    /// Where planted symlinks point: must stay as the test left it.
    private var outside: URL!

    override func setUpWithError() throws {
        output = Fixtures.temporaryFolder("tree-output")
        outside = Fixtures.temporaryFolder("tree-outside")
    }

    private func contents(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    func testRelativePathsThatLeaveTheRootOrHaveEmptyPartsAreRefused() throws {
        for relativePath in ["../escape.jpg", "a/../../escape.jpg", "/tmp/escape.jpg", "", "./a.jpg", "a//b.jpg", "a/"] {
            var produced = false
            XCTAssertThrowsError(try AtomicFile.write(relativePath, under: output, via: output.appendingPathComponent(".mediabatch/tmp/all"), durability: .full) { _ in
                produced = true
            }, relativePath) { error in
                let failure = error as? StageFailure
                XCTAssertEqual(failure?.code, .writeFailed, relativePath)
                XCTAssertEqual(failure?.message, "refusing to write \"\(relativePath)\": expected a path relative to the output root without empty, \".\" or \"..\" components")
            }
            XCTAssertFalse(produced, relativePath)
        }
        XCTAssertEqual(try contents(output), [], "nothing created")
        XCTAssertEqual(try contents(output.deletingLastPathComponent()).filter { $0.hasPrefix("escape") }, [])
    }

    func testATemporaryFolderBehindASymlinkIsRefused() throws {
        try FileManager.default.createSymbolicLink(at: output.appendingPathComponent(".mediabatch"), withDestinationURL: outside)
        var produced = false
        XCTAssertThrowsError(try AtomicFile.write("a.jpg", under: output, via: output.appendingPathComponent(".mediabatch/tmp/all"), durability: .full) { temporary in
            produced = true
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: temporary)
        }) { error in
            XCTAssertEqual((error as? StageFailure)?.message, "refusing to write through the symlink .mediabatch in the output tree")
        }
        XCTAssertFalse(produced)
        XCTAssertEqual(try contents(outside), [], "no temporary folder or file made through the symlink")
        XCTAssertEqual(try contents(output), [".mediabatch"])
    }
}
