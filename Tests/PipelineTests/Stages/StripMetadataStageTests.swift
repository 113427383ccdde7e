import Foundation
@testable import MediaBatchCore
import MediaFormats
import MetadataKit
import PipelineModel
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// Runs the shipped share-safe pipeline over every sample, images and videos, and checks the
/// outputs with exiftool and ffprobe, not with mediabatch's own readers.
final class StripMetadataStageTests: XCTestCase, RunsPipelines {
    static var output: URL!
    static var report: RunReport!

    override class func setUp() {
        try! Vips.start()
        let pipeline = try! Pipeline.load(contentsOf: Fixtures.pipelines.appendingPathComponent("share-safe.json"))
        output = Fixtures.temporaryFolder("share-safe")
        report = try! Self.run(pipeline, input: Fixtures.samples, output: output)
    }

    /// libvips 8.14 does not read a TIFF's own EXIF; mediabatch takes it from the file.
    func testTIFFCameraTagsReachTheJPEGAndItsGPSDoesNot() throws {
        let input = Fixtures.temporaryFolder()
        let tiff = input.appendingPathComponent("scan.tif").path
        try VImage.thumbnail(of: Fixtures.sample("jpeg/apple_iphone_4.jpg"), maxSize: 400)
            .withoutMetadataBlocks(keepingICC: true).write(to: tiff, as: .tiff)
        let tag = try runProcess("exiftool", ["-q", "-overwrite_original", "-IFD0:Make=Parrot", "-IFD0:Model=Sequoia",
                                              "-ExifIFD:DateTimeOriginal=2016:01:06 10:11:06", "-GPSLatitude=49.18",
                                              "-GPSLatitudeRef=N", "-GPSLongitude=1.65", "-GPSLongitudeRef=E", tiff])
        XCTAssertEqual(tag.exitCode, 0, tag.stderr)
        XCTAssertFalse(try locationTags(tiff).isEmpty)
        let pipeline = try Pipeline.load(contentsOf: Fixtures.pipelines.appendingPathComponent("share-safe.json"))
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(pipeline, input: input, output: output)
        let jpeg = output.appendingPathComponent(try XCTUnwrap(report.items.first?.output)).path
        XCTAssertEqual(try locationTags(jpeg), [])
        let after = try exiftool(jpeg)
        XCTAssertEqual(after["IFD0:Make"] as? String, "Parrot")
        XCTAssertEqual(after["IFD0:Model"] as? String, "Sequoia")
        XCTAssertEqual(after["ExifIFD:DateTimeOriginal"] as? String, "2016:01:06 10:11:06")
        XCTAssertNil(after["IFD0:StripOffsets"], "the TIFF's pixel layout stays behind")
    }

    func testAMovieThatCannotBeEditedFailsClearlyAndWritesNothing() throws {
        let input = Fixtures.temporaryFolder()
        let fragmented = input.appendingPathComponent("fragmented.mp4").path
        let make = try runProcess("ffmpeg", ["-nostdin", "-v", "error", "-i", Fixtures.sample("video/with-gps_xyz.mp4"), "-c", "copy",
                                             "-movflags", "frag_keyframe+empty_moov", "-metadata", "location=+51.4169-000.0806/", fragmented])
        XCTAssertEqual(make.exitCode, 0, make.stderr)
        XCTAssertFalse(try locationTags(fragmented).isEmpty)
        let pipeline = try Pipeline.load(contentsOf: Fixtures.pipelines.appendingPathComponent("share-safe.json"))
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(pipeline, input: input, output: output)
        XCTAssertEqual(report.items.first?.error?.code, .unsupportedMetadata)
        XCTAssertEqual(report.items.first?.error?.stage, "write")
        XCTAssertTrue(report.items.first?.error?.message.contains("fragmented") ?? false, "\(report.items)")
        let files = try FileManager.default.subpathsOfDirectory(atPath: output.path).filter {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: output.appendingPathComponent($0).path, isDirectory: &isFolder)
            return !isFolder.boolValue && !$0.hasPrefix(".mediabatch/state")
        }
        XCTAssertEqual(files, [], "no output, no temporary file")
    }

    func testNamedGroupsGoAndLocationStaysWhenNotNamed() throws {
        let input = Fixtures.temporaryFolder()
        let tagged = input.appendingPathComponent("tagged.jpg").path
        let write = try runProcess("exiftool", ["-q", "-o", tagged, "-ExifIFD:SerialNumber=B123", "-ExifIFD:LensSerialNumber=L456",
                                                "-ExifIFD:OwnerName=Ann Owner", Fixtures.sample("livephoto/train.jpg")])
        XCTAssertEqual(write.exitCode, 0, write.stderr)
        let pipeline = try Pipeline.decode(Data(#"""
            {"version": 1, "stages": [{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 512},
              {"stage": "stripMetadata", "remove": ["serialNumbers", "cameraOwner", "makerNotes"]}, {"stage": "write"}]}
            """#.utf8), baseDirectory: Fixtures.repositoryRoot)
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(pipeline, input: input, output: output)
        let after = try exiftool(output.appendingPathComponent("tagged.jpg").path)
        for gone in ["ExifIFD:SerialNumber", "ExifIFD:LensSerialNumber", "ExifIFD:OwnerName", "Apple:MediaGroupUUID", "ExifIFD:MakerNoteApple"] {
            XCTAssertNil(after[gone], gone)
        }
        XCTAssertEqual(after["IFD0:Model"] as? String, "iPhone 6s")
        XCTAssertNotNil(after["GPS:GPSLatitude"], "location was not named, so it stays")
        XCTAssertEqual(report.items.first?.removedMetadata,
                       ["EXIF BodySerialNumber", "EXIF LensSerialNumber", "EXIF CameraOwnerName", "EXIF MakerNote"])
    }

    func testXMPAndIPTCLoseTheirLocationAndKeepTheRest() throws {
        let input = Fixtures.temporaryFolder()
        let tagged = input.appendingPathComponent("tagged.jpg").path
        let exif = try runProcess("exiftool", ["-q", "-o", tagged, "-XMP-photoshop:City=Paris", "-IPTC:City=Paris",
                                               "-IPTC:Country-PrimaryLocationName=France", "-EXIF:Copyright=(c) Test",
                                               "-XMP-dc:Creator=Ann Author", "-XMP-xmp:Rating=4", "-IPTC:By-line=Ann Author",
                                               "-IPTC:Keywords=harbour", Fixtures.sample("jpeg/apple_iphone_4.jpg")])
        XCTAssertEqual(exif.exitCode, 0, exif.stderr)
        let before = try locationTags(tagged)
        XCTAssertTrue(before.contains("XMP-photoshop:City") && before.contains("IPTC:City"), "\(before)")
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(webStages), input: input, output: output)
        let written = output.appendingPathComponent(try XCTUnwrap(report.items.first?.output)).path
        XCTAssertEqual(try locationTags(written), [])
        let after = try exiftool(written)
        XCTAssertEqual(after["IFD0:Copyright"] as? String, "(c) Test")
        XCTAssertEqual(after["IFD0:Model"] as? String, "iPhone 4")
        XCTAssertEqual(after["XMP-dc:Creator"] as? String, "Ann Author")
        XCTAssertEqual(after["XMP-xmp:Rating"] as? Int, 4)
        XCTAssertEqual(after["IPTC:By-line"] as? String, "Ann Author")
        XCTAssertEqual(after["IPTC:Keywords"] as? String, "harbour")
        XCTAssertNil(after["ExifTool:Warning"], "\(after["ExifTool:Warning"] ?? "")")
    }

    /// The Live Photo still with rights, credits, keywords and places added in every block.
    private func fullyTagged() throws -> URL {
        let input = Fixtures.temporaryFolder()
        let tagged = input.appendingPathComponent("tagged.jpg").path
        let write = try runProcess("exiftool", ["-q", "-o", tagged, "-EXIF:Copyright=(c) Ann", "-EXIF:Artist=Ann Author",
                                                "-XMP-dc:Rights=(c) Ann", "-XMP-dc:Creator=Ann Author", "-XMP-dc:Subject=harbour",
                                                "-XMP-photoshop:City=Paris", "-IPTC:CopyrightNotice=(c) Ann", "-IPTC:By-line=Ann Author",
                                                "-IPTC:Keywords=harbour", "-IPTC:City=Paris", Fixtures.sample("livephoto/train.jpg")])
        XCTAssertEqual(write.exitCode, 0, write.stderr)
        return input
    }

    private func keeping(_ kept: String, extraStages: String = #"{"stage": "downsample", "maxPixelSize": 512}, "#,
                         input: URL) throws -> (tags: [String: Any], item: ItemResult, path: String) {
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"{"stage": "decode"}, \#(extraStages){"stage": "stripMetadata", "keep": \#(kept)}, {"stage": "write"}"#),
                                  input: input, output: output)
        let item = try XCTUnwrap(report.items.first)
        XCTAssertEqual(item.status, .ok, "\(item)")
        let path = output.appendingPathComponent(try XCTUnwrap(item.output)).path
        return (try exiftool(path), item, path)
    }

    /// exiftool's groups of what a file carries, leaving out what it says of the file itself.
    private func metadataGroups(_ tags: [String: Any]) -> Set<String> {
        Set(tags.keys.compactMap { $0.split(separator: ":").first.map(String.init) })
            .subtracting(["SourceFile", "ExifTool", "System", "File", "JFIF", "Composite"])
    }

    func testKeepingTheLivePhotoAndDateKeepsTheIdentifierByteForByte() throws {
        let input = try fullyTagged()
        let (tags, _, _) = try keeping(#"["livePhoto", "date"]"#, input: input)
        XCTAssertEqual(tags["Apple:MediaGroupUUID"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02")
        XCTAssertEqual(tags["ExifIFD:DateTimeOriginal"] as? String, "2021:04:10 11:44:00")
        XCTAssertNil(tags["IFD0:Make"])
        XCTAssertNil(tags["IFD0:Copyright"])
        XCTAssertNil(tags["ICC_Profile:ProfileDescription"], "icc not named")
        let makerNote = { (path: String) in try runProcess("exiftool", ["-b", "-MakerNote", path]).stdout }
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "stripMetadata", "keep": ["livePhoto"]}, {"stage": "write"}"#),
                                  input: input, output: output)
        let written = output.appendingPathComponent(try XCTUnwrap(report.items.first?.output)).path
        XCTAssertEqual(try makerNote(written), try makerNote(input.appendingPathComponent("tagged.jpg").path))
    }

    /// Without `icc` the pixels are converted to sRGB first and without `orientation` turned
    /// upright: a reader that assumes sRGB and reads no orientation sees what the input showed.
    func testAnEmptyKeepListLeavesNothingAndThePixelsStillRight() throws {
        let input = try Self.folder(of: ["jpeg/canon_eos_7d_iptc_city.jpg", "jpeg/orientation/Landscape_6.jpg"])
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "stripMetadata", "keep": []}, {"stage": "write"}"#),
                                  input: input, output: output)
        XCTAssertEqual(report.totals.failed, 0, "\(report.items)")
        for item in report.items {
            let path = output.appendingPathComponent(try XCTUnwrap(item.output)).path
            XCTAssertEqual(metadataGroups(try exiftool(path)), [], item.input)
        }
        let upright = try VImage.open(output.appendingPathComponent("Landscape_6.jpg").path)
        XCTAssertEqual([upright.width, upright.height, upright.orientation], [1800, 1200, 1])
        let written = try VImage.open(output.appendingPathComponent("canon_eos_7d_iptc_city.jpg").path)
        let original = try VImage.open(Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg"))
        let fromConverted = try written.meanAbsoluteDifference(from: try original.convertedToSRGB())
        let fromRelabelled = try written.meanAbsoluteDifference(from: original)
        XCTAssertLessThan(fromConverted * 3, fromRelabelled, "Adobe RGB converted, not relabelled: \(fromConverted) vs \(fromRelabelled)")
        let (kept, _, _) = try keeping(#"["icc"]"#, extraStages: "", input: try Self.folder(of: ["jpeg/canon_eos_7d_iptc_city.jpg"]))
        XCTAssertEqual(kept["ICC_Profile:ProfileDescription"] as? String, "Adobe RGB (1998)", "kept, so nothing to convert")
    }

    /// A block that cannot be parsed is not carried by a pipeline that edits metadata, and the
    /// report names it: what it hides cannot be checked. Without an edit the file is copied as it is.
    func testAnUnreadableBlockIsDroppedAndReported() throws {
        let input = Fixtures.temporaryFolder()
        var jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg")))
        let xmp = try XCTUnwrap(jpeg.range(of: Data("<x:xmpmeta".utf8)))
        jpeg[xmp.lowerBound + 1] = UInt8(ascii: "&") // "<&:xmpmeta": no longer XML
        try jpeg.write(to: input.appendingPathComponent("broken-xmp.jpg"))
        let output = Fixtures.temporaryFolder()
        let copied = try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "write"}"#), input: input, output: Fixtures.temporaryFolder())
        XCTAssertEqual(copied.items.first?.bytesOut, copied.items.first?.bytesIn)
        let report = try Self.run(try pipeline(#"{"stage": "stripLocation"}, {"stage": "write"}"#), input: input, output: output)
        let item = try XCTUnwrap(report.items.first)
        XCTAssertEqual(item.status, .ok)
        XCTAssertTrue(item.removedMetadata?.first?.hasPrefix("XMP in APP1 (") ?? false, "\(item)")
        XCTAssertTrue(item.removedMetadata?.first?.hasSuffix("unreadable, dropped") ?? false, "\(item)")
        let tags = try exiftool(output.appendingPathComponent("broken-xmp.jpg").path)
        XCTAssertFalse(tags.keys.contains { $0.hasPrefix("XMP") }, "\(tags.keys.sorted())")
        XCTAssertEqual(tags["IPTC:Headline"] as? String, try exiftool(input.appendingPathComponent("broken-xmp.jpg").path)["IPTC:Headline"] as? String,
                       "the other blocks are carried")
        XCTAssertNil(tags["IPTC:City"], "without their location")
    }

    /// Where `exiftool -location:all=` leaves places, mediabatch does not: IPTC-IIM that a news
    /// agency's tool keeps in EXIF's IFD0 (empty City, Country, Destination), and GeoTIFF's
    /// georeferencing; in a copy of the file as in an encoded output.
    func testIPTCInEXIFAndGeoTIFFLoseTheirPlaces() throws {
        let input = Fixtures.temporaryFolder()
        try Data(Self.jpegWithIPTCInEXIF()).write(to: input.appendingPathComponent("agency.jpg"))
        let geotiff = input.appendingPathComponent("geo.tif").path
        try FileManager.default.copyItem(atPath: Fixtures.fixtures.appendingPathComponent("metadata/tiff-location-everywhere.tif").path, toPath: geotiff)
        XCTAssertEqual(try runProcess("exiftool", ["-q", "-overwrite_original", "-ModelTiePoint=0 0 0 350807.4 5316081.3 0",
                                                   "-PixelScale=100 100 0", geotiff]).exitCode, 0)
        XCTAssertEqual(try exiftool(input.appendingPathComponent("agency.jpg").path)["IPTC2:City"] as? String, "", "exiftool reads the places")
        for stages in [#"{"stage": "stripLocation"}, {"stage": "write"}"#,
                       #"{"stage": "decode"}, {"stage": "transcode", "to": "jpeg"}, {"stage": "stripLocation"}, {"stage": "write", "path": "{stem}-{ext}.{ext}"}"#] {
            let output = Fixtures.temporaryFolder()
            let report = try Self.run(try pipeline(stages), input: input, output: output)
            XCTAssertEqual(report.items.map(\.status), [.ok, .ok], "\(report.items.compactMap(\.error))")
            for item in report.items {
                let path = output.appendingPathComponent(try XCTUnwrap(item.output)).path
                XCTAssertEqual(try locationTags(path), [], "\(item.input) \(stages)")
                let tags = try exiftool(path)
                XCTAssertNil(tags["IFD0:PixelScale"], "\(item.input): GeoTIFF's scale goes with its tie point")
                if item.input == "agency.jpg" { XCTAssertEqual(tags["IPTC2:CopyrightNotice"] as? String, "(c) Ann", stages) }
            }
        }
    }

    /// A NEF that Nikon Capture NX edited keeps a second IPTC copy in its maker note's edit record
    /// (exiftool: `IPTC2`): its places go where they lie — in a copy of the NEF as in a JPEG made
    /// from it, which carries the maker note — and the caption, the copyright and Capture's own
    /// edits stay.
    func testNikonCaptureNXsIPTCCopyLosesItsPlaces() throws {
        func dataset(_ number: UInt8, _ value: String) -> [UInt8] { [0x1C, 2, number, 0, UInt8(value.utf8.count)] + Array(value.utf8) }
        let iim = [0x1C, 2, 0, 0, 2, 0, 4] + dataset(120, "A caption") + dataset(90, "Kingston") + dataset(92, "Downtown")
            + dataset(95, "Ontario") + dataset(100, "CAN") + dataset(101, "Canada") + dataset(116, "(c) Ann")
        let input = Fixtures.temporaryFolder()
        let nef = input.appendingPathComponent("DSC_0001.NEF").path
        try Data(CameraRawFile.nef.bytes(makerNote: CameraRawFile.nikonCaptureNote(iim: iim))).write(to: URL(fileURLWithPath: nef))
        let before = try exiftool(nef)
        XCTAssertEqual(before["IPTC2:City"] as? String, "Kingston", "exiftool reads Capture's copy")
        XCTAssertEqual(before["NikonCapture:UnsharpMask"] as? String, "On")
        for stages in [#"{"stage": "stripLocation"}, {"stage": "write"}"#,
                       #"{"stage": "decode"}, {"stage": "transcode", "to": "jpeg"}, {"stage": "stripLocation"}, {"stage": "write"}"#] {
            let output = Fixtures.temporaryFolder()
            let report = try Self.run(try pipeline(stages), input: input, output: output)
            let item = try XCTUnwrap(report.items.first)
            XCTAssertEqual(item.status, .ok, "\(item)")
            XCTAssertEqual(item.removedMetadata?.contains("Nikon Capture IPTC:City"), true, "\(item.removedMetadata ?? [])")
            let path = output.appendingPathComponent(try XCTUnwrap(item.output)).path
            XCTAssertEqual(try locationTags(path), [], stages)
            let tags = try exiftool(path)
            XCTAssertEqual(tags["IPTC2:Caption-Abstract"] as? String, "A caption", stages)
            XCTAssertEqual(tags["IPTC2:CopyrightNotice"] as? String, "(c) Ann", stages)
            XCTAssertEqual(tags["NikonCapture:UnsharpMask"] as? String, before["NikonCapture:UnsharpMask"] as? String, stages)
            XCTAssertNil(tags["ExifTool:Warning"], "\(tags["ExifTool:Warning"] ?? "")")
        }
    }

    /// An AFCP trailer (AXS File Concatenation Protocol, big- and little-endian) ending a JPEG or a
    /// TIFF keeps its own IPTC copy (exiftool: `IPTC2`), and so does FotoStation's: its places go
    /// where they lie, the rest of it stays (a text entry, the caption, the copyright), and an AFCP
    /// trailer's offsets follow the head, which shrinks as the APP13 copy loses its places (else
    /// exiftool warns "Adjusted AFCP offsets"). Encoded outputs never carry a trailer (libvips
    /// writes none).
    func testTrailersIPTCCopiesLoseTheirPlaces() throws {
        let input = Fixtures.temporaryFolder()
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg"))))
        for bigEndian in [true, false] {
            try Data(jpeg + Self.afcpTrailer(at: jpeg.count, bigEndian: bigEndian))
                .write(to: input.appendingPathComponent("afcp-\(bigEndian ? "mm" : "ii").jpg"))
        }
        let tiff = try [UInt8](Data(contentsOf: Fixtures.fixtures.appendingPathComponent("metadata/tiff-location-everywhere.tif")))
        try Data(tiff + Self.afcpTrailer(at: tiff.count, bigEndian: false)).write(to: input.appendingPathComponent("afcp.tif"))
        let record = Self.afcpIIM + [UInt8](repeating: 0, count: 5)
        let size = record.count + 10
        try Data(jpeg + record + [0, 1, UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF), 0xA1, 0xB2, 0xC3, 0xD4])
            .write(to: input.appendingPathComponent("fotostation.jpg"))
        XCTAssertEqual(try exiftool(input.appendingPathComponent("fotostation.jpg").path)["IPTC2:City"] as? String, "Mainz")
        let before = try exiftool(input.appendingPathComponent("afcp-mm.jpg").path)
        XCTAssertEqual(before["IPTC2:City"] as? String, "Mainz", "exiftool reads the trailer's copy")
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"{"stage": "stripLocation"}, {"stage": "write"}"#), input: input, output: output)
        XCTAssertEqual(report.items.map(\.status), [.ok, .ok, .ok, .ok], "\(report.items.compactMap(\.error))")
        for item in report.items {
            let path = output.appendingPathComponent(try XCTUnwrap(item.output)).path
            XCTAssertEqual(try locationTags(path), [], item.input)
            let tags = try exiftool(path)
            XCTAssertNil(tags["ExifTool:Warning"], "\(item.input): \(tags["ExifTool:Warning"] ?? "")")
            XCTAssertEqual(tags["AFCP:Text"] as? String, item.input.hasPrefix("afcp") ? "kept as it is" : nil, item.input)
            guard item.input.hasSuffix(".jpg") else { continue }
            XCTAssertEqual(tags["IPTC2:CopyrightNotice"] as? String, "(c) Ann", item.input)
            XCTAssertEqual(tags["IPTC2:Caption-Abstract"] as? String, "AFCP caption", item.input)
            XCTAssertEqual(tags["IPTC:CopyrightNotice"] as? String, before["IPTC:CopyrightNotice"] as? String, item.input)
        }
    }

    /// IIM with places, a caption and a copyright.
    static var afcpIIM: [UInt8] {
        func dataset(_ number: UInt8, _ value: String) -> [UInt8] { [0x1C, 2, number, 0, UInt8(value.utf8.count)] + Array(value.utf8) }
        return [0x1C, 2, 0, 0, 2, 0, 4] + dataset(5, "Object") + dataset(27, "Location name") + dataset(90, "Mainz")
            + dataset(92, "Altstadt") + dataset(95, "Rheinland-Pfalz") + dataset(100, "DEU") + dataset(101, "Germany")
            + dataset(116, "(c) Ann") + dataset(120, "AFCP caption")
    }

    /// An AFCP trailer for a file of `start` bytes: an IPTC entry (`afcpIIM`) and a text entry;
    /// the footer pointing back at the header.
    static func afcpTrailer(at start: Int, bigEndian: Bool) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] { let bytes = [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]; return bigEndian ? bytes : bytes.reversed() }
        func u32(_ value: Int) -> [UInt8] { bigEndian ? u16(value >> 16) + u16(value & 0xFFFF) : u16(value & 0xFFFF) + u16(value >> 16) }
        let marker = Array((bigEndian ? "AXS!" : "AXS*").utf8)
        let iim = afcpIIM
        let text = Array("kept as it is".utf8)
        let data = start + 12 + 2 * 12
        return marker + u16(1) + u16(2) + u32(0) + Array("IPTC".utf8) + u32(iim.count) + u32(data)
            + Array("TEXT".utf8) + u32(text.count) + u32(data + iim.count) + iim + text + marker + u32(start) + u32(0)
    }

    /// exiftool reads XMP (700), Photoshop resources (34377) and a second IIM (0x8568) in any EXIF
    /// block's IFD0, a JPEG's too: each copy's places go, in a copy and in an encoded output.
    func testBlocksInEXIFsIFD0LoseTheirPlaces() throws {
        func dataset(_ number: UInt8, _ value: String) -> [UInt8] { [0x1C, 2, number, 0, UInt8(value.utf8.count)] + Array(value.utf8) }
        let iim = [0x1C, 2, 0, 0, 2, 0, 4] + dataset(90, "Mainz") + dataset(116, "(c) Ann")
        let resource = Array("8BIM".utf8) + [4, 4, 0, 0, 0, 0, 0, UInt8(iim.count)] + iim + (iim.count % 2 == 1 ? [0] : [])
        let xmp = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" photoshop:City="Wiesbaden" photoshop:Headline="Kept"/></rdf:RDF></x:xmpmeta>"#.utf8)
        let input = Fixtures.temporaryFolder()
        try Data(Self.jpegWithEXIF(ifd0: [(ExifTag.xmp, xmp), (ExifTag.afcpIPTC, iim), (ExifTag.photoshop, resource)]))
            .write(to: input.appendingPathComponent("blocks.jpg"))
        let before = try runProcess("exiftool", ["-a", "-G1", "-s", "-City", input.appendingPathComponent("blocks.jpg").path]).stdout
        XCTAssertTrue(before.contains("Wiesbaden") && before.components(separatedBy: "Mainz").count == 3, "exiftool reads every copy: \(before)")
        for stages in [#"{"stage": "stripLocation"}, {"stage": "write"}"#,
                       #"{"stage": "decode"}, {"stage": "transcode", "to": "jpeg"}, {"stage": "stripLocation"}, {"stage": "write"}"#] {
            let output = Fixtures.temporaryFolder()
            let item = try XCTUnwrap(try Self.run(try pipeline(stages), input: input, output: output).items.first)
            XCTAssertEqual(item.status, .ok, "\(item)")
            let path = output.appendingPathComponent(try XCTUnwrap(item.output)).path
            XCTAssertEqual(try locationTags(path), [], stages)
            let tags = try exiftool(path)
            XCTAssertNil(tags["ExifTool:Warning"], "\(tags["ExifTool:Warning"] ?? "")")
            XCTAssertEqual(tags["IPTC2:CopyrightNotice"] as? String, "(c) Ann", "the AFCP_IPTC copy, edited where it lies: \(stages)")
        }
    }

    /// Segments exiftool reads and mediabatch's JPEG editor does not — Photoshop 2.5's APP13, XMP
    /// under a non-standard APP1 header — go from a copy when they may place the photo, named in
    /// the report; the standard copies are edited as ever.
    func testUneditedSegmentsThatMayPlaceThePhotoGo() throws {
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        let iim: [UInt8] = [0x1C, 2, 0, 0, 2, 0, 4, 0x1C, 2, 90, 0, 4] + Array("Oslo".utf8)
        let resource = Array("8BIM".utf8) + [4, 4, 0, 0, 0, 0, 0, UInt8(iim.count)] + iim
        let xmp = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" photoshop:City="Bergen"/></rdf:RDF></x:xmpmeta>"#.utf8)
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg"))))
        let input = Fixtures.temporaryFolder(), path = input.appendingPathComponent("old.jpg").path
        let old = segment(0xED, Array("Adobe_Photoshop2.5:".utf8) + [UInt8](repeating: 0, count: 8) + resource) + segment(0xE1, Array("XMP\0".utf8) + xmp)
        try Data(jpeg[..<2] + old + jpeg[2...]).write(to: URL(fileURLWithPath: path))
        let before = try runProcess("exiftool", ["-a", "-G1", "-s", "-City", path]).stdout
        XCTAssertTrue(before.contains("Oslo") && before.contains("Bergen"), before)
        let output = Fixtures.temporaryFolder()
        let item = try XCTUnwrap(try Self.run(try pipeline(#"{"stage": "stripLocation"}, {"stage": "write"}"#), input: input, output: output).items.first)
        XCTAssertEqual(item.status, .ok, "\(item)")
        XCTAssertEqual(try locationTags(output.appendingPathComponent("old.jpg").path), [])
        for dropped in ["APP13 Adobe_Photoshop2.5 (it may hold location)", "APP1 XMP under a non-standard header (it may hold location)"] {
            XCTAssertEqual(item.removedMetadata?.contains(dropped), true, "\(item.removedMetadata ?? [])")
        }
    }

    /// XMP in a TIFF's SubIFD, which exiftool reads and mediabatch does not edit: a copy that would
    /// keep its place fails, naming it, instead of being written.
    func testATIFFWithAPlaceInASubIFDFailsRatherThanKeepIt() throws {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] { le16(tag) + le16(type) + le32(count) + le32(value) }
        let xmp = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" photoshop:City="Tromso"/></rdf:RDF></x:xmpmeta>"#.utf8)
        let ifd0 = 8, sub = ifd0 + 2 + 10 * 12 + 4, pixel = sub + 2 + 2 * 12 + 4, packet = pixel + 2
        let file = Array("II*\0".utf8) + le32(ifd0) + le16(10) + entry(256, 3, 1, 1) + entry(257, 3, 1, 1) + entry(258, 3, 1, 8)
            + entry(259, 3, 1, 1) + entry(262, 3, 1, 1) + entry(273, 4, 1, pixel) + entry(277, 3, 1, 1) + entry(278, 3, 1, 1)
            + entry(279, 4, 1, 1) + entry(330, 4, 1, sub) + le32(0)
            + le16(2) + entry(254, 4, 1, 1) + entry(700, 7, xmp.count, packet) + le32(0) + [0x80, 0] + xmp
        let input = Fixtures.temporaryFolder(), path = input.appendingPathComponent("sub.tif").path
        try Data(file).write(to: URL(fileURLWithPath: path))
        XCTAssertTrue(try runProcess("exiftool", ["-a", "-G1", "-s", "-City", path]).stdout.contains("Tromso"))
        let output = Fixtures.temporaryFolder()
        let item = try XCTUnwrap(try Self.run(try pipeline(#"{"stage": "stripLocation"}, {"stage": "write"}"#), input: input, output: output).items.first)
        XCTAssertEqual(item.error?.code, .unsupportedMetadata, "\(item)")
        XCTAssertEqual(item.error?.message.contains("tag 700 in a SubIFD may hold location"), true, item.error?.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("sub.tif").path))
    }

    /// A JPEG whose EXIF is IFD0 alone, holding `ifd0`'s values (UNDEFINED, big-endian).
    static func jpegWithEXIF(ifd0 entries: [(tag: UInt16, value: [UInt8])]) throws -> [UInt8] {
        func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value & 0xFFFF) }
        var table = be16(entries.count), values: [UInt8] = []
        let valuesStart = 8 + 2 + entries.count * 12 + 4
        for (tag, value) in entries.sorted(by: { $0.tag < $1.tag }) {
            table += be16(Int(tag)) + be16(7) + be32(value.count) + be32(valuesStart + values.count)
            values += value + (value.count % 2 == 1 ? [0] : [])
        }
        let tiff = Array("MM\0*".utf8) + be32(8) + table + be32(0) + values
        let jpeg = try [UInt8](Data(contentsOf: Fixtures.fixtures.appendingPathComponent("kinds/images/negative_usercomment_other.jpg")))
        return try JPEGMetadata.writingMetadata(MetadataBlocks(exif: XCTUnwrap(ExifData(tiff))), into: jpeg).bytes
    }

    /// A JPEG whose EXIF holds, in IFD0's IPTC-NAA (LONG-typed, zero-padded as writers do), the
    /// empty places news agencies' tools leave and a copyright.
    static func jpegWithIPTCInEXIF() throws -> [UInt8] {
        func dataset(_ record: UInt8, _ number: UInt8, _ value: String) -> [UInt8] {
            [0x1C, record, number, 0, UInt8(value.utf8.count)] + Array(value.utf8)
        }
        var iim = dataset(1, 0, "\u{0}\u{4}") + dataset(1, 5, "") + dataset(2, 0, "\u{0}\u{4}") + dataset(2, 90, "") + dataset(2, 101, "")
            + dataset(2, 116, "(c) Ann")
        iim += [UInt8](repeating: 0, count: (4 - iim.count % 4) % 4)
        var tiff = Array("MM\0*".utf8) + [0, 0, 0, 8, 0, 1] + [0x83, 0xBB, 0, 4, 0, 0, 0, 0, 0, 0, 0, 26] + [0, 0, 0, 0]
        tiff.replaceSubrange(14..<18, with: [0, 0, 0, UInt8(iim.count / 4)])
        tiff += iim
        let jpeg = try [UInt8](Data(contentsOf: Fixtures.fixtures.appendingPathComponent("kinds/images/negative_usercomment_other.jpg")))
        return try JPEGMetadata.writingMetadata(MetadataBlocks(exif: XCTUnwrap(ExifData(tiff))), into: jpeg).bytes
    }

    private func outputPath(_ input: String) throws -> String {
        let item = try XCTUnwrap(Self.report.items.first { $0.input == input }, input)
        return Self.output.appendingPathComponent(try XCTUnwrap(item.output, "\(input): \(item)")).path
    }

    /// The tags a photo library relies on, as exiftool names them with -G1.
    static let keptTags = ["IFD0:Make", "IFD0:Model", "ExifIFD:DateTimeOriginal", "IFD0:Copyright", "Apple:MediaGroupUUID",
                           "Keys:Make", "Keys:Model", "Keys:CreationDate", "Keys:ContentIdentifier", "Keys:Software"]

    func testNoSampleKeepsItsLocationAndEveryOneKeepsTheRest() throws {
        XCTAssertEqual(Self.report.totals.failed, 0, "\(Self.report.items.filter { $0.status == .failed })")
        let items = Self.report.items.filter { $0.status == .ok }
        let inputs = items.map { Fixtures.sample($0.input) }, outputs = try items.map { try outputPath($0.input) }
        // One exiftool process for all the inputs, one for all the outputs, and again for their location.
        let (tagsBefore, tagsAfter) = (try exiftool(inputs), try exiftool(outputs))
        let (locationBefore, locationAfter) = (try locationTags(inputs), try locationTags(outputs))
        var hadLocation = 0
        for (item, (input, output)) in zip(items, zip(inputs, outputs)) {
            if try !XCTUnwrap(locationBefore[input], item.input).isEmpty { hadLocation += 1 }
            XCTAssertEqual(try XCTUnwrap(locationAfter[output], item.input), [], item.input)
            let before = try XCTUnwrap(tagsBefore[input], item.input), after = try XCTUnwrap(tagsAfter[output], item.input)
            for tag in Self.keptTags where before[tag] != nil {
                XCTAssertEqual("\(after[tag] ?? "missing")", "\(before[tag]!)", "\(item.input) \(tag)")
            }
        }
        XCTAssertGreaterThanOrEqual(hadLocation, 13, "the samples carry location in EXIF, XMP, IPTC and QuickTime")
    }

    func testLivePhotoPairKeepsItsIdentifierOnBothHalves() throws {
        let still = try exiftool(try outputPath("livephoto/train.jpg"))
        let movie = try exiftool(try outputPath("livephoto/train.mov"))
        XCTAssertEqual(still["Apple:MediaGroupUUID"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02")
        XCTAssertEqual(movie["Keys:ContentIdentifier"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02")
    }

    func testVideosKeepEveryStreamTheirDurationAndDecode() throws {
        let videos = Self.report.items.filter { ["mov", "mp4", "3gp"].contains($0.format) }
        XCTAssertEqual(videos.count, 6)
        for video in videos {
            let input = Fixtures.sample(video.input), output = try outputPath(video.input)
            let probe = ["-v", "error", "-show_entries", "stream=index,codec_type,codec_tag_string,duration:format=duration", "-of", "compact"]
            XCTAssertEqual(try runProcess("ffprobe", probe + [output]).stdout, try runProcess("ffprobe", probe + [input]).stdout, video.input)
            let decode = try runProcess("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-map", "0:v?", "-map", "0:a?", "-f", "null", "-"])
            XCTAssertEqual(decode.exitCode, 0, video.input)
            XCTAssertEqual(decode.stderr, "", video.input)
            let sizes = try [input, output].map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }
            XCTAssertEqual(sizes[0], sizes[1], "\(video.input): metadata edited in place")
        }
        let removed = Self.report.items.first { $0.input == "video/with-gps_xyz.mp4" }?.removedMetadata
        XCTAssertEqual(removed, ["moov/udta/©xyz"])
    }

    func testAKeepListLeavesExactlyWhatItNames() throws {
        let (tags, item, _) = try keeping(#"["copyright", "icc"]"#, input: try fullyTagged())
        XCTAssertEqual(tags["IFD0:Copyright"] as? String, "(c) Ann")
        XCTAssertEqual(tags["IFD0:Artist"] as? String, "Ann Author")
        XCTAssertEqual(tags["XMP-dc:Rights"] as? String, "(c) Ann")
        XCTAssertEqual(tags["XMP-dc:Creator"] as? String, "Ann Author")
        XCTAssertEqual(tags["IPTC:CopyrightNotice"] as? String, "(c) Ann")
        XCTAssertEqual(tags["IPTC:By-line"] as? String, "Ann Author")
        let kept: Set = ["IFD0:Copyright", "IFD0:Artist", "XMP-dc:Rights", "XMP-dc:Creator", "IPTC:CopyrightNotice", "IPTC:By-line",
                         "IPTC:ApplicationRecordVersion", "XMP-x:XMPToolkit"]
        let left = tags.keys.filter { key in
            !kept.contains(key) && !metadataGroups([key: 0]).isEmpty && !key.hasPrefix("ICC")
        }
        XCTAssertEqual(left.sorted(), [], "no camera, date, MakerNote, keyword or place")
        let removed = try XCTUnwrap(item.removedMetadata)
        XCTAssertTrue(removed.contains("EXIF GPS") && removed.contains { $0.hasPrefix("EXIF: ") }, "\(removed)")
        XCTAssertTrue(removed.contains { $0.hasPrefix("XMP: ") } && removed.contains { $0.hasPrefix("IPTC: ") }, "\(removed)")
    }

    /// The keep-list in every output format: what each format can carry of what is named stays,
    /// nothing else does.
    func testAKeepListLeavesTheSameInEveryFormat() throws {
        let input = try fullyTagged()
        for format in ["png", "webp", "avif", "heic"] {
            let (tags, item, path) = try keeping(#"["copyright", "livePhoto"]"#, extraStages: #"""
                {"stage": "downsample", "maxPixelSize": 256}, {"stage": "transcode", "to": "\#(format)"},
                """#, input: input)
            XCTAssertEqual(tags["IFD0:Copyright"] as? String, "(c) Ann", format)
            XCTAssertEqual(tags["XMP-dc:Rights"] as? String, "(c) Ann", format)
            XCTAssertEqual(tags["Apple:MediaGroupUUID"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02", format)
            for gone in ["IFD0:Make", "ExifIFD:DateTimeOriginal", "XMP-dc:Subject", "IPTC:Keywords", "GPS:GPSLatitude"] {
                XCTAssertNil(tags[gone], "\(format) \(gone)")
            }
            XCTAssertEqual(try locationTags(path), [], format)
            if format == "webp" { XCTAssertTrue(item.removedMetadata?.contains("IPTC: webp has no place for it") ?? false, "\(item)") }
        }
    }
}
