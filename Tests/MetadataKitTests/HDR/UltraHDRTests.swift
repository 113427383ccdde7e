import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// Ultra HDR files assembled from a primary JPEG and a gain map JPEG, read back by our own
/// readers, by exiftool, and by libvips 8.18's `uhdrload` (pyvips-binary, in the tests' venv that
/// `scripts/test-python.sh` makes).
final class UltraHDRTests: XCTestCase {
    static func bytes(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The primary image and the gain map of an MPF file, as they lie in it.
    static func parts(of path: String) throws -> (primary: [UInt8], gainMap: [UInt8]) {
        let file = try bytes(path)
        let pictures = try JPEGStructure(path: path).pictures
        XCTAssertEqual(pictures.count, 2)
        let map = pictures[1]
        return (Array(file[..<map.offset]), Array(file[map.offset..<map.offset + map.size]))
    }

    /// Writes `bytes` and checks what every reader must find: two MPF images, the second the gain
    /// map with its stated length where the index says, the GContainer length equal to it.
    func checkAssembled(_ bytes: [UInt8], gainMapLength: Int, metadata: GainMapMetadata, file: StaticString = #filePath,
                        line: UInt = #line) throws -> String {
        let path = Fixtures.temporaryFolder().appendingPathComponent("ultrahdr.jpg").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let pictures = try JPEGStructure(path: path).pictures
        XCTAssertEqual(pictures.map(\.type), [0x03_0000, 0], file: file, line: line)
        XCTAssertEqual(pictures[1].offset + pictures[1].size, bytes.count, "the map ends the file", file: file, line: line)
        XCTAssertEqual(pictures[1].size, gainMapLength, file: file, line: line)
        XCTAssertEqual(pictures[0].size, pictures[1].offset, file: file, line: line)
        let found = try XCTUnwrap(JPEGGainMap.read(path: path), file: file, line: line)
        XCTAssertEqual(found.kind, .ultraHDR, file: file, line: line)
        GainMapMetadataTests.assertClose(try XCTUnwrap(found.metadata), metadata, file: file, line: line)
        let tags = try exiftool(path, ["-b"])
        XCTAssertEqual(tags["MPF0:NumberOfImages"] as? Int, 2, file: file, line: line)
        XCTAssertEqual(tags["MPImage2:MPImageLength"] as? Int, gainMapLength, file: file, line: line)
        XCTAssertNotNil(tags["MPImage2:MPImage2"], file: file, line: line)
        // exiftool 13 (Debian 13) names Google's Container namespace XMP-GContainer.
        let directoryLength = tags["XMP-Container:DirectoryItemLength"] ?? tags["XMP-GContainer:DirectoryItemLength"]
        XCTAssertEqual(directoryLength as? Int, gainMapLength, file: file, line: line)
        XCTAssertEqual("\(tags["XMP-hdrgm:Version"] ?? "")", "1.0", file: file, line: line)
        XCTAssertNil(tags["ExifTool:Warning"], file: file, line: line)
        return path
    }

    /// libavif's Ultra HDR JPEG taken apart and put together again with the metadata read from it.
    func testReassemblesSeineAndReplacesItsOldIndexAndDirectory() throws {
        let source = JPEGGainMapTests.fixture("seine_sdr_gainmap_srgb.jpg")
        let (primary, gainMap) = try Self.parts(of: source)
        let metadata = try XCTUnwrap(JPEGGainMap.read(path: source)?.metadata)
        let assembled = try UltraHDR.assemble(primary: primary, gainMap: gainMap, metadata: metadata)
        let mapLength = try UltraHDR.gainMapImage(gainMap, metadata: metadata).count
        let path = try checkAssembled(assembled, gainMapLength: mapLength, metadata: metadata)
        try checkUHDRLoad(path, gainMapLength: mapLength, metadata: metadata)
        let segments = try XCTUnwrap(JPEGSegments.segments(of: assembled))
        XCTAssertEqual(segments.filter { UltraHDR.isReplaced($0, in: assembled) }.count, 2, "one ISO APP2, one MPF")
        let primaryXMP = try XCTUnwrap(try JPEGMetadata.readMetadata(path: path).xmp)
        let properties = try XMPPacket.properties(in: primaryXMP)
        XCTAssertEqual(properties.filter { $0.namespace == HDRGainMapXMP.namespace }.map(\.name), ["Version"])
        XCTAssertTrue(properties.contains { $0.name == "HDRMaxValue" }, "the rest of the XMP is kept")
        let (again, againMap) = try Self.parts(of: path)
        let reassembled = try UltraHDR.assemble(primary: again, gainMap: againMap, metadata: metadata)
        XCTAssertTrue(reassembled == assembled, "assembling is idempotent")
        let scan = try XCTUnwrap(JPEGSegments.segments(of: primary)?.last).range.lowerBound
        let newScan = try XCTUnwrap(segments.last).range.lowerBound
        XCTAssertEqual(Array(assembled[newScan..<newScan + primary.count - scan]), Array(primary[scan...]), "the coded image as it was")
    }

    /// A primary with JFIF, EXIF and ICC but no XMP, and a bare gain map (seine's without its
    /// XMP): the XMP goes after APP0/EXIF, ISO and MPF right after it; the map gets its XMP and
    /// ISO segments first.
    func testAssemblesABarePrimaryAndMap() throws {
        let primary = try Self.bytes(Fixtures.sample("jpeg/apple_iphone_4.jpg"))
        XCTAssertNil(try JPEGMetadata.readMetadata(path: Fixtures.sample("jpeg/apple_iphone_4.jpg")).xmp)
        var gainMap = try Self.parts(of: JPEGGainMapTests.fixture("seine_sdr_gainmap_srgb.jpg")).gainMap
        let mapXMP = try XCTUnwrap(JPEGSegments.segments(of: gainMap)?.first { UltraHDR.isXMP($0, in: gainMap) })
        gainMap.removeSubrange(mapXMP.range)
        let metadata = GainMapMetadata(gainMapMin: [0.1], gainMapMax: [2.25], gamma: [1.5], hdrCapacityMin: 0.5, hdrCapacityMax: 2.25)
        let assembled = try UltraHDR.assemble(primary: primary, gainMap: gainMap, metadata: metadata)
        let map = try UltraHDR.gainMapImage(gainMap, metadata: metadata)
        XCTAssertEqual(Array(assembled.suffix(map.count)), map)
        let path = try checkAssembled(assembled, gainMapLength: map.count, metadata: metadata)
        try checkUHDRLoad(path, gainMapLength: map.count, metadata: metadata)
        let kinds = try XCTUnwrap(JPEGSegments.segments(of: assembled)).map { Self.describe($0, in: assembled) }
        let xmp = try XCTUnwrap(kinds.firstIndex(of: "XMP"))
        XCTAssertEqual(Array(kinds[..<xmp]).filter { $0 != "EXIF" && $0 != "APP0" }, [])
        XCTAssertEqual(Array(kinds[xmp...].prefix(3)), ["XMP", "ISO", "MPF"])
        let mapKinds = try XCTUnwrap(JPEGSegments.segments(of: map)).map { Self.describe($0, in: map) }
        XCTAssertEqual(Array(mapKinds.prefix(2)), ["XMP", "ISO"])
    }

    func testRefusesWhatCannotBeAssembled() {
        let metadata = GainMapMetadata.apple(headroom: 4)
        XCTAssertThrowsError(try UltraHDR.assemble(primary: [0xFF, 0xD8, 0xFF], gainMap: [0xFF, 0xD8], metadata: metadata))
        let primary = (try? Self.bytes(Fixtures.sample("livephoto/train.jpg"))) ?? []
        XCTAssertThrowsError(try UltraHDR.assemble(primary: primary, gainMap: Array(primary.prefix(100)), metadata: metadata))
        XCTAssertThrowsError(try UltraHDR.assemble(primary: primary, gainMap: primary, metadata: .apple(headroom: 1))) { error in
            XCTAssertTrue("\(error)".contains("HDRCapacityMax"))
        }
    }

    /// What libvips 8.18's `uhdrload` (libultrahdr) reads from `path`.
    static func uhdrload(_ path: String) throws -> [String: Any] {
        let script = """
            import json, sys, pyvips
            image = pyvips.Image.new_from_file(sys.argv[1])
            fields = {name: image.get(name) for name in image.get_fields() if name.startswith("gainmap") and name != "gainmap-data"}
            fields["loader"] = image.get("vips-loader")
            fields["gainmap-data-length"] = len(image.get("gainmap-data")) if "gainmap-data" in image.get_fields() else 0
            print(json.dumps(fields))
            """
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(PythonReference.run(script, [path]).utf8)) as? [String: Any])
    }

    /// libultrahdr's reading of the file against `metadata` (its boosts and capacities linear).
    func checkUHDRLoad(_ path: String, gainMapLength: Int, metadata: GainMapMetadata, file: StaticString = #filePath,
                       line: UInt = #line) throws {
        let fields = try Self.uhdrload(path)
        XCTAssertEqual(fields["loader"] as? String, "uhdrload", file: file, line: line)
        XCTAssertEqual(fields["gainmap-data-length"] as? Int, gainMapLength, file: file, line: line)
        let lists: [(String, [Double], Bool)] = [("max-content-boost", metadata.gainMapMax, true), ("min-content-boost", metadata.gainMapMin, true),
                                                 ("gamma", metadata.gamma, false), ("offset-sdr", metadata.offsetSDR, false),
                                                 ("offset-hdr", metadata.offsetHDR, false)]
        for (name, list, isLog) in lists {
            let read = try XCTUnwrap(fields["gainmap-\(name)"] as? [Double], name, file: file, line: line)
            for channel in 0..<3 {
                let value = GainMapMetadata.value(list, channel: channel)
                XCTAssertEqual(read[channel], isLog ? pow(2, value) : value, accuracy: 1e-4 * max(1, abs(read[channel])), name, file: file, line: line)
            }
        }
        XCTAssertEqual(fields["gainmap-hdr-capacity-max"] as? Double ?? 0, pow(2, metadata.hdrCapacityMax), accuracy: 1e-4, file: file, line: line)
        XCTAssertEqual(fields["gainmap-hdr-capacity-min"] as? Double ?? 0, pow(2, metadata.hdrCapacityMin), accuracy: 1e-4, file: file, line: line)
    }

    static func describe(_ segment: JPEGSegments.Segment, in jpeg: [UInt8]) -> String {
        let payload = jpeg[segment.payload]
        switch segment.marker {
        case 0xE0: return "APP0"
        case 0xE1 where payload.starts(with: JPEGSegments.exifHeader): return "EXIF"
        case 0xE1 where payload.starts(with: JPEGMetadata.xmpSignature): return "XMP"
        case 0xE2 where payload.starts(with: ISO21496.namespace): return "ISO"
        case 0xE2 where payload.starts(with: MPFIndex.signature): return "MPF"
        default: return String(format: "%02X", segment.marker)
        }
    }
}
