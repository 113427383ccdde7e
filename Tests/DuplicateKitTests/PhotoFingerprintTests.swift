@testable import DuplicateKit
import XCTest

final class PhotoFingerprintTests: XCTestCase {
    /// The whole grid summed directly is the summed-area table's grid of the whole window, to the
    /// bit: the hashes (made from the table) and the distances (from the grid) agree.
    func testTheWholeGridIsTheTablesToTheBit() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let picture = (0..<PhotoFingerprint.pictureSide * PhotoFingerprint.pictureSide).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let table = SummedArea(picture, side: PhotoFingerprint.pictureSide).grid(over: PhotoFingerprint.windows[0], side: PhotoFingerprint.side)
            XCTAssertEqual(PhotoFingerprint.wholeGrid(picture), table)
        }
    }
}
