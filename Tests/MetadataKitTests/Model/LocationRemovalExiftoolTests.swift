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
        try assertLocationRemoved(path: Fixtures.sample(sample), keeping: expected, file: file, line: line)
    }

    @discardableResult
    private func assertLocationRemoved(
        path input: String, keeping expected: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws -> (xmp: [String], iptc: [String]) {
        var blocks = try JPEGMetadata.readMetadata(path: input)
        var removed: (xmp: [String], iptc: [String]) = ([], [])
        if let packet = blocks.xmp, let removal = try XMPPacket.removingLocation(from: packet) {
            blocks.xmp = removal.bytes
            removed.xmp = removal.removed
        }
        if let block = blocks.iptc, let removal = try IPTCBlock.removingLocation(from: block) {
            blocks.iptc = removal.bytes
            removed.iptc = removal.removed
        }
        let output = Fixtures.temporaryFolder().appendingPathComponent("filtered.jpg")
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input)))
        try Data(JPEGMetadata.writingMetadata(blocks, into: original).bytes).write(to: output)

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

    /// One property of every namespace in exiftool's Location group, beside a neighbour that is
    /// not in it, with empty values, an envelope Destination and a drone's attitude: after the
    /// filters exiftool finds no location, and every neighbour keeps its value — the drone's
    /// calibration (exiftool's Image group) too, while the properties it does not define
    /// (DroneID, CaptureUUID), which it puts in Location and cannot remove, go.
    func testFollowsExiftoolsLocationGroup() throws {
        let xmp = Array("""
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/"
          xmlns:cell="http://developer.sonyericsson.com/cell/1.0/" xmlns:mediapro="http://ns.iview-multimedia.com/mediapro/1.0/"
          xmlns:photomechanic="http://ns.camerabits.com/photomechanic/1.0/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
          xmlns:Iptc4xmpCore="http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
          xmlns:dwc="http://rs.tdwg.org/dwc/index.htm" xmlns:exif="http://ns.adobe.com/exif/1.0/"
          drone-dji:AbsoluteAltitude="+96.1" drone-dji:GimbalYawDegree="-12.3" drone-dji:FlightXSpeed="+0.0"
          drone-dji:RtkFlag="50" drone-dji:CamReverse="0" drone-dji:SelfData="Undefined" drone-dji:DewarpFlag="0"
          drone-dji:DroneID="M3E-0042" drone-dji:CaptureUUID="6a1b2c3d"
          cell:mcc="262" cell:mnc="1" cell:lac="" mediapro:Location="Mainz" mediapro:Event="Shoot"
          photomechanic:CountryCode="DE" photomechanic:ColorClass="1" photoshop:City="" photoshop:Headline="Kyra"
          Iptc4xmpCore:CountryCode="" Iptc4xmpCore:IntellectualGenre="portrait" exif:GPSLatitude="" exif:ExposureTime="1/125">
         <Iptc4xmpExt:Rating><rdf:Bag><rdf:li rdf:parseType="Resource"><Iptc4xmpExt:RatingValue>5</Iptc4xmpExt:RatingValue>
          <Iptc4xmpExt:RatingRegion><rdf:Bag><rdf:li rdf:parseType="Resource"><Iptc4xmpExt:City>Mainz</Iptc4xmpExt:City>
          </rdf:li></rdf:Bag></Iptc4xmpExt:RatingRegion></rdf:li></rdf:Bag></Iptc4xmpExt:Rating>
         <dwc:dctermsLocation rdf:parseType="Resource"><dwc:locality>Mainz</dwc:locality></dwc:dctermsLocation>
         <dwc:Event rdf:parseType="Resource"><dwc:habitat>studio</dwc:habitat></dwc:Event>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """.utf8)
        let iim: [UInt8] = [0x1C, 1, 0, 0, 2, 0, 4, 0x1C, 1, 5, 0, 0, 0x1C, 2, 0, 0, 2, 0, 4, 0x1C, 2, 90, 0, 0, 0x1C, 2, 101, 0, 0]
            + [0x1C, 2, 116, 0, 3] + Array("(c)".utf8)
        let source = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("jpeg/orientation/Landscape_1.jpg"))))
        let input = Fixtures.temporaryFolder().appendingPathComponent("every-namespace.jpg")
        try Data(JPEGMetadata.writingMetadata(MetadataBlocks(xmp: xmp, iptc: iim), into: source).bytes).write(to: input)
        XCTAssertGreaterThanOrEqual(try locationTags(input.path).count, 14, "exiftool sees the places first")
        let removed = try assertLocationRemoved(path: input.path, keeping: [
            "XMP-mediapro:Event", "XMP-photomech:ColorClass",
            "XMP-photoshop:Headline", "XMP-iptcCore:IntellectualGenre", "XMP-exif:ExposureTime", "XMP-iptcExt:RatingValue",
            "XMP-dwc:EventHabitat", "IPTC:CopyrightNotice", "IPTC:EnvelopeRecordVersion",
            "XMP-drone-dji:SelfData", "XMP-drone-dji:DewarpFlag",
        ])
        for gone in ["DroneID", "CaptureUUID", "CamReverse"] { XCTAssertTrue(removed.xmp.contains("drone-dji:\(gone)"), gone) }
    }
}
