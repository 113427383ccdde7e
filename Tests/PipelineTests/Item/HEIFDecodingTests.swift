import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Which decoder a HEIC goes to, chosen from its header, and what the report says: libavcodec for
/// the common case, libheif for what the loader declines or when the environment asks, with why.
final class HEIFDecodingTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
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
        // Exactly libheif 1.15's; Debian 13's libvips resizes libheif's decode through its own Highway passes.
        XCTAssertLessThan(try picture.meanAbsoluteDifference(from: theirs), 0.05)
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

    /// A batch's first photos decode their tiles on one thread (the other CPUs run other photos), its last
    /// on `tailThreads` (nothing waits behind it for a CPU), and a run of one photo too; the same
    /// pictures either way. In this process and in worker processes alike.
    func testOnlyTheBatchsTailDecodesOnMoreThanOneThread() throws {
        let input = Fixtures.temporaryFolder()
        for name in ["a", "b", "c", "d", "e", "f"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample("heic/iphone_xr_issue263.heic"), toPath: input.appendingPathComponent("\(name).heic").path)
        }
        let document = Data(#"{"version": 1, "stages": [\#(webStages)]}"#.utf8)
        for isolated in [false, true] {
            let output = Fixtures.temporaryFolder()
            var options = RunOptions(inputRoot: input, outputRoot: output, concurrency: 2, memoryBudget: .init(bytes: 4 << 30), pipelineName: "test")
            if isolated { options.isolation = .init(executable: Fixtures.executable, pipelineDocument: document, pipelineFolder: input) }
            let items = try RunReport(PipelineRunner(pipeline: try pipeline(webStages), options: options).run()).items
            XCTAssertEqual(items.map(\.decoder), Array(repeating: .libavcodec, count: 6))
            XCTAssertEqual(items.prefix(2).map(\.decoderThreads), [1, 1], "isolated: \(isolated)")
            XCTAssertEqual(items.last?.decoderThreads, HEIFPicture.tailThreads, "isolated: \(isolated)")
            let written = try items.map { try Data(contentsOf: output.appendingPathComponent(try XCTUnwrap($0.output))) }
            XCTAssertEqual(Set(written).count, 1, "the same JPEG from every thread count")
        }
        let one = try Self.folder(of: ["heic/iphone_xr_issue263.heic"])
        let item = try XCTUnwrap(try Self.run(try pipeline(webStages), input: one, output: Fixtures.temporaryFolder()).items.first)
        XCTAssertEqual(item.decoderThreads, HEIFPicture.tailThreads)
    }

    /// A camera's 10-bit HIF (the corpus' `cat.hif`) to a 2048 px JPEG in worker processes, through libavcodec and
    /// with libheif forced: the same 16-bit picture either way (`HEIFPictureTests`), reduced and made 8-bit by the
    /// same libvips operations, so the same JPEG, sample for sample (on Debian 12).
    func testTenBitPhotoRunsAsWithLibheif() throws {
        let input = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: try Fixtures.corpusFile("heic/cat.hif"), toPath: input.appendingPathComponent("cat.hif").path)
        var written: [VImage] = []
        for forced in [false, true] {
            if forced { setenv("MEDIABATCH_HEIF_DECODER", "libheif", 1) }
            defer { unsetenv("MEDIABATCH_HEIF_DECODER") }
            let output = Fixtures.temporaryFolder()
            let item = try XCTUnwrap(result(try Self.run(try pipeline(webStages), input: input, output: output), "cat.hif"))
            XCTAssertEqual(item.status, .ok, item.error?.message ?? "")
            XCTAssertEqual(item.decoder, forced ? .libheif : .libavcodec)
            XCTAssertEqual(item.decoderReason, forced ? "MEDIABATCH_HEIF_DECODER=libheif" : nil)
            written.append(try VImage.decode(output.appendingPathComponent(try XCTUnwrap(item.output)).path))
        }
        XCTAssertEqual(written.map { [$0.width, $0.height, $0.bitsPerSample] }, [[2048, 1368, 8], [2048, 1368, 8]])
        // Debian 13's libheif 1.23 upsamples chroma bilinearly; the loader as 1.15, by nearest neighbour.
        XCTAssertLessThanOrEqual(try written[0].meanAbsoluteDifference(from: written[1]), Vips.version == "8.14" ? 0 : 0.5)
        let mean = Double(try written[0].pixels().reduce(0) { $0 + Int($1) }) / Double(2048 * 1368 * 3)
        XCTAssertEqual(mean, 125.2, accuracy: 1, "scaled down from 16 bits, not clipped to white")
    }

    /// A size the larger thumbnail item of the corpus' `cat.hif` covers, where that item decodes to 1664×1088 for its
    /// `ispe`'s 1616×1080: libheif 1.15, and so libvips' thumbnail, fail on it (Debian 12: the item fails with libheif
    /// forced); the loader decodes the photo instead and says why. The picture is the photo's, as at 2048 px.
    func testAThumbnailThatFailsGivesWayToThePhoto() throws {
        let input = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: try Fixtures.corpusFile("heic/cat.hif"), toPath: input.appendingPathComponent("cat.hif").path)
        func run(_ size: Int) throws -> (ItemResult, VImage?) {
            let stages = """
                {"stage": "decode"}, {"stage": "downsample", "maxPixelSize": \(size)}, {"stage": "transcode", "to": "jpeg", "quality": 95},
                {"stage": "write"}
                """
            let output = Fixtures.temporaryFolder()
            let item = try XCTUnwrap(result(try Self.run(try pipeline(stages), input: input, output: output), "cat.hif"))
            return (item, try item.output.map { try VImage.decode(output.appendingPathComponent($0).path) })
        }
        let (item, picture) = try run(1280), (_, larger) = try run(2048)
        XCTAssertEqual(item.status, .ok, item.error?.message ?? "")
        XCTAssertEqual(item.decoder, .libavcodec)
        let reason = try XCTUnwrap(item.decoderReason)
        XCTAssertTrue(reason.hasPrefix("its 1616×1080 thumbnail covers the largest picture, but ") && reason.hasSuffix(": the photo instead"), reason)
        let (ours, photo) = (try XCTUnwrap(picture), try XCTUnwrap(larger).resized(width: 1280, height: 855))
        XCTAssertEqual([ours.width, ours.height], [1280, 855])
        XCTAssertLessThan(try ours.meanAbsoluteDifference(from: photo), 1)
        guard Vips.version == "8.14" else { return }
        setenv("MEDIABATCH_HEIF_DECODER", "libheif", 1)
        defer { unsetenv("MEDIABATCH_HEIF_DECODER") }
        XCTAssertEqual(try run(1280).0.status, .failed, "libheif 1.15 fails on the thumbnail libvips' thumbnail reads")
    }

    /// A panorama wider than libheif 1.15 reads (16384 a side), a true grid as phones write them (pillow-heif's libheif
    /// 1.23, 66 tiles of 256): its header from mediabatch's own reading, its tiles decoded by libavcodec a row at a time
    /// and box-shrunk as they come (`HEIFPicture.shrinking`: by 4 here), never whole; the JPEG is libvips' own
    /// thumbnail of the picture libheif 1.23 decodes (pillow-heif), within the issue's 1.5 levels (0.15 measured for the same run to PNG).
    func testAPanoramaOverLibheifsLimitIsShrunkAsItsTilesDecode() throws {
        let input = Fixtures.temporaryFolder()
        let grid = try HEICGrid.make(width: 16896, height: 256, tile: 256, in: Fixtures.temporaryFolder())
        try FileManager.default.copyItem(atPath: grid.heic, toPath: input.appending(path: "grid-16896x256.heic").path)
        let output = Fixtures.temporaryFolder()
        let item = try XCTUnwrap(result(try Self.run(try pipeline(webStages), input: input, output: output), "grid-16896x256.heic"))
        XCTAssertEqual(item.status, .ok, item.error?.message ?? "")
        XCTAssertEqual(item.decoder, .libavcodec)
        let written = try VImage.decode(output.appending(path: try XCTUnwrap(item.output)).path)
        XCTAssertEqual([written.width, written.height], [2048, 31])
        let reference = try VImage.libvipsThumbnail(of: try HEICGrid.decodedByLibheif(grid.heic), width: 2048, height: 2048, exact: false)
        XCTAssertLessThan(try written.meanAbsoluteDifference(from: reference), 1.5)
    }

    /// A HEIC whose auxiliary image refers to two images, as recent iPhones' do: Debian 12's libheif 1.15 refuses the file outright
    /// ("Too many auxiliary image references"), so its header comes from mediabatch's own reading, and its picture and
    /// its gain map from libavcodec: the untouched photo's picture, and an Ultra HDR JPEG with the same gain map as
    /// the untouched photo's, as libvips 8.18 reads them.
    func testAPhotoLibheifRefusesIsDecodedByTheOwnLoader() throws {
        let input = Fixtures.temporaryFolder()
        let refused = input.appendingPathComponent("shared-auxiliary.heic").path
        try Data(try Self.sharingAnAuxiliaryImage(Fixtures.sample("heic/pug.heic"))).write(to: URL(fileURLWithPath: refused))
        // Debian 12's libheif 1.15 (beside libvips 8.14) refuses it; Debian 13's 1.23 reads it, and the rest holds as well.
        if Vips.version == "8.14" {
            XCTAssertThrowsError(try VImage.open(refused)) { XCTAssertTrue("\($0)".contains("Too many auxiliary image references"), "\($0)") }
        }
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

    /// `pug.heic` with its gain map's `auxl` reference naming the primary twice: what libheif (1.15, and 1.19 on Debian
    /// 13) refuses in recent iPhone photos. Nothing moves: the depth image's `cdsc` entry (14 bytes) makes room for the
    /// longer reference (2) and a 12-byte `free` box after `iref`.
    private static func sharingAnAuxiliaryImage(_ path: String) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let iref = try XCTUnwrap(bytes.firstOffset(of: Array("iref".utf8))) - 4
        let size = bytes[iref..<iref + 4].reduce(0) { $0 << 8 | Int($1) }
        var entries: [[UInt8]] = [], offset = iref + 12
        while offset < iref + size {
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            entries.append(Array(bytes[offset..<offset + length]))
            offset += length
        }
        func fields(_ entry: [UInt8]) -> (type: String, from: Int, to: Int) {
            (String(decoding: entry[4..<8], as: UTF8.self), Int(entry[8]) << 8 | Int(entry[9]), Int(entry[12]) << 8 | Int(entry[13]))
        }
        let auxiliary = try XCTUnwrap(entries.firstIndex { fields($0).type == "auxl" })
        let (_, gainMap, primary) = fields(entries[auxiliary])
        let other = try XCTUnwrap(entries.lastIndex { fields($0).type == "cdsc" && $0.count == 14 && ![gainMap, primary].contains(fields($0).to) })
        entries[auxiliary] = [0, 0, 0, 16] + entries[auxiliary][4..<10] + [0, 2] + entries[auxiliary][12..<14] + entries[auxiliary][12..<14]
        entries.remove(at: other)
        let shorter = size - 12
        var rewritten: [UInt8] = [UInt8(shorter >> 24), UInt8(shorter >> 16 & 255), UInt8(shorter >> 8 & 255), UInt8(shorter & 255)]
        rewritten += bytes[iref + 4..<iref + 12]
        rewritten += entries.flatMap { $0 }
        rewritten += [0, 0, 0, 12] + Array("free".utf8) + [0, 0, 0, 0]
        XCTAssertEqual(rewritten.count, size)
        bytes.replaceSubrange(iref..<iref + size, with: rewritten)
        return bytes
    }
}
