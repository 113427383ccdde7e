import MediaFormats
import TestSupport
import XCTest

/// Files are recognised by their first bytes, through each row's magic.
final class MagicTests: XCTestCase {
    func testCommittedFilesAreRecognisedByContent() throws {
        let expected: [String: MediaFormat] = [
            "samples/heic/IMG_1034.heic": .heic, "samples/jpeg/apple_iphone_4.jpg": .jpeg,
            "samples/png/macos_screenshot_exif.png": .png, "samples/webp/iphone_x_exif_gps.webp": .webp,
            "samples/video/iphone6_with-gps.mov": .mov, "samples/video/sample.3gp": .threeGP,
            "Tests/Fixtures/kinds/images/animated_3frames.gif": .gif, "Tests/Fixtures/kinds/images/spatial_stereo_pair.avif": .avif,
            "Tests/Fixtures/kinds/videos/screen-recording-ios.mp4": .mp4, "Tests/Fixtures/metadata/tiff-location-everywhere.tif": .tiff,
        ]
        for (path, format) in expected {
            let handle = try XCTUnwrap(FileHandle(forReadingAtPath: Fixtures.repositoryRoot.appendingPathComponent(path).path), path)
            let prefix = [UInt8](try handle.read(upToCount: Magic.prefixLength) ?? Data())
            XCTAssertEqual(MediaFormat.sniffing(prefix: prefix), format, path)
        }
    }

    func testBrandsDecideTheISOBaseMediaFormat() {
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            let brands = ([major, "\0\0\0\0"] + compatible).flatMap { Array($0.utf8) }
            return [0, 0, 0, UInt8(8 + brands.count)] + Array("ftyp".utf8) + brands
        }
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("mif1", ["heic", "mif1"])), .heic)
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("avif", ["avif", "mif1"])), .avif, "before HEIC: AVIF lists mif1 too")
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("qt  ", ["qt  "])), .mov)
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("isom", ["isom", "mp42"])), .mp4)
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("3gp4", ["3gp4"])), .threeGP)
        XCTAssertNil(MediaFormat.sniffing(prefix: Array("hello, world".utf8)))
        // Classic QuickTime without ftyp (a Motion-JPEG MOV opens with a `free` atom).
        XCTAssertEqual(MediaFormat.sniffing(prefix: [0, 3, 3, 0xDB] + Array("free".utf8) + [0, 0, 0, 0x6C]), .mov)
    }

    func testCameraFilesAreTheirOwnFormatsNotTheContainersTheyBorrow() {
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            let brands = ([major, "\0\0\0\0"] + compatible).flatMap { Array($0.utf8) }
            return [0, 0, 0, UInt8(8 + brands.count)] + Array("ftyp".utf8) + brands
        }
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("crx ", ["crx ", "isom"])), .cr3, "a CR3 is no MP4")
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("3g2a", ["3g2a", "isom"])), .threeG2, "a 3G2 is no 3GP")
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("M4V ", ["M4V ", "isom"])), .m4v)
        let littleTIFF: [UInt8] = [0x49, 0x49, 0x2A, 0, 0x10, 0, 0, 0]
        XCTAssertEqual(MediaFormat.sniffing(prefix: littleTIFF + Array("CR".utf8) + [2, 0]), .cr2)
        XCTAssertEqual(MediaFormat.sniffing(prefix: littleTIFF), .tiff)
        XCTAssertEqual(MediaFormat.sniffing(prefix: Array("IIRO".utf8) + [8, 0, 0, 0]), .orf)
        XCTAssertEqual(MediaFormat.sniffing(prefix: Array("IIU".utf8) + [0, 0x18, 0, 0, 0]), .rw2)
        XCTAssertEqual(MediaFormat.sniffing(prefix: Array("FUJIFILMCCD-RAW 0201".utf8)), .raf)
    }

    /// A TIFF is a camera's RAW when its directories hold sensor data; which one, by DNGVersion or maker.
    func testATIFFsDirectoriesTellRawFromImage() {
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8]
        let raw = { (dng: Bool, make: String?) in TIFFFacts(isDNG: dng, make: make, holdsRawData: true) }
        XCTAssertEqual(MediaFormat.sniffing(prefix: tiff, tiff: raw(true, "Canon")), .dng)
        XCTAssertEqual(MediaFormat.sniffing(prefix: tiff, tiff: raw(false, "NIKON CORPORATION")), .nef)
        XCTAssertEqual(MediaFormat.sniffing(prefix: tiff, tiff: raw(false, "SONY")), .arw)
        XCTAssertEqual(MediaFormat.sniffing(prefix: tiff, tiff: raw(false, "PENTAX Corporation")), .pef)
        XCTAssertEqual(MediaFormat.sniffing(prefix: tiff, tiff: raw(false, "SAMSUNG")), .srw)
        XCTAssertEqual(MediaFormat.sniffing(prefix: tiff, tiff: raw(false, "Hasselblad")), .threeFR)
        XCTAssertEqual(MediaFormat.sniffing(prefix: tiff, tiff: raw(false, "SEIKO EPSON CORP.")), .otherRaw)
        XCTAssertEqual(MediaFormat.sniffing(prefix: tiff, tiff: TIFFFacts(isDNG: false, make: "NIKON", holdsRawData: false)), .tiff,
                       "a Coolpix TIFF is an image")
    }

    func testVideoContainersAreRecognisedByTheirOwnMarks() {
        XCTAssertEqual(MediaFormat.sniffing(prefix: Array("RIFF\0\0\0\0AVI LIST".utf8)), .avi)
        XCTAssertEqual(MediaFormat.sniffing(prefix: Array("RIFF\0\0\0\0WAVEfmt ".utf8)), nil, "a WAVE file is no video")
        let packets = { (size: Int, skip: Int) in (0..<4).flatMap { _ in [UInt8](repeating: 0, count: skip) + [0x47] + [UInt8](repeating: 0xFF, count: size - skip - 1) } }
        XCTAssertEqual(MediaFormat.sniffing(prefix: Array(packets(188, 0).prefix(Magic.prefixLength))), .mts)
        XCTAssertEqual(MediaFormat.sniffing(prefix: Array(packets(192, 4).prefix(Magic.prefixLength))), .mts)
        XCTAssertEqual(MediaFormat.sniffing(prefix: [0x47] + [UInt8](repeating: 0, count: 600)), nil, "one sync byte is not a stream")
        XCTAssertEqual(MediaFormat.sniffing(prefix: [0, 0, 1, 0xBA, 0x44]), .mpg)
        XCTAssertEqual(MediaFormat.sniffing(prefix: [0, 0, 1, 0xB3, 0x04]), .mpg)
        let ebml = { (docType: String) in [0x1A, 0x45, 0xDF, 0xA3, 0x80 | UInt8(7 + docType.count), 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x80 | UInt8(docType.count)] + Array(docType.utf8) }
        XCTAssertEqual(MediaFormat.sniffing(prefix: ebml("matroska")), .mkv)
        XCTAssertEqual(MediaFormat.sniffing(prefix: ebml("webm")), .webm)
        XCTAssertEqual(MediaFormat.sniffing(prefix: [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]), .wmv)
    }

    func testStillsOnceUnreadAreRecognised() {
        XCTAssertEqual(MediaFormat.sniffing(prefix: [0xFF, 0x0A, 0xFA, 0x1F]), .jxl, "a bare codestream")
        XCTAssertEqual(MediaFormat.sniffing(prefix: [0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]), .jxl, "a container")
        let bitmap = Array("BM".utf8) + [0x76, 4, 0, 0, 0, 0, 0, 0, 0x36, 4, 0, 0, 40, 0, 0, 0]
        XCTAssertEqual(MediaFormat.sniffing(prefix: bitmap), .bmp)
        XCTAssertEqual(MediaFormat.sniffing(prefix: Array("BM, a note".utf8)), nil, "two letters are not a bitmap")
        XCTAssertEqual(MediaFormat.sniffing(prefix: Array("8BPS".utf8) + [0, 1, 0, 0]), .psd)
    }
}
