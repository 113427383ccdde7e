import Foundation
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
            let waiting = CanvasPool.waitingCapacities.count
            let other = try VImage.decoded(filling: width, height: height, bands: 3) { canvas in
                second = canvas
                memset(canvas, 7, width * height * 3)
            }
            XCTAssertEqual(CanvasPool.waitingCapacities.count, max(0, waiting - 1), "the crop still holds the first buffer")
            XCTAssertNotEqual(second, first, "a buffer in use is not handed out again")
            XCTAssertEqual(Array(try cropped.pixels().prefix(6)), [200, 40, 40, 200, 40, 40], "the crop's pixels are intact")
            XCTAssertEqual(Array(try other.pixels().prefix(3)), [7, 7, 7])
        }
        // Both came back, the newest two spares: a picture a few columns narrower takes one of them.
        var third: UnsafeMutablePointer<UInt8>?
        _ = try VImage.decoded(filling: width - 8, height: height, bands: 3) { third = $0 }
        XCTAssertTrue(third == first || third == second)
    }

    /// A picture converted to sRGB is written into a pooled buffer too, and the buffer comes back
    /// once the picture is gone: the next picture of its size gets it, the converted pixels still in it.
    func testAConvertedPictureComesBackToThePool() throws {
        let (width, height) = (300, 200)
        // Identity tables (1.14 fixed point): a sample converts to itself.
        let tables = MatrixShaperTables(input: (0..<3).flatMap { _ in (0..<256).map { Int32($0 * 16384 / 255) } },
                                        matrix: [16384, 0, 0, 0, 16384, 0, 0, 0, 16384],
                                        output: (0..<3).flatMap { _ in (0...16384).map { UInt8(($0 * 255 + 8192) / 16384) } })
        let source = try VImage.decoded(filling: width, height: height, bands: 3) { memset($0, 123, width * height * 3) }
        // Every spare taken, so that the conversion gets a buffer of its own.
        let holding = try (0..<CanvasPool.spares).map { _ in try VImage.decoded(filling: width, height: height, bands: 3) { _ in } }
        XCTAssertEqual(CanvasPool.waitingCapacities.filter { $0 >= width * height * 3 }.count, 0)
        var converted: VImage? = try source.convertedToSRGB(using: tables)
        XCTAssertEqual(Array(try XCTUnwrap(converted).pixels().prefix(3)), [123, 123, 123])
        XCTAssertEqual(converted?.iccProfile, VImage.sRGBProfile)
        converted = nil
        var found: [UInt8] = []
        _ = try VImage.decoded(filling: width, height: height, bands: 3) { found = Array(UnsafeBufferPointer(start: $0, count: 3)) }
        XCTAssertEqual(found, [123, 123, 123], "the converted picture's buffer, handed out again")
        withExtendedLifetime(holding) {}
    }

    /// A 16-bit picture (a 10-bit HEIC's, shifted up as heifload's): its samples as written, two bytes each, and
    /// RGB16 as heifload's, so that the JPEG saver scales it down to 8 bits (0x8000 is 128), not clips it (255).
    func testSixteenBitPicturesAreRGB16() throws {
        let image = try VImage.decoded(filling: 64, height: 32, bands: 3, depth: .sixteen) { canvas in
            let samples = UnsafeMutableRawPointer(canvas).assumingMemoryBound(to: UInt16.self)
            for index in 0..<(64 * 32 * 3) { samples[index] = [0x8000, 0x4000, 0xFF00][index % 3] }
        }
        XCTAssertEqual([image.bitsPerSample, image.bands], [16, 3])
        XCTAssertEqual(Array(try image.pixels().prefix(6)), [0x00, 0x80, 0x00, 0x40, 0x00, 0xFF], "little-endian 16-bit samples")
        let jpeg = NSTemporaryDirectory() + "rgb16-\(getpid()).jpg"
        defer { unlink(jpeg) }
        try Data(try image.encoded(as: .jpeg, quality: 95)).write(to: URL(fileURLWithPath: jpeg))
        let written = try VImage.decode(jpeg)
        XCTAssertEqual(written.bitsPerSample, 8)
        for (sample, expected) in zip(try written.pixels().prefix(3), [128, 64, 255]) { XCTAssertEqual(Double(sample), Double(expected), accuracy: 1) }
    }

    func testBuffersLargerThanASpareAreFreed() throws {
        _ = try VImage.decoded(filling: 6000, height: 3000, bands: 3) { _ in }
        // Not the count alone: a kept buffer would push out the oldest of a full pool.
        XCTAssertEqual(CanvasPool.waitingCapacities.filter { $0 > CanvasPool.largestSpare }, [], "a 54 MB picture's buffer is not kept")
    }
}
