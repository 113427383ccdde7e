import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// `iloc`, `infe` and `iref` boxes read from real files and written back: the same items, with
/// the field sizes and versions their values need.
final class ItemLocationsTests: XCTestCase {
    func meta(_ fixture: String) throws -> (bytes: [UInt8], meta: HEIFMetaBox) {
        let bytes = try [UInt8](Data(contentsOf: Fixtures.fixtures.appendingPathComponent("metadata/" + fixture)))
        let box = try XCTUnwrap(ISOBox.boxes(in: bytes, 0..<bytes.count).first { $0.type == "meta" })
        return (bytes, try HEIFMetaBox(bytes, box))
    }

    func testLocationsWrittenBackReadAlike() throws {
        for fixture in ["heic-location-everywhere.heic", "avif-grid-location.avif"] {
            let locations = try meta(fixture).meta.locations
            var folded = locations // base offsets are written into each extent's offset
            for index in folded.items.indices {
                for extent in folded.items[index].extents.indices { folded.items[index].extents[extent].offset += folded.items[index].baseOffset }
                folded.items[index].baseOffset = 0
            }
            for wide in [false, true] {
                let payload = locations.payload(wide: wide)
                let again = try ItemLocations(payload, payload: 0..<payload.count)
                XCTAssertEqual(again, folded, "\(fixture) wide: \(wide)")
                XCTAssertEqual(payload[4], wide ? 0x88 : 0x44, "offset and length sizes")
            }
        }
        XCTAssertEqual(try meta("avif-grid-location.avif").meta.locations.items.first { $0.id == 5 }?.constructionMethod, 1, "the grid in idat")
    }

    /// Item IDs past 16 bits need `iloc` version 2, `iref` version 1 and `infe` version 3.
    func testIDsPastSixteenBitsGetTheVersionsThatHoldThem() throws {
        var locations = try meta("heic-location-everywhere.heic").meta.locations
        locations.items.append(.init(id: 70_000, constructionMethod: 0, dataReference: 0, baseOffset: 0,
                                     extents: [.init(index: 0, offset: 123, length: 45)]))
        let payload = locations.payload(wide: false)
        XCTAssertEqual(payload[0], 2)
        XCTAssertEqual(try ItemLocations(payload, payload: 0..<payload.count).items.last?.id, 70_000)

        let references = ItemReferences(references: [.init(type: "cdsc", from: 70_000, to: [1])])
        let box = references.box
        let parsed = try ItemReferences(box, ISOBox(type: "iref", start: 0, headerSize: 8, size: box.count))
        XCTAssertEqual(parsed.version, 1)
        XCTAssertEqual(parsed.references, references.references)

        for id in [7, 70_000] {
            let infe = ItemInfoEntry.box(id: id, type: "mime", contentType: "application/rdf+xml")
            let entry = try XCTUnwrap(ItemInfoEntry(infe, ISOBox(type: "infe", start: 0, headerSize: 8, size: infe.count)))
            XCTAssertEqual([entry.id, entry.type, entry.contentType] as [AnyHashable?], [id, "mime", "application/rdf+xml"])
            XCTAssertEqual(infe[8], id > 0xFFFF ? 3 : 2, "version")
            XCTAssertEqual(infe[11], 1, "hidden")
        }
    }

    func testMetadataItemsDescribingThePrimaryComeFirst() throws {
        let parsed = try meta("heic-location-everywhere.heic").meta
        XCTAssertEqual(parsed.primary, 1)
        XCTAssertEqual(parsed.metadataItems.map(\.kind), [.exif, .xmp, .iptc])
        XCTAssertEqual(try meta("avif-grid-location.avif").meta.metadataItems.map(\.item.id), [6, 7])
    }
}
