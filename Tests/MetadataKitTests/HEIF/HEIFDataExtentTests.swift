import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

final class HEIFDataExtentTests: XCTestCase {
    func testWholeFilesClaimExactlyTheirSize() throws {
        for sample in ["heic/IMG_1034.heic", "heic/L_exif_xmp_iptc.heic", "heic/iphone_xr_issue263.heic", "heic/pug.heic"] {
            let extent = try XCTUnwrap(try HEIFDataExtent.claimedEnd(path: Fixtures.sample(sample)), sample)
            XCTAssertEqual(extent.claimed, extent.size, sample)
        }
    }

    func testCutOffFilesClaimMoreThanTheyHave() throws {
        for (name, claimed) in [("truncated.heic", 3658), ("IMG_1034_truncated_60pct.heic", 1_499_892)] {
            let extent = try XCTUnwrap(try HEIFDataExtent.claimedEnd(path: Fixtures.broken.appendingPathComponent(name).path))
            XCTAssertEqual(extent.claimed, claimed, name)
            XCTAssertLessThan(extent.size, claimed, name)
        }
        XCTAssertNil(try HEIFDataExtent.claimedEnd(path: Fixtures.broken.appendingPathComponent("empty.heic").path))
    }

    /// A cut after the last item (a motion photo's trailing video, say) leaves the items whole.
    func testACutAfterTheItemsDoesNotCount() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("heic/L_exif_xmp_iptc.heic"))))
        let whole = bytes.count
        bytes += [0, 0, 0x10, 0, 0x6D, 0x70, 0x76, 0x64] + [UInt8](repeating: 0, count: 100) // 'mpvd' claiming 4 KiB, 108 bytes there
        let file = Fixtures.temporaryFolder().appendingPathComponent("motion.heic")
        try Data(bytes).write(to: file)
        let extent = try XCTUnwrap(try HEIFDataExtent.claimedEnd(path: file.path))
        XCTAssertEqual(extent.claimed, whole)
        XCTAssertEqual(extent.size, whole + 108)
    }

    /// An `mdat` sized "to the end of the file" does not hide a cut: `iloc` tells.
    func testItemLocationsTellWhenTheMediaBoxRunsToTheEnd() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("heic/L_exif_xmp_iptc.heic"))))
        let mdat = try XCTUnwrap(bytes.firstOffset(of: Array("mdat".utf8))) - 4
        bytes.replaceSubrange(mdat..<mdat + 4, with: [0, 0, 0, 0])
        let whole = Fixtures.temporaryFolder().appendingPathComponent("whole.heic")
        try Data(bytes).write(to: whole)
        XCTAssertEqual(try HEIFDataExtent.claimedEnd(path: whole.path)?.claimed, bytes.count)

        let cut = Fixtures.temporaryFolder().appendingPathComponent("cut.heic")
        try Data(bytes.prefix(bytes.count - 1000)).write(to: cut)
        let extent = try XCTUnwrap(try HEIFDataExtent.claimedEnd(path: cut.path))
        XCTAssertEqual(extent.size, bytes.count - 1000)
        XCTAssertEqual(extent.claimed, bytes.count, "the last item's extent ends where the whole file did")
    }

    /// A damaged `iloc` (bytes flipped, 64-bit fields, counts past the box) gives an answer or
    /// nil, never a trap, and a flip outside the fields that matter still reads.
    func testDamagedItemLocationsNeverTrap() throws {
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("heic/L_exif_xmp_iptc.heic"))))
        let metaStart = try XCTUnwrap(file.firstOffset(of: Array("meta".utf8))) - 4
        let meta = Array(file[metaStart..<metaStart + Int(try XCTUnwrap(file.uint32(at: metaStart)))])
        let whole = try XCTUnwrap(HEIFDataExtent.itemDataEnd(meta, payloadStart: 12))
        XCTAssertEqual(whole, file.count)
        let iloc = try XCTUnwrap(meta.firstOffset(of: Array("iloc".utf8))) - 4
        var generator = SplitMix(seed: 19)
        var answered = 0
        for _ in 0..<2000 {
            var damaged = meta
            for _ in 0..<(1 + generator.next() % 3) {
                let offset = iloc + 8 + Int(generator.next() % UInt64(Int(meta.uint32(at: iloc)!) - 8))
                damaged[offset] = UInt8(truncatingIfNeeded: generator.next())
            }
            guard let end = HEIFDataExtent.itemDataEnd(damaged, payloadStart: 12) else { continue }
            XCTAssertGreaterThanOrEqual(end, 0)
            answered += 1
        }
        XCTAssertGreaterThan(answered, 200, "some damaged boxes still read")
    }
}
