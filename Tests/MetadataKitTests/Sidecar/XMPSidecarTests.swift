@testable import MetadataKit
import TestSupport
import XCTest

/// Sidecars as darktable and exiftool write them, read back by exiftool after their location went.
final class XMPSidecarTests: XCTestCase {
    /// darktable's form: XML declaration, no `<?xpacket?>`, GPS as attributes, EXIF-style dates.
    private let darktable = """
    <?xml version="1.0" encoding="UTF-8"?>
    <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
     <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
      <rdf:Description rdf:about=""
        xmlns:exif="http://ns.adobe.com/exif/1.0/"
        xmlns:xmp="http://ns.adobe.com/xap/1.0/"
        xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
        xmlns:dc="http://purl.org/dc/elements/1.1/"
        xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
        xmlns:darktable="http://darktable.sf.net/"
       exif:DateTimeOriginal="2023:12:24 17:30:00.000"
       exif:GPSVersionID="2.2.0.0"
       exif:GPSLatitude="48,51.504000N"
       exif:GPSLongitude="2,17.670000E"
       exif:GPSAltitudeRef="0"
       exif:GPSAltitude="35/1"
       xmp:Rating="4"
       xmpMM:DerivedFrom="IMG_1234.CR2"
       photoshop:DateCreated="2023-12-24T17:30:00"
       darktable:import_timestamp="63838971000000000"
       darktable:xmp_version="5"
       darktable:history_end="2"
       darktable:iop_order_version="4">
       <dc:subject>
        <rdf:Bag>
         <rdf:li>paris</rdf:li>
         <rdf:li>eiffel tower</rdf:li>
        </rdf:Bag>
       </dc:subject>
       <darktable:masks_history>
        <rdf:Seq/>
       </darktable:masks_history>
       <darktable:history>
        <rdf:Seq>
         <rdf:li
          darktable:num="0"
          darktable:operation="exposure"
          darktable:enabled="1"
          darktable:modversion="6"
          darktable:params="0000000000000000"
          darktable:multi_name=""
          darktable:multi_priority="0"
          darktable:blendop_version="13"
          darktable:blendop_params="gz11eJxjYGBgYAFiCQYYOOHEgBYAAB/EAaI="/>
         <rdf:li
          darktable:num="1"
          darktable:operation="colorbalancergb"
          darktable:enabled="1"
          darktable:modversion="5"
          darktable:params="cdcccc3d00000000"
          darktable:multi_name=""
          darktable:multi_priority="0"
          darktable:blendop_version="13"
          darktable:blendop_params="gz11eJxjYGBgYAFiCQYYOOHEgBYAAB/EAaI="/>
        </rdf:Seq>
       </darktable:history>
      </rdf:Description>
     </rdf:RDF>
    </x:xmpmeta>

    """

    private let darktableGPS = [
        "exif:GPSVersionID=\"2.2.0.0\"", "exif:GPSLatitude=\"48,51.504000N\"", "exif:GPSLongitude=\"2,17.670000E\"",
        "exif:GPSAltitudeRef=\"0\"", "exif:GPSAltitude=\"35/1\"",
    ]

    /// `text` without its lines holding any of `cut`: what cutting those properties, with the
    /// whitespace before each, leaves when each has a line of its own.
    private func withoutLines(holding cut: [String], of text: String) -> String {
        text.components(separatedBy: "\n").filter { line in !cut.contains { line.contains($0) } }.joined(separator: "\n")
    }

    /// exiftool reads no location in `after`, and every other tag it read in `before` unchanged.
    private func assertExiftoolReadsAllButLocation(before: [UInt8], after: [UInt8], keeping expected: [String],
                                                   file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = Fixtures.temporaryFolder()
        let input = folder.appendingPathComponent("before.xmp").path, output = folder.appendingPathComponent("after.xmp").path
        try Data(before).write(to: URL(fileURLWithPath: input))
        try Data(after).write(to: URL(fileURLWithPath: output))
        XCTAssertEqual(try locationTags(output), [], file: file, line: line)
        let location = Set(try locationTags(input)), read = try exiftool([input, output])
        let was = try XCTUnwrap(read[input], file: file, line: line), now = try XCTUnwrap(read[output], file: file, line: line)
        XCTAssertNil(now["ExifTool:Warning"], file: file, line: line)
        for (tag, value) in was where !location.contains(tag) && !tag.hasPrefix("System:") && tag != "SourceFile" {
            XCTAssertEqual("\(now[tag] ?? "missing")", "\(value)", tag, file: file, line: line)
        }
        for tag in expected { XCTAssertNotNil(now[tag], "\(tag) should be there to compare", file: file, line: line) }
    }

    func testDarktableSidecarLosesItsGPSAttributesAndNothingElse() throws {
        let input = Array(darktable.utf8)
        XCTAssertEqual(try XMPSidecar.facts(in: input), XMPSidecar.Facts(captured: "2023:12:24 17:30:00.000", hasLocation: true))
        let removal = try XCTUnwrap(XMPSidecar.removingLocation(from: input))
        XCTAssertEqual(removal.removed, darktableGPS.map { String($0.prefix { $0 != "=" }) })
        XCTAssertEqual(String(decoding: removal.bytes, as: UTF8.self), withoutLines(holding: darktableGPS, of: darktable))
        try assertExiftoolReadsAllButLocation(before: input, after: removal.bytes, keeping: [
            "XMP-xmp:Rating", "XMP-dc:Subject", "XMP-photoshop:DateCreated", "XMP-exif:DateTimeOriginal",
            "XMP-darktable:HistoryOperation", "XMP-darktable:HistoryParams", "XMP-darktable:History_end",
        ])
        XCTAssertEqual(try XMPSidecar.facts(in: removal.bytes), XMPSidecar.Facts(captured: "2023:12:24 17:30:00.000", hasLocation: false))
        XCTAssertNil(try XMPSidecar.removingLocation(from: removal.bytes))
    }

    /// exiftool's own sidecar of a geotagged iPhone photo: `<?xpacket?>` wrapped, GPS as elements,
    /// a city as well.
    func testExiftoolSidecarLosesItsLocationAndNothingElse() throws {
        let path = Fixtures.temporaryFolder().appendingPathComponent("IMG_0001.xmp").path
        let made = try runProcess("exiftool", [
            "-q", "-tagsfromfile", Fixtures.sample("jpeg/apple_iphone_4.jpg"), "-XMP-xmp:Rating=4", "-XMP-dc:Subject=rome",
            "-XMP-dc:Subject=night", "-XMP-photoshop:DateCreated=2011:01:13 14:33:39", "-XMP-photoshop:City=Roma", path,
        ])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        let input = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(try XMPSidecar.facts(in: input), XMPSidecar.Facts(captured: "2011-01-13T14:33:39", hasLocation: true))

        let removal = try XCTUnwrap(XMPSidecar.removingLocation(from: input))
        XCTAssertEqual(Set(removal.removed), ["exif:GPSLatitude", "exif:GPSLongitude", "exif:GPSImgDirection",
                                              "exif:GPSImgDirectionRef", "photoshop:City"])
        let text = String(decoding: input, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("<?xpacket begin='\u{FEFF}' id='W5M0MpCehiHzreSzNTczkc9d'?>\n<x:xmpmeta"), text)
        XCTAssertEqual(String(decoding: removal.bytes, as: UTF8.self), withoutLines(holding: ["<exif:GPS", "<photoshop:City>"], of: text))
        try assertExiftoolReadsAllButLocation(before: input, after: removal.bytes, keeping: [
            "XMP-xmp:Rating", "XMP-dc:Subject", "XMP-photoshop:DateCreated", "XMP-exif:DateTimeOriginal", "XMP-tiff:Model",
        ])
    }

    func testCaptureTimePrefersDateTimeOriginalThenDateCreatedThenCreateDate() throws {
        func captured(_ attributes: String) throws -> String? {
            try XMPSidecar.facts(in: Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
             <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:xap="http://ns.adobe.com/xap/1.0/"
              xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" \(attributes)/></rdf:RDF></x:xmpmeta>
            """.utf8)).captured
        }
        XCTAssertEqual(try captured(#"xap:CreateDate="2020-01-03" photoshop:DateCreated="2020-01-02""#), "2020-01-02")
        XCTAssertEqual(try captured(#"xap:CreateDate="2020-01-03""#), "2020-01-03")
        XCTAssertEqual(try captured(#"xap:CreateDate="2020-01-03" exif:DateTimeOriginal="2020-01-01T08:00:00+01:00""#),
                       "2020-01-01T08:00:00+01:00")
        XCTAssertNil(try captured(""))
    }

    func testTruncatedSidecarThrows() throws {
        let truncated = Array(darktable.utf8.prefix(darktable.utf8.count / 2))
        XCTAssertThrowsError(try XMPSidecar.facts(in: truncated)) { XCTAssertTrue($0 is MetadataFormatError, "\($0)") }
        XCTAssertThrowsError(try XMPSidecar.removingLocation(from: truncated)) { XCTAssertTrue($0 is MetadataFormatError, "\($0)") }
        // Naming no location namespace, it cannot place the photo: removal does not read it.
        let ratingOnly = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
         <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="4">
          <xmp:Label>Re
        """.utf8)
        XCTAssertThrowsError(try XMPSidecar.facts(in: ratingOnly))
        XCTAssertNil(try XMPSidecar.removingLocation(from: ratingOnly))
    }
}
