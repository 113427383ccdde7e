@testable import MediaBatchCore
import XCTest

final class LocationMetadataTests: XCTestCase {
    func iim(_ record: UInt8, _ dataset: UInt8, _ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return [0x1C, record, dataset, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }

    func testIPTCLocationDatasetsAreFoundInsideAPhotoshopWrapper() {
        let wrapper = Array("Photoshop 3.0\0008BIM\u{04}\u{04}".utf8) + [0, 0, 0, 0, 0, 40]
        let withCity = wrapper + iim(1, 90, "\u{1B}%G") + iim(2, 5, "Title") + iim(2, 90, "Paris")
        let withoutPlace = wrapper + iim(2, 5, "Title") + iim(2, 116, "© Someone") + iim(2, 25, "keyword")
        XCTAssertTrue(LocationMetadata.iptcCarriesLocation(withCity))
        XCTAssertFalse(LocationMetadata.iptcCarriesLocation(withoutPlace), "record 1 dataset 90 is the character set, not a city")
        for dataset: UInt8 in [26, 27, 92, 95, 100, 101] {
            XCTAssertTrue(LocationMetadata.iptcCarriesLocation(wrapper + iim(2, dataset, "x")), "2:\(dataset)")
        }
    }

    func testXMPLocationMarkers() {
        let gps = #"<x:xmpmeta><rdf:Description exif:GPSLatitude="48,51.4N"/></x:xmpmeta>"#
        let city = #"<x:xmpmeta><rdf:Description><photoshop:City>Paris</photoshop:City></rdf:Description></x:xmpmeta>"#
        let rights = #"<x:xmpmeta><rdf:Description><dc:rights>© Someone</dc:rights></rdf:Description></x:xmpmeta>"#
        XCTAssertTrue(LocationMetadata.xmpCarriesLocation(Array(gps.utf8)))
        XCTAssertTrue(LocationMetadata.xmpCarriesLocation(Array(city.utf8)))
        XCTAssertFalse(LocationMetadata.xmpCarriesLocation(Array(rights.utf8)))
    }

    func testFieldsToRemove() {
        let names = ["exif-ifd0-Make", "exif-ifd3-GPSLatitude", "exif-ifd3-GPSLongitude", "xmp-data", "iptc-data", "icc-profile-data"]
        let blobs: [String: [UInt8]] = ["xmp-data": Array("<photoshop:City>".utf8), "iptc-data": iim(2, 5, "Title")]
        XCTAssertEqual(LocationMetadata.fieldsCarryingLocation(in: names, blob: { blobs[$0] }),
                       ["exif-ifd3-GPSLatitude", "exif-ifd3-GPSLongitude", "xmp-data"])
    }
}
