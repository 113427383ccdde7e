@testable import MetadataKit
import TestSupport
import XCTest

/// Real JPEGs filtered and spliced back, then read by exiftool: XMP and IPTC location is gone,
/// and every other XMP and IPTC tag keeps its value.
final class LocationRemovalExiftoolTests: XCTestCase {
    private func isXMPOrIPTC(_ tag: String) -> Bool { tag.hasPrefix("XMP-") || tag.hasPrefix("IPTC:") }

    @discardableResult
    private func assertLocationRemoved(
        _ sample: String, keeping expected: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws -> (xmp: [String], iptc: [String]) {
        let input = Fixtures.sample(sample)
        var jpeg = try JPEGMetadataSegments(contentsOf: input)
        var removed: (xmp: [String], iptc: [String]) = ([], [])
        if let packet = jpeg.xmpPacket, let removal = try XMPPacket.removingLocation(from: packet) {
            jpeg.replaceXMPPacket(with: removal.bytes)
            removed.xmp = removal.removed
        }
        if let block = jpeg.photoshopBlock, let removal = try IPTCBlock.removingLocation(from: block) {
            jpeg.replacePhotoshopBlock(with: removal.bytes)
            removed.iptc = removal.removed
        }
        let output = Fixtures.temporaryFolder().appendingPathComponent("filtered.jpg")
        try jpeg.write(to: output)

        XCTAssertEqual(try locationTags(output.path).filter(isXMPOrIPTC), [], file: file, line: line)
        let before = try exiftool(input), after = try exiftool(output.path)
        XCTAssertNil(after["ExifTool:Warning"], "\(after["ExifTool:Warning"] ?? "")", file: file, line: line)
        let location = Set(try locationTags(input))
        for (tag, value) in before where isXMPOrIPTC(tag) && !location.contains(tag) {
            XCTAssertEqual("\(after[tag] ?? "missing")", "\(value)", tag, file: file, line: line)
        }
        for tag in expected {
            XCTAssertNotNil(after[tag], "\(tag) should be there to compare", file: file, line: line)
        }
        return removed
    }

    func testCanonLightroomExport() throws {
        let removed = try assertLocationRemoved("jpeg/canon_eos_7d_iptc_city.jpg", keeping: [
            "XMP-dc:Creator", "XMP-dc:Rights", "XMP-xmp:Rating", "XMP-xmpRights:WebStatement",
            "IPTC:By-line", "IPTC:CopyrightNotice", "IPTC:Caption-Abstract",
        ])
        XCTAssertEqual(Set(removed.xmp), ["Iptc4xmpCore:Location", "Iptc4xmpCore:CountryCode",
                                          "photoshop:City", "photoshop:State", "photoshop:Country"])
        XCTAssertEqual(Set(removed.iptc), ["IPTC:City", "IPTC:Sub-location", "IPTC:Province-State",
                                           "IPTC:Country-PrimaryLocationName"])
    }

    func testIPTCReferenceImage() throws {
        let removed = try assertLocationRemoved("jpeg/iptc_reference_2019.jpg", keeping: [
            "XMP-dc:Creator", "XMP-dc:Rights", "XMP-dc:Subject", "XMP-iptcCore:CreatorCity",
            "XMP-iptcExt:ArtworkTitle", "IPTC:By-line", "IPTC:CopyrightNotice", "IPTC:Keywords",
        ])
        XCTAssertTrue(removed.xmp.contains("Iptc4xmpExt:LocationCreated"))
        XCTAssertTrue(removed.xmp.contains("Iptc4xmpExt:LocationShown"))
        XCTAssertTrue(removed.iptc.contains("IPTC:Country-PrimaryLocationCode"))
    }

    func testNikonXMPGPS() throws {
        let removed = try assertLocationRemoved("jpeg/nikon_d5000_xmp_gps_only.jpg", keeping: [
            "XMP-xmp:Rating", "XMP-xmp:CreatorTool", "XMP-aux:Lens",
        ])
        XCTAssertEqual(removed.xmp, ["exif:GPSLongitude", "exif:GPSLatitude", "exif:GPSAltitude", "exif:GPSAltitudeRef"])
        XCTAssertEqual(removed.iptc, [])
    }
}
