@testable import MetadataKit
import TestSupport
import XCTest

final class IPTCBlockTests: XCTestCase {
    private func dataset(_ record: UInt8, _ number: UInt8, _ text: String) -> [UInt8] {
        let data = Array(text.utf8)
        return [0x1C, record, number, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
    }

    /// An image resource: signature, id, Pascal name padded to even, size, data padded to even.
    private func resource(_ id: UInt16, name: String = "", _ data: [UInt8]) -> [UInt8] {
        var name = [UInt8(name.utf8.count)] + Array(name.utf8)
        if name.count % 2 == 1 { name.append(0) }
        let size = UInt32(data.count)
        return Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF)] + name
            + [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + data + (data.count % 2 == 1 ? [0] : [])
    }

    private let version: [UInt8] = [0x1C, 2, 0, 0, 2, 0, 4]

    func testRemovesLocationDatasetsFromBareIIMKeepingTheRestByteExact() throws {
        let byline = dataset(2, 80, "Peter"), keywords = dataset(2, 25, "kyra") + dataset(2, 25, "studio")
        let block = version + dataset(2, 90, "Mainz") + byline + dataset(2, 101, "Deutschland") + keywords
            + dataset(2, 26, "A") + dataset(2, 26, "B") + dataset(2, 27, "Loc") + dataset(2, 92, "HS")
            + dataset(2, 95, "RP") + dataset(2, 100, "DEU")
        XCTAssertEqual(try IPTCBlock.locationValues(in: block)["IPTC:ContentLocationCode"], "A; B")
        let removal = try XCTUnwrap(IPTCBlock.removingLocation(from: block))
        XCTAssertEqual(removal.bytes, version + byline + keywords)
        XCTAssertEqual(removal.removed, [
            "IPTC:City", "IPTC:Country-PrimaryLocationName", "IPTC:ContentLocationCode", "IPTC:ContentLocationName",
            "IPTC:Sub-location", "IPTC:Province-State", "IPTC:Country-PrimaryLocationCode",
        ])
    }

    func testReadsADatasetsTextBareOrInsideImageResources() throws {
        let iim = version + dataset(2, 80, "Peter") + dataset(2, 120, "Kyra im Studio") + dataset(2, 120, "second")
        XCTAssertEqual(try IPTCBlock.text(ofDataset: 2, 120, in: iim), "Kyra im Studio", "the first")
        XCTAssertEqual(try IPTCBlock.text(ofDataset: 2, 120, in: Array("Photoshop 3.0\0".utf8) + resource(0x0404, iim)), "Kyra im Studio")
        XCTAssertNil(try IPTCBlock.text(ofDataset: 2, 105, in: iim))
    }

    func testOnlyTheApplicationRecordNamesPlaces() throws {
        // Record 1 dataset 90 is the coded character set, not a city.
        let block = [0x1C, 1, 90, 0, 3, 0x1B, 0x25, 0x47] + version
        XCTAssertNil(try IPTCBlock.removingLocation(from: block))
        XCTAssertNil(try IPTCBlock.removingLocation(from: []))
    }

    func testStepsOverExtendedLengthDatasets() throws {
        // 0x8002: two length bytes follow, giving 0x0104 bytes of data.
        let preview = [0x1C, 2, 202, 0x80, 0x02, 0x01, 0x04] + [UInt8](repeating: 0x1C, count: 0x104)
        let block = version + preview + dataset(2, 90, "Mainz") + [0, 0, 0]
        let removal = try XCTUnwrap(IPTCBlock.removingLocation(from: block))
        XCTAssertEqual(removal.bytes, version + preview + [0, 0, 0])
        XCTAssertEqual(removal.removed, ["IPTC:City"])
    }

    func testRewritesTheIIMResourceAndDropsItsDigest() throws {
        let iim = version + dataset(2, 90, "Mainz") + dataset(2, 80, "Peter") // odd once the city goes
        let resolution = resource(0x03ED, [0, 0x48, 0, 0, 0, 1, 0, 1, 0, 0x48, 0, 0, 0, 1, 0, 1])
        let url = resource(0x040B, name: "ab", Array("http://x".utf8) + [0])
        let block = IPTCBlock.photoshopHeader + resolution + resource(0x0425, [UInt8](repeating: 7, count: 16))
            + resource(0x0404, name: "ab", iim) + url
        XCTAssertEqual(try IPTCBlock.locationValues(in: block), ["IPTC:City": "Mainz"])

        let removal = try XCTUnwrap(IPTCBlock.removingLocation(from: block))
        XCTAssertEqual(removal.removed, ["IPTC:City"])
        let keptIIM = version + dataset(2, 80, "Peter")
        XCTAssertEqual(keptIIM.count % 2, 1)
        XCTAssertEqual(removal.bytes, IPTCBlock.photoshopHeader + resolution + resource(0x0404, name: "ab", keptIIM) + url)
        let (resources, _) = try IPTCBlock.resources(in: removal.bytes, from: IPTCBlock.photoshopHeader.count)
        XCTAssertEqual(resources.map(\.id), [0x03ED, 0x0404, 0x040B])
        XCTAssertNil(try IPTCBlock.removingLocation(from: removal.bytes))
    }

    func testDigestStaysWhenNothingIsRemoved() throws {
        let block = IPTCBlock.photoshopHeader + resource(0x0425, [UInt8](repeating: 7, count: 16)) + resource(0x0404, version)
        XCTAssertNil(try IPTCBlock.removingLocation(from: block))
    }

    func testLyingLengthsThrowInsteadOfTrapping() throws {
        let iim = version + dataset(2, 90, "Mainz") + [0x1C, 2, 202, 0x80, 0x02, 0x01, 0x04, 1, 2]
        XCTAssertThrowsError(try IPTCBlock.removingLocation(from: iim))
        XCTAssertThrowsError(try IPTCBlock.removingLocation(from: version + [0x1C, 2, 202, 0x80, 0x00]))
        XCTAssertThrowsError(try IPTCBlock.removingLocation(from: version + [0x1C, 2, 202, 0x80, 0x09] + Array(repeating: 0xFF, count: 9)))
        XCTAssertThrowsError(try IPTCBlock.removingLocation(from: version + Array("junk".utf8)))
        XCTAssertThrowsError(try IPTCBlock.removingLocation(from: Array("GIF89a".utf8)))

        // Every truncation and every single-byte corruption of a real block: an answer or an error, never a trap.
        let blocks = try JPEGMetadata.readMetadata(path: Fixtures.sample("jpeg/iptc_reference_2019.jpg"))
        let block = IPTCBlock.photoshopHeader + (try XCTUnwrap(IPTCBlock.photoshopResources(iim: blocks.iptc, others: blocks.photoshop)))
        for end in 0..<block.count {
            _ = try? IPTCBlock.removingLocation(from: Array(block[..<end]))
        }
        for offset in block.indices {
            var corrupted = block
            corrupted[offset] ^= 0xFF
            _ = try? IPTCBlock.removingLocation(from: corrupted)
            _ = try? IPTCBlock.locationValues(in: corrupted)
        }
    }

    func testReadsLocationFromARealBlock() throws {
        let block = try XCTUnwrap(JPEGMetadata.readMetadata(path: Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg")).iptc)
        XCTAssertEqual(try IPTCBlock.locationValues(in: block), [
            "IPTC:City": "Mainz", "IPTC:Sub-location": "Fotostudio HS", "IPTC:Province-State": "Rheinland-Pfalz",
            "IPTC:Country-PrimaryLocationName": "Deutschland",
        ])
    }

    func testSplitsPhotoshopResourcesIntoIIMCopiesAndTheRest() throws {
        let first = version + dataset(2, 90, "Mainz"), second = version + dataset(2, 116, "(c) Kyra")
        let resolution = resource(0x03ED, [0, 0x48, 0, 0, 0, 1, 0, 1, 0, 0x48, 0, 0, 0, 1, 0, 1])
        let digest = resource(0x0425, [UInt8](repeating: 7, count: 16))
        let exifCopy = resource(0x0422, Array("MM\0*".utf8) + [0, 0, 0, 8, 0, 0]), thumbnail = resource(0x040C, [0xFF, 0xD8])
        for header in [IPTCBlock.photoshopHeader, []] {
            let split = try IPTCBlock.splitting(photoshopResources: header + resource(0x0404, first) + resolution + digest
                                                + exifCopy + thumbnail + resource(0x0404, second))
            XCTAssertEqual(split.iim, [first, second])
            XCTAssertEqual(split.others, resolution, "the digest describes the IIM as it was; EXIF copies and thumbnails go")
        }
        XCTAssertThrowsError(try IPTCBlock.splitting(photoshopResources: Array("8BIM".utf8) + [4, 4, 0, 0, 0, 0, 1, 0]))
    }

    func testMergingKeepsEveryDatasetOnceInRecordOrder() throws {
        let envelope = [0x1C, 1, 90, 0, 3, 0x1B, 0x25, 0x47] as [UInt8]
        let city = dataset(2, 90, "Mainz"), rights = dataset(2, 116, "(c) Kyra"), keyword = dataset(2, 25, "a")
        let merged = try IPTCBlock.merging([version + city + keyword + keyword, envelope + version + rights + city + [0, 0]])
        XCTAssertEqual(merged, envelope + version + city + keyword + keyword + rights, "a repeat within the first copy stays")
        XCTAssertNil(try IPTCBlock.merging([[], [0, 0]]))
        XCTAssertThrowsError(try IPTCBlock.merging([version + [0x1C, 2, 90, 0, 9, 1]]))
    }

    func testBuildsResourcesAroundIIMThatSplitBackIntoThem() throws {
        let iim = version + dataset(2, 80, "Peter") // odd length: padded
        let resolution = resource(0x03ED, [0, 0x48, 0, 0, 0, 1, 0, 1, 0, 0x48, 0, 0, 0, 1, 0, 1])
        let built = try XCTUnwrap(IPTCBlock.photoshopResources(iim: iim, others: resolution))
        XCTAssertEqual(built, resolution + resource(0x0404, iim))
        let split = try IPTCBlock.splitting(photoshopResources: built)
        XCTAssertEqual(split.iim, [iim])
        XCTAssertEqual(split.others, resolution)
        XCTAssertNil(IPTCBlock.photoshopResources(iim: nil, others: nil))
    }
}
