import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// The gain map metadata read from and written to Google's `hdrgm` XMP and ISO 21496-1's binary
/// form, and its validation.
final class GainMapMetadataTests: XCTestCase {
    static let threeChannels = GainMapMetadata(
        gainMapMin: [-0.256907, -0.261365, -0.280284], gainMapMax: [1.277177, 1.277203, 1.277969],
        gamma: [0.953784, 0.941095, 0.919422], offsetSDR: [0.015625], offsetHDR: [0.015625],
        hdrCapacityMin: 0, hdrCapacityMax: 1.3)

    static func assertClose(_ read: GainMapMetadata, _ expected: GainMapMetadata, accuracy: Double = 1e-9,
                     file: StaticString = #filePath, line: UInt = #line) {
        let pairs = zip(read.channelLists, expected.channelLists)
        for (got, want) in pairs {
            for channel in 0..<3 {
                XCTAssertEqual(GainMapMetadata.value(got, channel: channel), GainMapMetadata.value(want, channel: channel),
                               accuracy: accuracy, file: file, line: line)
            }
        }
        XCTAssertEqual(read.hdrCapacityMin, expected.hdrCapacityMin, accuracy: accuracy, file: file, line: line)
        XCTAssertEqual(read.hdrCapacityMax, expected.hdrCapacityMax, accuracy: accuracy, file: file, line: line)
        XCTAssertEqual(read.baseRenditionIsHDR, expected.baseRenditionIsHDR, file: file, line: line)
    }

    func testReadsAttributeFormWithTheSpecDefaults() throws {
        let packet = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/"
             hdrgm:Version="1.0" hdrgm:GainMapMax="2.5" hdrgm:HDRCapacityMax="2.5"/></rdf:RDF></x:xmpmeta>
            """.utf8)
        let metadata = try GainMapMetadata(hdrgmXMP: packet)
        XCTAssertEqual(metadata, GainMapMetadata(gainMapMin: [0], gainMapMax: [2.5], gamma: [1], offsetSDR: [1.0 / 64],
                                                 offsetHDR: [1.0 / 64], hdrCapacityMin: 0, hdrCapacityMax: 2.5))
    }

    func testRefusesMissingRequiredValuesOtherVersionsAndNonNumbers() {
        func packet(_ attributes: String) -> [UInt8] {
            Array("""
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" \(attributes)/></rdf:RDF></x:xmpmeta>
                """.utf8)
        }
        let cases = [
            ("hdrgm:Version=\"1.0\" hdrgm:HDRCapacityMax=\"2\"", "no hdrgm:GainMapMax"),
            ("hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"2\"", "no hdrgm:HDRCapacityMax"),
            ("hdrgm:GainMapMax=\"2\" hdrgm:HDRCapacityMax=\"2\"", "no hdrgm:Version"),
            ("hdrgm:Version=\"2.0\" hdrgm:GainMapMax=\"2\" hdrgm:HDRCapacityMax=\"2\"", "unsupported hdrgm:Version 2.0"),
            ("hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"lots\" hdrgm:HDRCapacityMax=\"2\"", "is not a number"),
            ("hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"1\" hdrgm:GainMapMin=\"2\" hdrgm:HDRCapacityMax=\"2\"", "below GainMapMin"),
            ("hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"2\" hdrgm:Gamma=\"0\" hdrgm:HDRCapacityMax=\"2\"", "Gamma is not positive"),
            ("hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"2\" hdrgm:HDRCapacityMax=\"0\"", "HDRCapacityMax is not above"),
            ("hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"2\" hdrgm:HDRCapacityMax=\"2\" hdrgm:BaseRenditionIsHDR=\"yes\"", "neither True"),
        ]
        for (attributes, reason) in cases {
            XCTAssertThrowsError(try GainMapMetadata(hdrgmXMP: packet(attributes)), attributes) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(error) should say \(reason)")
            }
        }
        XCTAssertThrowsError(try GainMapMetadata(hdrgmXMP: Array("<not xml".utf8)))
        XCTAssertThrowsError(try GainMapMetadata(gainMapMax: [1, 2], hdrCapacityMax: 1).validated())
        XCTAssertThrowsError(try GainMapMetadata(gainMapMax: [.infinity], hdrCapacityMax: 1).validated())
    }

    func testWrittenXMPReadsBackTheSameWithEveryValue() throws {
        var hdrBase = Self.threeChannels
        hdrBase.baseRenditionIsHDR = true
        for metadata in [Self.threeChannels, hdrBase, GainMapMetadata.apple(headroom: 3.85)] {
            let packet = metadata.hdrgmXMP()
            XCTAssertEqual(try GainMapMetadata(hdrgmXMP: packet), metadata)
            let names = Set(try XMPPacket.properties(in: packet).filter { $0.namespace == HDRGainMapXMP.namespace }.map(\.name))
            XCTAssertEqual(names, ["Version", "GainMapMin", "GainMapMax", "Gamma", "OffsetSDR", "OffsetHDR",
                                   "HDRCapacityMin", "HDRCapacityMax", "BaseRenditionIsHDR"])
        }
    }

    func testISOFormRoundTripsOneAndThreeChannelsAndAnHDRBase() throws {
        var hdrBase = Self.threeChannels
        hdrBase.baseRenditionIsHDR = true
        hdrBase.offsetHDR = [0.5]
        for metadata in [Self.threeChannels, hdrBase, GainMapMetadata.apple(headroom: 4.532783)] {
            let payload = metadata.iso21496Payload()
            let body = try XCTUnwrap(ISO21496.body(ofAPP2: payload))
            XCTAssertFalse(ISO21496.isVersionOnly(body))
            Self.assertClose(try GainMapMetadata(iso21496: body), metadata)
        }
        let single = GainMapMetadata.apple(headroom: 4).iso21496Body()
        XCTAssertEqual(single.count, 5 + 16 + 40, "one channel: versions, flags, two headrooms, five fractions")
        XCTAssertEqual(single[4], 0x40, "not multichannel, base colour space")
        XCTAssertEqual(Self.threeChannels.iso21496Body().count, 5 + 16 + 120)
        XCTAssertEqual(ISO21496.versionOnlyPayload.count, 28 + 4)
        XCTAssertTrue(ISO21496.isVersionOnly(try XCTUnwrap(ISO21496.body(ofAPP2: ISO21496.versionOnlyPayload))))
    }

    /// Hand-made from the layout: a common denominator of 4, headrooms 0 and 8/4, one channel of
    /// min −2/4, max 8/4, gamma 4/4, offsets 0 and 1/4 (signed fields in two's complement).
    func testReadsTheCommonDenominatorForm() throws {
        let words: [UInt32] = [4, 0, 8, UInt32(bitPattern: -2), 8, 4, 0, 1]
        let fields: [UInt8] = words.flatMap { word -> [UInt8] in
            [24, 16, 8, 0].map { (shift: UInt32) in UInt8(truncatingIfNeeded: word >> shift) }
        }
        let body: [UInt8] = [0, 0, 0, 3, 0x48] + fields
        let metadata = try GainMapMetadata(iso21496: body)
        XCTAssertEqual(metadata, GainMapMetadata(gainMapMin: [-0.5], gainMapMax: [2], gamma: [1], offsetSDR: [0], offsetHDR: [0.25],
                                                 hdrCapacityMin: 0, hdrCapacityMax: 2))
    }

    func testRefusesHostileISOBodies() {
        let good = Self.threeChannels.iso21496Body()
        XCTAssertThrowsError(try GainMapMetadata(iso21496: [0, 1] + good.dropFirst(2))) { error in
            XCTAssertTrue("\(error)".contains("minimum_version 1"))
        }
        for length in [0, 1, 4, 5, 20, good.count - 1] {
            XCTAssertThrowsError(try GainMapMetadata(iso21496: Array(good.prefix(length))), "\(length) bytes")
        }
        var zeroDenominator = good
        zeroDenominator.replaceSubrange(9..<13, with: [0, 0, 0, 0])
        XCTAssertThrowsError(try GainMapMetadata(iso21496: zeroDenominator))
        var random = SplitMix(seed: 21496)
        for _ in 0..<2000 {
            var bytes = good
            for _ in 0..<4 { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = try? GainMapMetadata(iso21496: bytes)
        }
    }

    func testFractionsKeepExactValuesAndClampTheRest() {
        for value in [0, 1, -1, 0.015625, 1.277177, -0.256907, 2.1926450779423958, 1e-7, 1e6] {
            let fraction = Fraction(signed: value)
            XCTAssertEqual(Double(fraction.numerator) / Double(fraction.denominator), value, accuracy: abs(value) * 1e-9 + 1e-12)
        }
        XCTAssertEqual(Fraction(signed: 1e12).numerator, Int64(Int32.max))
        XCTAssertEqual(Fraction(signed: -.infinity).numerator, -Int64(Int32.max))
        XCTAssertEqual(Fraction(unsigned: -3).numerator, 0)
        XCTAssertEqual(Fraction(signed: .nan).numerator, 0)
    }
}
