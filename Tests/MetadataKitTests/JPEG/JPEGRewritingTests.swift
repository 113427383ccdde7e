import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// `JPEGMetadata.rewritingMetadata` on files made from the committed fixtures with exiftool: MPF
/// images found where the index says after the segments before them shrank, a C2PA manifest
/// gone once anything changed, Samsung's network country and a motion photo's video location
/// removed in place. Read back with exiftool, ffprobe and libvips' CLI.
final class JPEGRewritingTests: XCTestCase {
    /// What `stripLocation` does to each copy, as far as these files need.
    static let removingLocation = BlockEdit(removesLocation: true) { blocks in
        blocks.exif?.remove(ExifTag.gpsPointer, from: .ifd0)
        if let xmp = blocks.xmp, let edited = try? XMPPacket.removingLocation(from: xmp) { blocks.xmp = edited.bytes }
        if let iptc = blocks.iptc, let edited = try? IPTCBlock.removingLocation(from: iptc) { blocks.iptc = edited.bytes }
    }

    static func fixture(_ name: String) -> String {
        Fixtures.fixtures.appendingPathComponent("kinds/images/\(name)").path
    }

    /// A copy of `source` with exiftool's edits `arguments` (exiftool keeps MPF offsets right).
    static func edited(_ source: String, _ arguments: [String]) throws -> String {
        let path = Fixtures.temporaryFolder().appendingPathComponent((source as NSString).lastPathComponent).path
        try FileManager.default.copyItem(atPath: source, toPath: path)
        let result = try runProcess("exiftool", ["-q", "-overwrite_original"] + arguments + [path])
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        return path
    }

    static let place = ["-GPSLatitude=48.85", "-GPSLatitudeRef=N", "-GPSLongitude=2.35", "-GPSLongitudeRef=E",
                        "-IPTC:City=Paris", "-IPTC:Country-PrimaryLocationName=France", "-XMP-photoshop:City=Paris"]

    func rewritten(_ path: String) throws -> String {
        let written = try XCTUnwrap(try JPEGMetadata.rewritingMetadata(path: path, editing: Self.removingLocation))
        return try ContainerFixtures.write(written.bytes, as: "rewritten.jpg")
    }

    /// An Ultra HDR photo whose Photoshop segment, after the MPF index, shrinks: the gain map is
    /// found where the index now says, byte for byte, and libvips decodes it.
    func testMPFImagesAreWhereTheIndexSaysAfterTheSegmentsBeforeThemShrink() throws {
        let original = Self.fixture("hdr_ultrahdr_mpf.jpg")
        let gainMap = try runProcess("exiftool", ["-b", "-MPImage2", original]).stdout
        let located = try movingPhotoshopAfterMPF(in: try Self.edited(original, Self.place))
        XCTAssertEqual(try runProcess("exiftool", ["-b", "-MPImage2", located]).stdout, gainMap, "the input is well-formed")
        let output = try rewritten(located)
        XCTAssertEqual(try locationTags(output), [])
        XCTAssertLessThan(try ContainerFixtures.bytes(output).count, try ContainerFixtures.bytes(located).count)
        XCTAssertEqual(try runProcess("exiftool", ["-b", "-MPImage2", output]).stdout, gainMap, "the gain map where the index says")
        let extracted = Fixtures.temporaryFolder().appendingPathComponent("gainmap.jpg")
        XCTAssertEqual(try runProcess("/bin/sh", ["-c", "exiftool -b -MPImage2 '\(output)' > '\(extracted.path)'"]).exitCode, 0)
        XCTAssertEqual(try runProcess("vipsheader", ["-f", "width", extracted.path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "40")
    }

    /// exiftool writes every metadata segment before MPF's; the Photoshop one is moved after it
    /// here (the index's offsets set to match), so that shrinking it moves the gain map away
    /// from the index.
    private func movingPhotoshopAfterMPF(in path: String) throws -> String {
        var jpeg = try ContainerFixtures.bytes(path)
        let segments = try XCTUnwrap(JPEGSegments.segments(of: jpeg))
        let photoshop = try XCTUnwrap(segments.first { $0.marker == 0xED })
        let mpf = try XCTUnwrap(segments.first { $0.marker == 0xE2 && jpeg[$0.payload].starts(with: MPFIndex.signature) })
        XCTAssertLessThan(photoshop.range.lowerBound, mpf.range.lowerBound)
        var payload = Array(jpeg[mpf.payload])
        let index = try XCTUnwrap(MPFIndex(payload: payload))
        index.setting(1, size: index.entries[1].size, offset: index.entries[1].offset + photoshop.range.count, in: &payload)
        let moved = Array(jpeg[mpf.range.lowerBound..<mpf.payload.lowerBound]) + payload + jpeg[photoshop.range]
        let segment = Array(jpeg[photoshop.range])
        jpeg.replaceSubrange(mpf.range, with: moved)
        jpeg.replaceSubrange(photoshop.range, with: [])
        XCTAssertEqual(segment.count, photoshop.range.count)
        return try ContainerFixtures.write(jpeg, as: "moved.jpg")
    }

    /// A C2PA manifest (JUMBF in APP11) signs the whole file: kept while nothing changes, gone
    /// and named as soon as something does.
    func testAC2PAManifestGoesOnceAnythingChanges() throws {
        let jumbf: [UInt8] = [0xFF, 0xEB, 0, 24] + Array("JP".utf8) + [0, 1, 0, 0, 0, 1] + [0, 0, 0, 14] + Array("jumb".utf8) + Array("c2pa..".utf8)
        func withManifest(_ path: String) throws -> String {
            var jpeg = try ContainerFixtures.bytes(path)
            jpeg.insert(contentsOf: jumbf, at: 2)
            return try ContainerFixtures.write(jpeg, as: "signed.jpg")
        }
        let unchanged = try withManifest(Self.fixture("screenshot_ios.jpg"))
        XCTAssertNil(try JPEGMetadata.rewritingMetadata(path: unchanged, editing: Self.removingLocation), "no location: copied as it is")
        let located = try withManifest(try Self.edited(Self.fixture("screenshot_ios.jpg"), Self.place))
        let written = try XCTUnwrap(try JPEGMetadata.rewritingMetadata(path: located, editing: Self.removingLocation))
        XCTAssertEqual(written.dropped, ["C2PA content credentials (JUMBF): signed over the whole file, which changed"])
        XCTAssertNil(written.bytes.firstOffset(of: jumbf), "the manifest is gone")
        XCTAssertNotNil(try ContainerFixtures.bytes(located).firstOffset(of: jumbf))
    }

    /// Samsung's trailer records the network's country code (`MCC_Data`): its entry leaves the
    /// directory and its data is zeroed, nothing moves, and exiftool finds no country and warns of nothing.
    func testSamsungsNetworkCountryLeavesItsTrailer() throws {
        let image = try ContainerFixtures.bytes(Self.fixture("screenshot_ios.jpg"))
        let located = try ContainerFixtures.write(image + Self.samsungTrailer(["Image_UTC_Data": (0x0A01, "1705124333853"),
                                                                               "MCC_Data": (0x0AA1, "310")]), as: "samsung.jpg")
        // exiftool 13 adds the code: "United States / Guam (310)".
        XCTAssertTrue((try exiftool(located, ["-Samsung:all"])["Samsung:MCCData"] as? String)?.hasPrefix("United States / Guam") == true)
        let output = try rewritten(located)
        let tags = try exiftool(output, ["-Samsung:all", "-Warning"])
        XCTAssertNil(tags["Samsung:MCCData"])
        XCTAssertNotNil(tags["Samsung:TimeStamp"], "the other records stay")
        XCTAssertNil(tags["ExifTool:Warning"])
        XCTAssertEqual(try ContainerFixtures.bytes(output).count, try ContainerFixtures.bytes(located).count)
    }

    /// Samsung's SEF trailer as its phones write it: each record (two zero bytes, its type, its
    /// name's length and name, its value), then the directory, its size and "SEFT".
    static func samsungTrailer(_ records: KeyValuePairs<String, (type: UInt16, value: String)>) -> [UInt8] {
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(value >> (8 * $0) & 0xFF) } }
        var data: [UInt8] = [], entries: [UInt8] = []
        var starts: [(type: UInt16, start: Int, size: Int)] = []
        for (name, record) in records {
            let bytes = [0, 0] + le(Int(record.type), 2) + le(name.utf8.count, 4) + Array(name.utf8) + Array(record.value.utf8)
            starts.append((record.type, data.count, bytes.count))
            data += bytes
        }
        for (type, start, size) in starts { entries += [0, 0] + le(Int(type), 2) + le(data.count - start, 4) + le(size, 4) }
        let directory = Array("SEFH".utf8) + le(106, 4) + le(starts.count, 4) + entries
        return data + directory + le(directory.count, 4) + Array("SEFT".utf8)
    }

    /// A Google micro video whose MP4 has a `©xyz` place: the place goes from the movie in
    /// place (the same streams and duration, the same length, so the XMP's offset holds).
    func testAMotionPhotosVideoLosesItsLocationInPlace() throws {
        let movie = try ContainerFixtures.bytes(Fixtures.sample("video/with-gps_xyz.mp4"))
        let xmp = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" GCamera:MicroVideo="1"
              GCamera:MicroVideoVersion="1" GCamera:MicroVideoOffset="\(movie.count)"/></rdf:RDF></x:xmpmeta>
            """.utf8)
        let still = try JPEGMetadata.writingMetadata(MetadataBlocks(xmp: xmp), into: ContainerFixtures.bytes(Self.fixture("screenshot_ios.jpg")))
        let located = try ContainerFixtures.write(still.bytes + movie, as: "motion.jpg")
        let output = try ContainerFixtures.bytes(try rewritten(located))
        XCTAssertEqual(output.count, still.bytes.count + movie.count)
        let video = try ContainerFixtures.write(Array(output.suffix(movie.count)), as: "video.mp4")
        XCTAssertEqual(try locationTags(video), [])
        let original = Fixtures.sample("video/with-gps_xyz.mp4")
        XCTAssertFalse(try locationTags(original).isEmpty, "the check can fail")
        let probe = { (path: String) in try runProcess("ffprobe", ["-v", "error", "-show_streams", "-show_entries", "format=duration", path]).stdout }
        XCTAssertEqual(try probe(video), try probe(original))
    }
}
