import Foundation
import TestSupport
@testable import VipsKit
import XCTest

/// mediabatch's resize and thumbnails (the shim's resize.c, behind `VImage.thumbnail(of:)` and
/// `resized(width:height:)`) against libvips 8.14's own `vips_resize`, `vips_thumbnail` and
/// `vips_thumbnail_image`: the same size and orientation, and the same pixels (mean absolute
/// difference under 0.5, no sample off by more than 1), whether mediabatch reduced the image
/// itself or handed it to libvips.
final class ResizeTests: XCTestCase {
    override class func setUp() {
        try! Vips.start()
    }

    /// The best loops this CPU has, in any build (a debug build's default is libvips' own passes).
    override func setUp() {
        VImage.forceReduceLevel(VImage.ReduceLevel.allCases.last)
    }

    override func tearDown() {
        VImage.forceReduceLevel(nil)
    }

    /// Photos mediabatch reduces itself: JPEG in every EXIF orientation and at 12 MP, HEIC (one
    /// turned by irot), WebP, PNG.
    static let reducedHere = ["jpeg/orientation/Landscape_1.jpg", "jpeg/orientation/Landscape_2.jpg", "jpeg/orientation/Landscape_3.jpg",
                              "jpeg/orientation/Landscape_4.jpg", "jpeg/orientation/Landscape_5.jpg", "jpeg/orientation/Landscape_6.jpg",
                              "jpeg/orientation/Landscape_7.jpg", "jpeg/orientation/Landscape_8.jpg", "livephoto/train.jpg",
                              "heic/IMG_1034.heic", "heic/iphone_xr_issue263.heic", "webp/iphone_x_exif_gps.webp"].map(Fixtures.sample)
        + ["kinds/images/screenshot_ios.png", "kinds/images/panorama_apple_customrendered6.jpg"].map { Fixtures.fixtures.appendingPathComponent($0).path }

    /// Images libvips thumbnails itself: alpha (premultiplied), several pages, animation.
    static let leftToLibvips = ["png/macos_screenshot_exif.png"].map(Fixtures.sample)
        + ["kinds/images/animated_3frames.gif", "kinds/images/animated_3frames.webp", "kinds/images/spatial_stereo_pair.avif"]
        .map { Fixtures.fixtures.appendingPathComponent($0).path }

    func testThumbnailsFitAsLibvipsMakesThem() throws {
        for path in Self.reducedHere {
            for size in [2048, 100, 17] {
                let builds = VImage.ownReduceBuilds
                let ours = try VImage.thumbnail(of: path, maxSize: size).inMemory()
                let name = "\((path as NSString).lastPathComponent) in \(size)"
                // libwebp scales to the target as it decodes, leaving nothing to reduce.
                if max(ours.width, ours.height) < size || path.hasSuffix(".webp") { XCTAssertEqual(VImage.ownReduceBuilds, builds, name) }
                else { XCTAssertGreaterThan(VImage.ownReduceBuilds, builds, "mediabatch reduced \(name)") }
                try assertSame(ours, VImage.libvipsThumbnail(of: path, width: size, height: size, exact: false), name)
            }
        }
    }

    /// Forced sizes: the aspect ratio changed either way, and an upsized axis (libvips' resize).
    func testExactThumbnailsAreLibvips() throws {
        for (index, path) in Self.reducedHere.enumerated() {
            let upright = try VImage.thumbnail(of: path, maxSize: 100_000)
            let shapes = [(upright.width / 2, upright.height / 5), (upright.width / 7 + 1, upright.height / 3),
                          (upright.width * 2, upright.height / 2)]
            // One shape per photo, in turn: each is decoded twice a shape.
            let (width, height) = shapes[index % shapes.count]
            let ours = try VImage.thumbnail(of: path, width: width, height: height).inMemory()
            let theirs = try VImage.libvipsThumbnail(of: path, width: width, height: height, exact: true)
            try assertSame(ours, theirs, "\((path as NSString).lastPathComponent) to \(width)×\(height)")
        }
    }

    func testResizedImagesAreLibvips() throws {
        for path in Self.reducedHere.prefix(9) {
            let image = try VImage.thumbnail(of: path, maxSize: 1200).inMemory()
            for (width, height) in [(image.width / 2, image.height / 2), (image.width / 5, image.height / 3), (7, 5), (image.width, image.height * 2)] {
                try assertSame(try image.resized(width: width, height: height), try image.libvipsResized(width: width, height: height),
                               "\((path as NSString).lastPathComponent) resized to \(width)×\(height)")
            }
        }
    }

    func testWhatLibvipsThumbnailsItselfIsLeftToIt() throws {
        for path in Self.leftToLibvips {
            let builds = VImage.ownReduceBuilds
            let ours = try VImage.thumbnail(of: path, maxSize: 20).inMemory()
            XCTAssertEqual(VImage.ownReduceBuilds, builds, path)
            try assertSame(ours, VImage.libvipsThumbnail(of: path, width: 20, height: 20, exact: false), path)
        }
    }

    /// vips_resize's box shrink (gap 2) before the residual reduce, scales either way, alpha.
    func testResizeIsVipsResize() throws {
        var rng = SplitMix(seed: 11)
        let photo = try VImage.open(Fixtures.sample("jpeg/orientation/Landscape_1.jpg")).inMemory()
        for bands in 1...4 {
            let image = bands == 3 ? photo : try ReduceTests.randomImage(width: 611, height: 405, bands: bands, using: &rng)
            for (hscale, vscale) in [(0.5, 0.5), (0.13, 0.3), (0.9, 0.04), (1.0, 0.7), (0.21, 1.0), (0.5, 1.5)] {
                try assertSame(try image.resized(hscale: hscale, vscale: vscale), try image.resized(hscale: hscale, vscale: vscale, libvips: true),
                               "\(bands) bands by \(hscale) × \(vscale)")
            }
        }
    }

    // MARK: - Helpers

    func assertSame(_ ours: VImage, _ theirs: VImage, _ context: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual([ours.width, ours.height, ours.bands], [theirs.width, theirs.height, theirs.bands], context, file: file, line: line)
        XCTAssertEqual(ours.orientation, theirs.orientation, context, file: file, line: line)
        let (largest, mean) = try ReduceTests.differences(ours, theirs)
        XCTAssertLessThan(mean, 0.5, context, file: file, line: line)
        XCTAssertLessThanOrEqual(largest, 1, context, file: file, line: line)
    }
}
