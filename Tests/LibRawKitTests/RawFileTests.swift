import Foundation
@testable import LibRawKit
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// LibRaw on DNGs it really develops (made from a real photo, see `DevelopableDNG`): the header
/// facts without unpacking, the develop against `dcraw_emu`'s, the preview's bytes against
/// exiftool's, and failures as typed codes.
final class RawFileTests: XCTestCase {
    private static let folder = Fixtures.temporaryFolder()
    /// 1200×900 as stored, orientation 6, a 1024 px preview that carries orientation 6 itself.
    private static let sideways = folder.appendingPathComponent("sideways.dng")

    override class func setUp() {
        try! Vips.start()
        try! DevelopableDNG.write(to: sideways, width: 1200, orientation: 6, preview: 1024, previewOrientation: 6, gps: true)
    }

    func testFactsComeFromTheHeadersAlone() throws {
        let facts = try RawFile(path: Self.sideways.path).facts
        XCTAssertEqual(facts.raw, .init(width: 1200, height: 900))
        XCTAssertEqual(facts.developed, .init(width: 1200, height: 900), "as stored, before LibRaw turns it")
        XCTAssertEqual(facts.orientation, 6, "LibRaw's flip 6")
        XCTAssertEqual(facts.preview, .init(width: 1024, height: 768), "the SubIFD preview, not IFD0's 256 px thumbnail")
    }

    /// Full and half size against dcraw_emu -w -o 1 -q 3 (-h): same size, upright, within a level.
    func testTheDevelopIsDcrawEmusUprightAtFullAndHalfSize() throws {
        for halfSize in [false, true] {
            let developed = try RawFile(path: Self.sideways.path).develop(halfSize: halfSize)
            let image = try developed.withSamples { try VImage.decoded(copying: $0, width: developed.width, height: developed.height, bands: 3) }
            let reference = try DevelopableDNG.reference(Self.sideways.path, halfSize: halfSize)
            XCTAssertEqual([image.width, image.height], halfSize ? [450, 600] : [900, 1200], "upright: portrait")
            XCTAssertEqual([image.width, image.height], [reference.width, reference.height])
            XCTAssertEqual(developed.bands, 3)
            XCTAssertLessThanOrEqual(try image.meanAbsoluteDifference(from: reference), 1, "half size \(halfSize)")
            // The photo itself, not a flat field: its mean is far from black and white.
            XCTAssertEqual(try image.bandMeans().reduce(0, +) / 3, 118, accuracy: 30)
        }
    }

    func testThePreviewIsTheEmbeddedJPEGByteForByte() throws {
        let preview = try RawFile(path: Self.sideways.path).previewJPEG()
        let extracted = Self.folder.appendingPathComponent("sideways_preview.jpg")
        XCTAssertEqual(try runProcess("exiftool", ["-b", "-PreviewImage", "-w", "%d%f_preview.jpg", Self.sideways.path]).exitCode, 0)
        XCTAssertEqual(preview, Array(try Data(contentsOf: extracted)))
        XCTAssertEqual(Array(preview.prefix(2)), [0xFF, 0xD8])
    }

    /// Return codes, never LibRaw's words: a JPEG is no RAW; a RAW cut off opens (its headers are
    /// whole) and fails to unpack.
    func testFailuresAreTypedCodes() throws {
        XCTAssertThrowsError(try RawFile(path: Fixtures.sample("jpeg/apple_iphone_4.jpg"))) { error in
            XCTAssertEqual((error as? LibRawError)?.code, .fileUnsupported)
        }
        let cut = Self.folder.appendingPathComponent("cut.dng")
        try DevelopableDNG.write(to: cut, preview: 512, truncate: 0.5)
        let file = try RawFile(path: cut.path)
        XCTAssertEqual(file.facts.preview, .init(width: 512, height: 384))
        XCTAssertThrowsError(try file.develop(halfSize: false)) { error in
            XCTAssertEqual((error as? LibRawError)?.code, .ioError, "\(error)")
        }
        XCTAssertEqual(try RawFile(path: cut.path).previewJPEG().count > 1000, true, "the preview is still there")
    }
}
