import Foundation
@testable import MediaBatchCore
import TestSupport
import XCTest

/// Claims kept as hashes and offsets into a log still name the exact holder of a taken output,
/// and a log that cannot be written loses no claim.
final class OutputClaimsTests: XCTestCase {
    private func assertClaims(_ claims: OutputClaims, file: StaticString = #filePath, line: UInt = #line) {
        for index in 0..<5_000 {
            XCTAssertNil(claims.claim(["out/\(index).jpg", "out/\(index).webp"], for: "in/\(index).heic"), file: file, line: line)
        }
        let taken = claims.claim(["out/new.jpg", "out/4711.webp"], for: "in/4711.jpg")
        XCTAssertEqual(taken?.output, "out/4711.webp", file: file, line: line)
        XCTAssertEqual(taken?.holder, "in/4711.heic", file: file, line: line)
        // A refused claim takes none of its outputs.
        XCTAssertNil(claims.claim(["out/new.jpg"], for: "in/other.jpg"), file: file, line: line)
        XCTAssertEqual(claims.claim(["out/new.jpg"], for: "in/third.jpg")?.holder, "in/other.jpg", file: file, line: line)
    }

    func testATakenOutputNamesItsHolderFromTheLog() throws {
        let log = Fixtures.temporaryFolder().appendingPathComponent("claims.bin")
        var claims: OutputClaims? = OutputClaims(log: log)
        assertClaims(claims!)
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int)
        XCTAssertGreaterThan(size, 10_000 * 20, "the paths are in the log")
        claims = nil
        XCTAssertFalse(FileManager.default.fileExists(atPath: log.path), "the log goes with the claims")
    }

    func testClaimsTheLogCannotTakeAreKeptInMemory() {
        assertClaims(OutputClaims(log: URL(fileURLWithPath: "/nonexistent-\(getpid())/claims.bin")))
    }

    func testAnOutputAnEarlierRunWroteForAnotherInputIsTaken() {
        let claims = OutputClaims(log: Fixtures.temporaryFolder().appendingPathComponent("claims.bin")) { $0.map { $0 == "a.jpg" ? "a.heic" : nil } }
        XCTAssertEqual(claims.claim(["a.jpg"], for: "a.png")?.holder, "a.heic")
        XCTAssertNil(claims.claim(["a.jpg"], for: "a.heic"), "its own output")
    }
}
