import Foundation
import MediaFormats
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

final class VImageTests: XCTestCase {
    override class func setUp() {
        try! Vips.start()
    }

    /// Debian 12's and 13's libvips have every loader the format table reads through, JPEG XL's
    /// and ImageMagick's (a module) included; a build without one makes its files `unsupportedFormat`.
    func testThisLibvipsHasEveryLoaderTheTableReadsThrough() {
        for codec in Set(MediaFormat.inputs.compactMap(\.row.decoder)) {
            XCTAssertTrue(codec.hasLoader, "\(codec)")
        }
    }

    /// libvips 8.14's heifload attaches an ICC profile it frees with the loader: a HEIC's picture in memory
    /// keeps its own copy, the file's profile to the byte, however the freed memory is reused afterwards.
    func testAHEICsPictureInMemoryKeepsItsProfile() throws {
        let path = Fixtures.sample("heic/IMG_1034.heic")
        let profile = try XCTUnwrap(try VImage.open(path).iccProfile)
        for _ in 0..<5 {
            let picture = try VImage.thumbnail(of: path, width: 320, height: 320).inMemory()
            let churn = (0..<200).map { [UInt8](repeating: UInt8($0), count: profile.count) }
            XCTAssertEqual(churn.count, 200)
            XCTAssertEqual(picture.iccProfile, profile)
        }
    }

    func testOpenReadsTheHeaderOnly() throws {
        let heic = try VImage.open(Fixtures.sample("heic/IMG_1034.heic"))
        XCTAssertEqual([heic.width, heic.height, heic.bands, heic.bitsPerSample], [4032, 3024, 3, 8])
        XCTAssertEqual(heic.loader, "heifload")
        let jpeg = try VImage.open(Fixtures.sample("jpeg/orientation/Landscape_6.jpg"))
        XCTAssertEqual([jpeg.width, jpeg.height], [1200, 1800], "stored sideways")
        XCTAssertEqual(jpeg.orientation, 6)
        XCTAssertEqual(jpeg.loader, "jpegload")
    }

    /// A HEIF opened for its codec is read into memory first: libheif then parses its boxes there
    /// instead of asking the file for each field (hundreds of reads), and finds the same header,
    /// metadata and pixels; a damaged file fails, or not, as it does from the file.
    func testAHEIFOpenedForItsCodecIsParsedFromMemoryAlike() throws {
        let samples = [("heic/L_exif_xmp_iptc.heic", Codec.heifHEVC), ("heic/iphone_xr_issue263.heic", .heifHEVC)].map { (Fixtures.sample($0.0), $0.1) }
            + [(Fixtures.fixtures.appendingPathComponent("kinds/images/spatial_stereo_pair.avif").path, Codec.heifAV1)]
        for (path, codec) in samples {
            let (fromFile, fileReads) = try Self.counting { try VImage.open(path) }
            let (fromMemory, memoryReads) = try Self.counting { try VImage.open(path, expecting: codec) }
            XCTAssertEqual(fromMemory.loader, "heifload_source", path)
            XCTAssertLessThan(memoryReads, 20, path)
            XCTAssertGreaterThan(fileReads, 100, "\(path): read from the file a field at a time")
            XCTAssertEqual([fromMemory.width, fromMemory.height, fromMemory.bands, fromMemory.orientation],
                           [fromFile.width, fromFile.height, fromFile.bands, fromFile.orientation], path)
            for field in ["exif-data", "xmp-data", "icc-profile-data"] {
                XCTAssertEqual(fromMemory.blob(field), fromFile.blob(field), "\(path): \(field)")
            }
            XCTAssertEqual(fromMemory.string("heif-compression"), fromFile.string("heif-compression"), path)
            XCTAssertEqual(try fromMemory.pixels(), try fromFile.pixels(), path)
        }
        XCTAssertThrowsError(try VImage.open(Fixtures.fixtures.appendingPathComponent("broken/empty.heic").path, expecting: .heifHEVC))
        // Cut off: libheif 1.15 fails the read, 1.23 decodes the missing tiles as green (`ItemHeader` refuses it first).
        let truncated = Fixtures.fixtures.appendingPathComponent("broken/IMG_1034_truncated_60pct.heic").path
        switch (Result { try VImage.open(truncated).pixels() }, Result { try VImage.open(truncated, expecting: .heifHEVC).pixels() }) {
        case (.failure, .failure): break
        case (.success(let fromFile), .success(let fromMemory)): XCTAssertEqual(fromMemory, fromFile)
        case (let fromFile, let fromMemory): XCTFail("from the file \(fromFile.map(\.count)), from memory \(fromMemory.map(\.count))")
        }
        XCTAssertThrowsError(try VImage.open("/nonexistent/photo.heic", expecting: .heifHEVC)) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/photo.heic"), "\(error)")
        }
    }

    /// `body`'s result and the read() calls this process made meanwhile (`syscr` of /proc/self/io).
    private static func counting<T>(_ body: () throws -> T) throws -> (T, Int) {
        func reads() throws -> Int {
            let io = try String(contentsOfFile: "/proc/self/io", encoding: .utf8)
            return Int(io.split(separator: "\n").first { $0.hasPrefix("syscr:") }!.split(separator: " ")[1])!
        }
        let before = try reads()
        let result = try body()
        return (result, try reads() - before)
    }

    func testThumbnailFitsAppliesOrientationAndResetsIt() throws {
        let small = try VImage.thumbnail(of: Fixtures.sample("jpeg/orientation/Landscape_6.jpg"), maxSize: 512)
        XCTAssertEqual([small.width, small.height], [512, 341])
        XCTAssertEqual(small.orientation, 1)
        let notUpscaled = try VImage.thumbnail(of: Fixtures.sample("jpeg/orientation/Landscape_6.jpg"), maxSize: 4096)
        XCTAssertEqual([notUpscaled.width, notUpscaled.height], [1800, 1200])
        let heic = try VImage.thumbnail(of: Fixtures.sample("heic/iphone_xr_issue263.heic"), maxSize: 2048)
        XCTAssertEqual([heic.width, heic.height], [1536, 2048], "irot 270 applied by libheif")
    }

    /// Pipelines built and freed on several threads at once, as trusted runs do: Debian 12's ORC
    /// (0.4.33) frees compiled code without its lock, and without VImage's lock this crashed the
    /// process in most runs of this test.
    func testPipelinesBuiltAndFreedOnManyThreadsAtOnceStayIntact() throws {
        let path = Fixtures.fixtures.appendingPathComponent("kinds/images/screenshot_ios.jpg").path // 160×120: builds, not decoding, take the time
        let expected = try VImage.thumbnail(of: path, maxSize: 24).pixels()
        let failures = NSLock()
        var mismatches = 0
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for size in 0..<250 {
                // Each size is a new reduce, compiled and then freed with its image.
                let pixels = (try? VImage.thumbnail(of: path, maxSize: 24 + size % 16).pixels()) ?? []
                if size % 16 == 0, pixels != expected { failures.withLock { mismatches += 1 } }
                Vips.endWorkItem()
            }
        }
        XCTAssertEqual(mismatches, 0)
    }

    func testTruncatedJPEGFailsWhenPixelsAreComputed() throws {
        let image = try VImage.thumbnail(of: Fixtures.broken.appendingPathComponent("Landscape_1_truncated_200k.jpg").path, maxSize: 512)
        let output = Fixtures.temporaryFolder().appendingPathComponent("out.jpg").path
        XCTAssertThrowsError(try image.write(to: output, as: .jpeg)) { error in
            XCTAssertEqual((error as? VipsError)?.side, .decode, "the source failed, not the encoder: \(error)")
        }
    }

    /// An image WebP cannot hold (over 16 383 pixels a side) fails in the saver: the encode's error.
    func testAnEncoderThatRefusesTheImageFailsOnTheEncodeSide() throws {
        let wide = try VImage.fromPixels([UInt8](repeating: 128, count: 20_000 * 3), width: 20_000, height: 1, bands: 3)
        XCTAssertThrowsError(try wide.encoded(as: .webp, quality: 80)) { error in
            XCTAssertEqual((error as? VipsError)?.side, .encode, "\(error)")
        }
        XCTAssertEqual(try wide.encoded(as: .png, quality: 0).prefix(4), [0x89, 0x50, 0x4E, 0x47], "PNG takes it")
    }

    func testUnknownContentFailsToOpen() {
        XCTAssertThrowsError(try VImage.open(Fixtures.broken.appendingPathComponent("empty.heic").path)) { error in
            XCTAssertTrue(error is VipsError)
        }
    }

    func testWithoutMetadataBlocksSavesPixelsAndICCOnly() throws {
        let original = try VImage.open(Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg"))
        XCTAssertNotNil(original.blob("exif-data"))
        let output = Fixtures.temporaryFolder().appendingPathComponent("bare.jpg").path
        for keepingICC in [true, false] {
            let bare = try original.withoutMetadataBlocks(keepingICC: keepingICC)
            XCTAssertEqual(bare.fieldNames.filter { $0.hasPrefix("exif-") || $0.hasPrefix("xmp-") || $0.hasPrefix("iptc-") }, [])
            XCTAssertEqual(bare.iccProfile != nil, keepingICC)
            XCTAssertNotNil(original.blob("exif-data"), "the original keeps its fields")
            try bare.write(to: output, as: .jpeg)
            let tags = try exiftool(output)
            XCTAssertNil(tags["IFD0:Model"])
            XCTAssertFalse(tags.keys.contains { $0.hasPrefix("XMP") || $0.hasPrefix("IPTC") }, "\(tags.keys.sorted())")
            XCTAssertEqual(tags["ICC_Profile:ProfileDescription"] as? String, keepingICC ? "Adobe RGB (1998)" : nil)
        }
    }

    func testUprightTurnsThePixelsAndResetsTheOrientation() throws {
        let stored = try VImage.open(Fixtures.sample("jpeg/orientation/Landscape_6.jpg"))
        let upright = try stored.upright()
        XCTAssertEqual([stored.width, stored.height, stored.orientation], [1200, 1800, 6])
        XCTAssertEqual([upright.width, upright.height, upright.orientation], [1800, 1200, 1])
    }

    func testSaveRoundTripKeepsSizeAndMetadata() throws {
        let image = try VImage.thumbnail(of: Fixtures.sample("jpeg/apple_iphone_4.jpg"), maxSize: 640)
        let output = Fixtures.temporaryFolder().appendingPathComponent("out.jpg").path
        try image.write(to: output, as: .jpeg)
        let back = try VImage.open(output)
        XCTAssertEqual([back.width, back.height], [640, 478])
        XCTAssertEqual(back.loader, "jpegload")
        XCTAssertEqual(back.string("exif-ifd0-Model")?.hasPrefix("iPhone 4"), true)
    }

    func testDisplayP3ConvertsToSRGB() throws {
        let p3 = try VImage.thumbnail(of: Fixtures.sample("heic/IMG_1034.heic"), maxSize: 512)
        let converted = try p3.convertedToSRGB()
        let before = try p3.bandMeans(), after = try converted.bandMeans()
        XCTAssertEqual(before.count, 3)
        // P3 blue sits outside sRGB: the conversion must move the blue mean, not just relabel.
        XCTAssertGreaterThan(abs(before[2] - after[2]), 1.5)
    }

    func testMeanAbsoluteDifference() throws {
        // Thumbnails stream: each is read once, so every comparison gets fresh ones.
        func landscape(_ n: Int) throws -> VImage {
            try VImage.thumbnail(of: Fixtures.sample("jpeg/orientation/Landscape_\(n).jpg"), maxSize: 300)
        }
        XCTAssertEqual(try landscape(1).meanAbsoluteDifference(from: landscape(1)), 0)
        XCTAssertLessThan(try landscape(1).meanAbsoluteDifference(from: landscape(3)), 5)
    }
}
