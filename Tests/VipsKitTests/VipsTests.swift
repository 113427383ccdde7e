import Foundation
@testable import VipsKit
import XCTest

final class VipsTests: XCTestCase {
    override class func setUp() {
        try! Vips.start()
    }

    /// libvips would load every module in its folder; mediabatch loads those of its codecs only
    /// (`VImageTests` checks their loaders are there): Debian's PDF and OpenSlide modules, and the
    /// libraries they bring (poppler, NSS, OpenSlide), are never mapped.
    func testOnlyTheModulesOfMediabatchsCodecsAreLoaded() throws {
        let folder = "/usr/lib/x86_64-linux-gnu/vips-modules-\(Vips.version)"
        guard FileManager.default.fileExists(atPath: "\(folder)/vips-poppler.so") else {
            throw XCTSkip("this libvips has no PDF module in \(folder)")
        }
        // Read to its end: /proc files state no size, and Foundation's reads by size stop short.
        let mapped = String(decoding: try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(mapped.contains("/vips-heif.so"))
        XCTAssertTrue(mapped.contains("/vips-magick.so"))
        for absent in ["/vips-poppler.so", "/libpoppler", "/vips-openslide.so", "/libopenslide"] {
            XCTAssertFalse(mapped.contains(absent), absent)
        }
    }

    /// The prefix that stops libvips' own scan is set for `vips_init` alone.
    func testVIPSHOMEIsLeftAsItWas() {
        XCTAssertNotEqual(ProcessInfo.processInfo.environment["VIPSHOME"], "/nonexistent")
    }
}
