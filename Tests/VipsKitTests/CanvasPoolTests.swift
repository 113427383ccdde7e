@testable import VipsKit
import XCTest

/// A decoded picture's buffer goes back to the pool only when libvips has finished with every
/// image made from it, and the next picture of a size it holds reuses it.
final class CanvasPoolTests: XCTestCase {
    override class func setUp() {
        try! Vips.start()
    }

    func testABufferIsReusedOnlyAfterEveryImageOverItIsGone() throws {
        let (width, height) = (640, 480)
        var first: UnsafeMutablePointer<UInt8>?, second: UnsafeMutablePointer<UInt8>?
        do {
            let cropped: VImage
            do {
                let picture = try VImage.decoded(filling: width, height: height, bands: 3) { canvas in
                    first = canvas
                    for offset in 0..<(width * height * 3) { canvas[offset] = offset % 3 == 0 ? 200 : 40 }
                }
                cropped = try picture.cropped(left: 10, top: 10, width: 100, height: 100)
            }
            let waiting = CanvasPool.waitingCount
            let other = try VImage.decoded(filling: width, height: height, bands: 3) { canvas in
                second = canvas
                memset(canvas, 7, width * height * 3)
            }
            XCTAssertEqual(CanvasPool.waitingCount, max(0, waiting - 1), "the crop still holds the first buffer")
            XCTAssertNotEqual(second, first, "a buffer in use is not handed out again")
            XCTAssertEqual(Array(try cropped.pixels().prefix(6)), [200, 40, 40, 200, 40, 40], "the crop's pixels are intact")
            XCTAssertEqual(Array(try other.pixels().prefix(3)), [7, 7, 7])
        }
        // Both came back, the newest two spares: a picture a few columns narrower takes one of them.
        var third: UnsafeMutablePointer<UInt8>?
        _ = try VImage.decoded(filling: width - 8, height: height, bands: 3) { third = $0 }
        XCTAssertTrue(third == first || third == second)
    }

    func testBuffersLargerThanASpareAreFreed() throws {
        let waiting = CanvasPool.waitingCount
        _ = try VImage.decoded(filling: 6000, height: 3000, bands: 3) { _ in }
        XCTAssertEqual(CanvasPool.waitingCount, waiting, "a 54 MB picture's buffer is not kept")
    }
}
