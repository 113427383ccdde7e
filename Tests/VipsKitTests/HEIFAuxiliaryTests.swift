import Foundation
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

final class HEIFAuxiliaryTests: XCTestCase {
    static let appleGainMap = "urn:com:apple:photo:2020:aux:hdrgainmap"
    let pug = Fixtures.sample("heic/pug.heic")

    override class func setUp() {
        try! Vips.start()
    }

    /// pug.heic (iPhone 13 Pro) has Apple's gain map and a depth map; depth is left out.
    func testTypesListTheGainMapAndLeaveDepthOut() throws {
        XCTAssertEqual(try HEIFAuxiliary.types(path: pug), [Self.appleGainMap])
    }

    /// pillow-heif 1.8.1 (libheif 1.23.6), `get_aux_image(52).to_pillow()`, measured 2016×1512 "L"
    /// with a mean of 39.5029 (samples 0–102): the same pixels from an independent reader.
    func testTheGainMapIsEightBitGrayAtHalfThePrimarysSize() throws {
        let primary = try VImage.open(pug)
        let gainMap = try XCTUnwrap(HEIFAuxiliary.image(path: pug, type: Self.appleGainMap))
        XCTAssertEqual([gainMap.bands, gainMap.bitsPerSample], [1, 8])
        XCTAssertEqual([gainMap.width, gainMap.height], [2016, 1512])
        XCTAssertEqual([gainMap.width * 2, gainMap.height * 2], [primary.width, primary.height])
        XCTAssertEqual(try gainMap.bandMeans()[0], 39.5029, accuracy: 0.5)
    }

    func testAFileWithoutAuxiliaryImagesHasNone() throws {
        let plain = Fixtures.sample("heic/IMG_1034.heic")
        XCTAssertEqual(try HEIFAuxiliary.types(path: plain), [])
        XCTAssertNil(try HEIFAuxiliary.image(path: plain, type: Self.appleGainMap))
        XCTAssertNil(try HEIFAuxiliary.image(path: pug, type: "urn:example:none"), "a type the file does not have")
    }

    /// libheif refuses these when reading the boxes: Invalid input (code 2), with its own
    /// message. A HEIC cut off in its image data is refused so by libheif 1.15 (Debian 12); 1.23
    /// (Debian 13) reads its boxes, which list no auxiliary image: no gain map either way.
    func testBrokenFilesThrowLibheifsError() throws {
        let truncated = Fixtures.broken.appendingPathComponent("truncated.heic").path
        if let types = try? HEIFAuxiliary.types(path: truncated) {
            XCTAssertEqual(types, [])
            XCTAssertNil(try? HEIFAuxiliary.image(path: truncated, type: Self.appleGainMap) as VImage?)
        }
        for name in ["corrupted.heic", "empty.heic"] {
            let path = Fixtures.broken.appendingPathComponent(name).path
            XCTAssertThrowsError(try HEIFAuxiliary.types(path: path), name) { error in
                let heif = error as? HEIFError
                XCTAssertEqual(heif?.code, 2, "\(name): \(error)")
                XCTAssertEqual(heif?.isUnsupported, false)
                XCTAssertFalse(heif?.message.isEmpty ?? true)
            }
            XCTAssertThrowsError(try HEIFAuxiliary.image(path: path, type: Self.appleGainMap), name)
        }
    }

    func testAMissingFileThrows() {
        XCTAssertThrowsError(try HEIFAuxiliary.types(path: "/nonexistent/x.heic")) { error in
            XCTAssertNotNil(error as? HEIFError, "\(error)")
        }
    }

    /// One context per call: threads reading at once get the same pixels.
    func testCallsFromSeveralThreadsAgree() throws {
        let expected = try XCTUnwrap(HEIFAuxiliary.image(path: pug, type: Self.appleGainMap)).pixels()
        let lock = NSLock()
        var mismatches = 0
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let pixels = try? HEIFAuxiliary.image(path: pug, type: Self.appleGainMap)?.pixels()
            if pixels != expected { lock.withLock { mismatches += 1 } }
            Vips.endWorkItem()
        }
        XCTAssertEqual(mismatches, 0)
    }

    /// Samsung's gain map (`urn:com:samsung:photo:2024:aux:hdrgainmap`, 8-bit, coded in colour) is
    /// refused as unsupported, where the corpus (`MEDIABATCH_CORPUS`, or `../shared/corpus`) is.
    func testSamsungsColourGainMapIsUnsupported() throws {
        let samsung = try Fixtures.corpusFile("heic/samsung_200MP.heic")
        let type = "urn:com:samsung:photo:2024:aux:hdrgainmap"
        XCTAssertEqual(try HEIFAuxiliary.types(path: samsung), [type])
        XCTAssertThrowsError(try HEIFAuxiliary.image(path: samsung, type: type)) { error in
            XCTAssertEqual((error as? HEIFError)?.isUnsupported, true, "\(error)")
        }
    }
}
