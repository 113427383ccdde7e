import Foundation
@testable import MediaBatchCore
import TestSupport
@testable import VipsKit
import XCTest

/// Which decoder a HEIC goes to, chosen from its header, and what the report says: libavcodec for
/// the common case, libheif for what the loader declines or when the environment asks, with why.
final class HEIFDecodingTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    func testChoiceFromTheHeaderAndTheEnvironment() {
        let photo = Fixtures.sample("heic/IMG_1034.heic")
        XCTAssertEqual(HEIFDecoding.choose(path: photo, environment: [:]), .libavcodec)
        XCTAssertEqual(HEIFDecoding.choose(path: photo, environment: ["MEDIABATCH_HEIF_DECODER": "libheif"]),
                       .libheif(reason: "MEDIABATCH_HEIF_DECODER=libheif"))
        let sequence = Fixtures.fixtures.appendingPathComponent("kinds/images/animated_avis_3frames.avif").path
        XCTAssertEqual(HEIFDecoding.choose(path: sequence, environment: [:]), .libheif(reason: "it is an image sequence (a 'moov' box)"))
    }

    /// Pictures no larger than the photo's 320×240 thumbnail item: libavcodec decodes that item (as libvips'
    /// thumbnail chooses it), not the whole photo, and the report says so; the same picture as libheif's decode of
    /// that item (`MEDIABATCH_HEIF_DECODER=libheif`). One larger: the whole photo.
    func testAThumbnailItemThatCoversThePicturesIsDecodedInstead() throws {
        let input = try Self.folder(of: ["heic/IMG_1034.heic"])
        func run(_ size: Int) throws -> (ItemResult, VImage) {
            let stages = """
                {"stage": "decode"}, {"stage": "downsample", "maxPixelSize": \(size)}, {"stage": "transcode", "to": "png"}, {"stage": "write"}
                """
            let output = Fixtures.temporaryFolder()
            let item = try XCTUnwrap(result(try Self.run(try pipeline(stages), input: input, output: output), "IMG_1034.heic"))
            XCTAssertEqual(item.status, .ok, item.error?.message ?? "")
            return (item, try VImage.decode(output.appendingPathComponent(try XCTUnwrap(item.output)).path))
        }
        let (small, picture) = try run(256), (large, _) = try run(400)
        XCTAssertEqual([small.decoder, large.decoder], [.libavcodec, .libavcodec])
        XCTAssertEqual([small.decoderReason, large.decoderReason], ["its 320×240 thumbnail covers the largest picture", nil])
        setenv("MEDIABATCH_HEIF_DECODER", "libheif", 1)
        defer { unsetenv("MEDIABATCH_HEIF_DECODER") }
        let (libheif, theirs) = try run(256)
        XCTAssertEqual(libheif.decoder, .libheif)
        XCTAssertEqual([picture.width, picture.height], [256, 192])
        XCTAssertEqual([theirs.width, theirs.height], [256, 192])
        XCTAssertEqual(try picture.meanAbsoluteDifference(from: theirs), 0)
    }

    /// Whole runs, in worker processes, of an iPhone photo turned a quarter: the report names
    /// libavcodec; with `MEDIABATCH_HEIF_DECODER=libheif` (the workers inherit it), libheif and
    /// why. The two PNGs are the same picture, upright (the decodes are sample for sample the
    /// same: `HEIFPictureTests`); libavcodec's is turned after the reduce, libheif's before, so
    /// the passes run across the other axis and round apart at hard edges (mean 0.31 measured).
    func testRunReportsTheDecoderAndTheEnvironmentForcesLibheif() throws {
        let input = try Self.folder(of: ["heic/iphone_xr_issue263.heic"])
        var written: [VImage] = []
        for forced in [false, true] {
            if forced { setenv("MEDIABATCH_HEIF_DECODER", "libheif", 1) }
            defer { unsetenv("MEDIABATCH_HEIF_DECODER") }
            let output = Fixtures.temporaryFolder()
            let stages = webStages.replacingOccurrences(of: #""to": "jpeg""#, with: #""to": "png""#)
            let item = try XCTUnwrap(result(try Self.run(try pipeline(stages), input: input, output: output), "iphone_xr_issue263.heic"))
            XCTAssertEqual(item.status, .ok, item.error?.message ?? "")
            XCTAssertEqual(item.decoder, forced ? .libheif : .libavcodec)
            XCTAssertEqual(item.decoderReason, forced ? "MEDIABATCH_HEIF_DECODER=libheif" : nil)
            written.append(try VImage.decode(output.appendingPathComponent(try XCTUnwrap(item.output)).path))
        }
        XCTAssertEqual(written.map { [$0.width, $0.height] }, [[1536, 2048], [1536, 2048]])
        XCTAssertLessThan(try written[0].meanAbsoluteDifference(from: written[1]), 0.5)
    }

    /// A HEIC whose auxiliary image refers to two images, as recent iPhones' do: libheif 1.15 refuses the file outright
    /// ("Too many auxiliary image references"), so its header comes from mediabatch's own reading, and its picture and
    /// its gain map from libavcodec: the untouched photo's picture, and an Ultra HDR JPEG with the same gain map as
    /// the untouched photo's, as libvips 8.18 reads them.
    func testAPhotoLibheifRefusesIsDecodedByTheOwnLoader() throws {
        let input = Fixtures.temporaryFolder()
        let refused = input.appendingPathComponent("shared-auxiliary.heic").path
        try Data(try Self.sharingAnAuxiliaryImage(Fixtures.sample("heic/pug.heic"))).write(to: URL(fileURLWithPath: refused))
        XCTAssertThrowsError(try VImage.open(refused)) { XCTAssertTrue("\($0)".contains("Too many auxiliary image references"), "\($0)") }
        try FileManager.default.copyItem(atPath: Fixtures.sample("heic/pug.heic"), toPath: input.appendingPathComponent("pug.heic").path)
        let output = Fixtures.temporaryFolder()
        let stages = webStages.replacingOccurrences(of: #""to": "jpeg""#, with: #""to": "png""#)
        let report = try Self.run(try pipeline(stages), input: input, output: output)
        let item = try XCTUnwrap(result(report, "shared-auxiliary.heic")), original = try XCTUnwrap(result(report, "pug.heic"))
        XCTAssertEqual(item.status, .ok, item.error?.message ?? "")
        XCTAssertEqual(item.decoder, .libavcodec)
        let pictures = try [item, original].map { try VImage.decode(output.appendingPathComponent(try XCTUnwrap($0.output)).path) }
        XCTAssertEqual(pictures.map { [$0.width, $0.height] }, [[2048, 1536], [2048, 1536]])
        XCTAssertEqual(try pictures[0].meanAbsoluteDifference(from: pictures[1]), 0)

        let jpegs = Fixtures.temporaryFolder()
        let jpeg = try Self.run(try pipeline(webStages), input: input, output: jpegs)
        let described = try [item, original].map { item in
            let written = try XCTUnwrap(result(jpeg, item.input))
            XCTAssertFalse(written.removedMetadata?.contains { $0.hasPrefix("HDR gain map") } ?? false, "\(written.removedMetadata ?? [])")
            return try HDRReference.describe(jpegs.appendingPathComponent(try XCTUnwrap(written.output)).path)
        }
        XCTAssertEqual(described.map(\.loader), ["uhdrload", "uhdrload"], "its gain map too, through libavcodec")
        XCTAssertEqual(described.map { [$0.gainmap?.width, $0.gainmap?.height] }, [[1024, 768], [1024, 768]])
        XCTAssertEqual(described[0].maxContentBoost, described[1].maxContentBoost)
    }

    /// `pug.heic` with its depth image's `auxl` reference made to name the primary twice (same length: the gain map's
    /// `cdsc` entry gives up its one reference): what libheif 1.15 refuses in recent iPhone photos.
    private static func sharingAnAuxiliaryImage(_ path: String) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let iref = try XCTUnwrap(bytes.firstOffset(of: Array("iref".utf8)))
        let size = Int(bytes[iref - 4]) << 24 | Int(bytes[iref - 3]) << 16 | Int(bytes[iref - 2]) << 8 | Int(bytes[iref - 1])
        var entries: [[UInt8]] = [], offset = iref + 8
        while offset < iref - 4 + size {
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            entries.append(Array(bytes[offset..<offset + length]))
            offset += length
        }
        func fields(_ entry: [UInt8]) -> (type: String, from: Int) { (String(decoding: entry[4..<8], as: UTF8.self), Int(entry[8]) << 8 | Int(entry[9])) }
        let auxiliary = try XCTUnwrap(entries.firstIndex { fields($0).type == "auxl" })
        let description = try XCTUnwrap(entries.firstIndex { fields($0).type == "cdsc" && $0.count == 14 && Int($0[12]) << 8 | Int($0[13]) == fields(entries[auxiliary]).from })
        entries[auxiliary] = [0, 0, 0, 16] + entries[auxiliary][4..<10] + [0, 2] + entries[auxiliary][12..<14] + entries[auxiliary][12..<14]
        entries[description] = [0, 0, 0, 12] + entries[description][4..<10] + [0, 0]
        let rewritten = entries.flatMap { $0 }
        XCTAssertEqual(rewritten.count, size - 12)
        bytes.replaceSubrange(iref + 8..<iref - 4 + size, with: rewritten)
        return bytes
    }
}
