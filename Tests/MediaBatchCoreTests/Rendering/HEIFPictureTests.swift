import Foundation
import LibAVKit
@testable import MediaBatchCore
@testable import MetadataKit
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// A HEIC decoded by libavcodec through mediabatch's own loader against the same file decoded
/// by libheif 1.15 through libvips' `heifload`: the same size and orientation, and samples within
/// a level or so (the colour conversion is libheif's own; only the HEVC decoders may differ). Every
/// HEIC of the fixtures, and of the shared corpus where it is; the files the loader declines are
/// listed with their reasons.
final class HEIFPictureTests: XCTestCase {
    override class func setUp() {
        try! Vips.start()
    }

    func testEveryFixtureHEICDecodesAsLibheifDoes() throws {
        // colour/: monochrome pictures whose nclx says limited range, which libheif leaves as they are.
        let folders = [Fixtures.samples.appendingPathComponent("heic"), Fixtures.fixtures.appendingPathComponent("metadata"),
                       Fixtures.fixtures.appendingPathComponent("colour")]
        XCTAssertEqual(try compareEvery(in: folders), [:], "every committed HEIC is the common case")
    }

    /// The corpus' overlay (`iovl`) and image sequence go to libheif; everything else, 200 MP
    /// Samsung grid and clean apertures included, is decoded as libheif decodes it.
    func testEveryCorpusHEICDecodesAsLibheifDoesOrIsDeclinedForItsReason() throws {
        let corpus = Fixtures.corpus.appendingPathComponent("heic")
        guard FileManager.default.fileExists(atPath: corpus.path) else { throw XCTSkip("no corpus at \(corpus.path)") }
        XCTAssertEqual(try compareEvery(in: [corpus, Fixtures.corpus.appendingPathComponent("livephoto")]), [
            "alpha_1440x960.heic": "its primary image is 'iovl' coded",
            "candle_animation.heic": "it is an image sequence (a 'moov' box)",
        ])
    }

    /// An image with an alpha plane (libheif's own encoder writes it as an auxiliary monochrome
    /// image): four bands, the alpha plane as libheif attaches it.
    func testAlphaImageIsTheFourthBand() throws {
        let folder = Fixtures.temporaryFolder()
        let png = folder.appendingPathComponent("alpha.png").path, heic = folder.appendingPathComponent("alpha.heic").path
        var pixels: [UInt8] = []
        for y in 0..<64 {
            for x in 0..<96 { pixels += [UInt8(x * 2), UInt8(y * 3), UInt8((x + y) % 256), UInt8(x * y % 256)] }
        }
        try VImage.fromPixels(pixels, width: 96, height: 64, bands: 4).write(to: png, as: .png)
        XCTAssertEqual(try runProcess("/usr/bin/heif-enc", ["-q", "90", "-o", heic, png]).exitCode, 0)
        guard case .hevc(let coded) = HEIFCoding.read(path: heic) else { return XCTFail("declined: \(HEIFCoding.read(path: heic))") }
        XCTAssertNotNil(coded.alpha)
        try compare(heic, coded)
    }

    /// 10- and 12-bit pictures libheif's own encoder (x265) makes here from 16-bit PNGs: 4:2:0, 4:2:2
    /// limited range, 4:4:4, monochrome and with a 10-bit alpha plane, each read as it is coded and decoded
    /// to heifload's 16-bit samples (`compare`; exactly, sample for sample, with Debian 12's libheif 1.15).
    func testDeeperPicturesDecodeAsLibheifDoes() throws {
        let folder = Fixtures.temporaryFolder()
        let rgb = try deepPNG(folder, "rgb", bands: 3), grey = try deepPNG(folder, "grey", bands: 1)
        let rgba = folder.appendingPathComponent("rgba.png").path
        XCTAssertEqual(try runProcess("/usr/bin/vips", ["bandjoin", "\(rgb) \(grey)", rgba]).exitCode, 0)
        let cases: [(name: String, png: String, options: [String], depth: Int, chroma: Int)] = [
            ("420", rgb, ["-p", "chroma=420"], 10, 1), ("422-limited", rgb, ["-p", "chroma=422", "--full_range_flag", "0"], 10, 2),
            ("444", rgb, ["-p", "chroma=444"], 10, 3), ("12-bit", rgb, ["-b", "12"], 12, 1), ("monochrome", grey, [], 10, 0),
            ("monochrome-limited", grey, ["--full_range_flag", "0"], 10, 0), ("alpha", rgba, [], 10, 1),
        ]
        for (name, png, options, depth, chroma) in cases {
            let heic = folder.appendingPathComponent("\(name).heic").path
            let encoded = try runProcess("/usr/bin/heif-enc", ["-b", "10", "-q", "90"] + options + ["-o", heic, png])
            XCTAssertEqual(encoded.exitCode, 0, name)
            guard case .hevc(let coded) = HEIFCoding.read(path: heic) else { return XCTFail("\(name): \(HEIFCoding.read(path: heic))") }
            XCTAssertEqual([coded.bitDepth, HEVCConfiguration(coded.configuration)?.chromaFormat], [depth, chroma], name)
            XCTAssertEqual(coded.alpha != nil, name == "alpha", name)
            try compare(heic, coded)
        }
    }

    /// A 96×64 16-bit PNG of `bands` (1 or 3) of every kind of level, written as PPM or PGM and made PNG by
    /// libvips' CLI.
    private func deepPNG(_ folder: URL, _ name: String, bands: Int) throws -> String {
        var netpbm = Array("\(bands == 3 ? "P6" : "P5")\n96 64\n65535\n".utf8)
        for y in 0..<64 {
            for x in 0..<96 {
                for sample in [(x * 700 + y * 13), (y * 1000 + x * 29), (x + y) * 340].prefix(bands) { netpbm += [UInt8(sample >> 8 & 255), UInt8(sample & 255)] }
            }
        }
        let source = folder.appendingPathComponent("\(name).pnm").path, png = folder.appendingPathComponent("\(name).png").path
        try Data(netpbm).write(to: URL(fileURLWithPath: source))
        XCTAssertEqual(try runProcess("/usr/bin/vips", ["copy", source, png]).exitCode, 0)
        return png
    }

    /// `imir` both ways, as libheif 1.15 reads its axis: an iPhone photo whose `irot` box is
    /// renamed `imir` (axis 1, a left–right swap), then given axis 0 (top–bottom).
    func testMirrorsAsLibheifDoes() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("heic/iphone_xr_issue263.heic"))))
        let irot = try XCTUnwrap(bytes.firstOffset(of: Array("irot".utf8)))
        bytes.replaceSubrange(irot..<irot + 4, with: Array("imir".utf8))
        let folder = Fixtures.temporaryFolder()
        for axis: UInt8 in [1, 0] {
            bytes[irot + 4] = axis
            let path = folder.appendingPathComponent("mirrored-\(axis).heic").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            guard case .hevc(let coded) = HEIFCoding.read(path: path) else { return XCTFail("declined") }
            XCTAssertEqual(coded.transforms, [.mirror(leftRight: axis == 1)])
            try compare(path, coded)
        }
    }

    /// An iPhone's HDR gain map (an auxiliary image of luma alone) decoded by libavcodec: libheif's samples
    /// exactly; Samsung's, coded in colour, is declined (libheif refuses it too).
    func testAppleGainMapDecodesAsLibheifDecodesIt() throws {
        let pug = Fixtures.sample("heic/pug.heic"), type = "urn:com:apple:photo:2020:aux:hdrgainmap"
        guard case .hevc(let coded) = HEIFCoding.readAuxiliary(path: pug, type: type) else { return XCTFail("declined") }
        let ours = try HEIFPicture.decodeLuma(path: pug, coded)
        let theirs = try XCTUnwrap(HEIFAuxiliary.image(path: pug, type: type))
        XCTAssertEqual([ours.width, ours.height, ours.bands], [2016, 1512, 1])
        XCTAssertTrue(try ours.pixels() == theirs.pixels())
        XCTAssertEqual(HEIFCoding.readAuxiliary(path: pug, type: "urn:example:none"), .declines("it has no auxiliary image of type urn:example:none"))
        let samsung = Fixtures.corpus.appendingPathComponent("heic/samsung_200MP.heic").path
        if FileManager.default.fileExists(atPath: samsung) {
            XCTAssertEqual(HEIFCoding.readAuxiliary(path: samsung, type: "urn:com:samsung:photo:2024:aux:hdrgainmap"),
                           .declines("its auxiliary image is not 8-bit luma alone"))
        }
    }

    /// Turns and mirrors left pending are made one orientation: for every two of EXIF's eight,
    /// the one `then` makes turns a picture as libvips turning it by the first and then the second.
    func testTwoOrientationsMakeTheOneLibvipsApplies() throws {
        let image = try VImage.fromPixels((0..<6).flatMap { [UInt8($0 * 40), 0, 0] }, width: 3, height: 2, bands: 3)
        let all = (0..<4).flatMap { turns in [false, true].map { Orientation(clockwiseTurns: turns, mirrored: $0) } }
        XCTAssertEqual(Set(all.map(\.exif)), Set(1...8))
        for first in all {
            for second in all {
                let stepwise = try image.oriented(first.exif).oriented(second.exif)
                let once = try image.oriented(first.then(second).exif)
                XCTAssertEqual(try once.pixels(), try stepwise.pixels(), "\(first.exif) then \(second.exif)")
                XCTAssertEqual([once.width, once.height], [stepwise.width, stepwise.height])
            }
        }
    }

    /// A turned iPhone photo is decoded with its turn pending, as its orientation: upright, it is libheif's picture
    /// (above); its size as stored is the tiles'.
    func testTurnIsLeftPendingForTheReduce() throws {
        let path = Fixtures.sample("heic/iphone_xr_issue263.heic")
        guard case .hevc(let coded) = HEIFCoding.read(path: path) else { return XCTFail("declined") }
        let image = try HEIFPicture.decode(path: path, coded, expected: coded.displayedSize)
        XCTAssertEqual([image.width, image.height, image.orientation], [4032, 3024, 6])
        XCTAssertEqual(image.uprightSize.width, 3024)
    }

    /// Decoded shrunk a row of tiles at a time, a photo is libvips' `vips_shrink` of its whole decode, sample for
    /// sample: 8-bit grids, one turned a quarter (the turn still pending), a 10-bit picture; the shrink is what
    /// `vips_resize` would begin a reduce to the pictures asked with.
    func testShrunkDecodeIsLibvipsShrinkOfTheWholeOne() throws {
        let folder = Fixtures.temporaryFolder(), deep = folder.appendingPathComponent("deep.heic").path
        XCTAssertEqual(try runProcess("/usr/bin/heif-enc", ["-b", "10", "-q", "90", "-o", deep, try deepPNG(folder, "rgb", bands: 3)]).exitCode, 0)
        for (path, factor) in [(Fixtures.sample("heic/IMG_1034.heic"), 3), (Fixtures.sample("heic/iphone_xr_issue263.heic"), 5), (deep, 4)] {
            guard case .hevc(let coded) = HEIFCoding.read(path: path) else { return XCTFail("declined: \(path)") }
            let whole = try HEIFPicture.decode(path: path, coded, expected: coded.displayedSize)
            let shrunk = try HEIFPicture.decode(path: path, coded, expected: coded.displayedSize, shrink: factor)
            let libvips = try whole.libvipsShrunk(by: factor)
            XCTAssertEqual([shrunk.width, shrunk.height, shrunk.orientation, shrunk.bitsPerSample],
                           [libvips.width, libvips.height, whole.orientation, whole.bitsPerSample], path)
            XCTAssertTrue(try shrunk.pixels() == libvips.pixels(), path)
        }
        XCTAssertEqual(HEIFPicture.shrinking((4032, 3024), toCover: PixelSize(width: 2048, height: 1536)), 1)
        XCTAssertEqual(HEIFPicture.shrinking((21694, 10847), toCover: PixelSize(width: 2048, height: 1024)), 5)
    }

    /// Damaged copies of an iPhone photo (24, seeded: cut short, coded bytes flipped, boxes
    /// flipped, runs zeroed): each is declined, fails with an error (libheif then decodes it, or
    /// fails the item), or decodes to its size; none crashes the process. Damage inside a tile's
    /// slice data is an error, not a concealed picture.
    func testDamagedCopiesAreDeclinedOrFailNeverCrash() throws {
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("heic/IMG_1034.heic"))))
        var random = SplitMix(seed: 30), outcomes: [String: Int] = [:]
        let folder = Fixtures.temporaryFolder()
        for index in 0..<24 {
            let path = folder.appendingPathComponent("damaged-\(index).heic").path
            try Data(HostileFiles.damaged(whole, kind: index, head: 4096, using: &random)).write(to: URL(fileURLWithPath: path))
            guard case .hevc(let coded) = HEIFCoding.read(path: path) else {
                outcomes["declined", default: 0] += 1
                continue
            }
            do {
                let image = try HEIFPicture.decode(path: path, coded, expected: coded.displayedSize)
                XCTAssertEqual([image.width, image.height], [4032, 3024])
                outcomes["decoded", default: 0] += 1
            } catch {
                outcomes["failed", default: 0] += 1
            }
        }
        print("damaged copies: \(outcomes)")
        XCTAssertEqual(outcomes.values.reduce(0, +), 24)
        XCTAssertGreaterThan(outcomes["failed", default: 0], 0, "flipped coded bytes are caught")
    }

    /// A tile's bytes flipped inside its slice data: libavcodec's error, not a picture with a
    /// concealed block; in an 8-bit iPhone photo (64 bytes mid-tile) and in the corpus' 10-bit camera HIF (16
    /// bytes nine tenths in). Not every flip is found: CABAC decodes many to a picture without an error, as
    /// libde265 does (the HIF's last bytes, or its middle: libheif then decodes it too).
    func testFlippedTileBytesFail() throws {
        let cat = Fixtures.corpus.appendingPathComponent("heic/cat.hif").path
        for (path, tileIndex, at, run) in [(Fixtures.sample("heic/IMG_1034.heic"), 10, 0.5, 64), (cat, 1, 0.9, 16)]
        where FileManager.default.fileExists(atPath: path) {
            guard case .hevc(let coded) = HEIFCoding.read(path: path) else { return XCTFail("declined") }
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let tile = coded.tiles[tileIndex][0], start = tile.lowerBound + Int(Double(tile.count) * at)
            for offset in start..<start + run { bytes[offset] ^= 0x5A }
            let damaged = Fixtures.temporaryFolder().appendingPathComponent("flipped.heic").path
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            XCTAssertThrowsError(try HEIFPicture.decode(path: damaged, coded, expected: coded.displayedSize), path)
        }
    }

    /// An `hvcC` that says 10 bits over an 8-bit stream (its `pixi` says 10 too): read, then refused when the
    /// tile decodes to 8 bits: the picture is made at the depth `hvcC` says, as heifload takes it from there.
    func testStreamOfAnotherDepthThanStatedFails() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("heic/L_exif_xmp_iptc.heic"))))
        let depths = try XCTUnwrap(bytes.firstOffset(of: Array("hvcC".utf8))) + 4 + 17, pixi = try XCTUnwrap(bytes.firstOffset(of: Array("pixi".utf8))) + 4 + 5
        (bytes[depths], bytes[depths + 1], bytes[pixi]) = (0xFA, 0xFA, 10)
        let path = Fixtures.temporaryFolder().appendingPathComponent("deeper.heic").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        guard case .hevc(let coded) = HEIFCoding.read(path: path) else { return XCTFail("declined") }
        XCTAssertEqual(coded.bitDepth, 10)
        XCTAssertThrowsError(try HEIFPicture.decode(path: path, coded, expected: coded.displayedSize)) { error in
            XCTAssertEqual("\(error)", "tile 0 decodes to 8-bit samples, its 'hvcC' says 10")
        }
    }

    /// With frame threads, the tiles come out in order, each the very picture that one thread
    /// decoding them one at a time makes.
    func testFrameThreadsHandOverEveryTileInOrder() throws {
        let path = Fixtures.sample("heic/IMG_1034.heic")
        guard case .hevc(let coded) = HEIFCoding.read(path: path) else { return XCTFail("declined") }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let tiles = coded.tiles.map { $0.flatMap { bytes[$0] } }
        func digest(_ planes: YCbCrPlanes) -> Int {
            var hasher = Hasher()
            for (start, stride) in [planes.luma] + [planes.cb, planes.cr].compactMap({ $0 }) {
                let rows = start == planes.luma.start ? planes.height : planes.height >> (planes.chromaShift?.y ?? 0)
                let width = start == planes.luma.start ? planes.width : planes.width >> (planes.chromaShift?.x ?? 0)
                for row in 0..<rows { hasher.combine(bytes: UnsafeRawBufferPointer(start: start + row * stride, count: width)) }
            }
            return hasher.finalize()
        }
        let alone = try tiles.map { try HEVCDecoder(configuration: coded.configuration).decode($0, digest) }
        var threaded: [Int] = []
        try HEVCDecoder(configuration: coded.configuration, threads: 4).decode(pictures: tiles.count, { tiles[$0] }) { index, planes in
            XCTAssertEqual(index, threaded.count)
            threaded.append(digest(planes))
        }
        XCTAssertEqual(threaded.count, 48)
        XCTAssertEqual(threaded, alone)
    }

    /// An `hvcC` whose parameter sets are zeroed: the decoder refuses it, with an error.
    func testDamagedConfigurationFails() throws {
        let path = Fixtures.sample("heic/IMG_1034.heic")
        guard case .hevc(let coded) = HEIFCoding.read(path: path) else { return XCTFail("declined") }
        var configuration = coded.configuration
        for index in 23..<configuration.count { configuration[index] = 0 }
        let damaged = HEVCCodedImage(configuration: configuration, tileWidth: coded.tileWidth, tileHeight: coded.tileHeight,
                                     columns: coded.columns, rows: coded.rows, width: coded.width, height: coded.height, tiles: coded.tiles,
                                     colour: coded.colour, iccProfile: coded.iccProfile, transforms: coded.transforms, alpha: nil)
        XCTAssertThrowsError(try HEIFPicture.decode(path: path, damaged, expected: coded.displayedSize))
    }

    /// The corpus' item "without data" has 8 bytes where a picture should be: read, then refused
    /// by the decoder (libheif refuses it too).
    func testItemWithoutDataFails() throws {
        let path = Fixtures.broken.appendingPathComponent("heif_item_without_data.heif").path
        guard case .hevc(let coded) = HEIFCoding.read(path: path) else { return XCTFail("declined") }
        XCTAssertEqual(coded.tiles, [[534..<542]])
        XCTAssertThrowsError(try HEIFPicture.decode(path: path, coded, expected: coded.displayedSize))
    }

    /// A grid whose descriptor asks for a row more than its tiles fill: declined (libheif judges it).
    func testMissingTilesDecline() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("heic/IMG_1034.heic"))))
        let idat = try XCTUnwrap(bytes.firstOffset(of: Array("idat".utf8)))
        XCTAssertEqual(bytes[idat + 6], 5, "rows - 1")
        bytes[idat + 6] = 6
        let path = Fixtures.temporaryFolder().appendingPathComponent("missing.heic").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(HEIFCoding.read(path: path), .declines("its grid of 8×7 names 48 tiles"))
    }

    /// Compares every HEIC in `folders` that the loader reads; returns the others with the reason.
    private func compareEvery(in folders: [URL]) throws -> [String: String] {
        var declined: [String: String] = [:]
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where [".heic", ".hif"].contains(where: name.lowercased().hasSuffix) {
                let path = folder.appendingPathComponent(name).path
                switch HEIFCoding.read(path: path) {
                case .declines(let reason): declined[name] = reason
                case .hevc(let coded): try compare(path, coded)
                }
            }
        }
        return declined
    }

    private func compare(_ path: String, _ coded: HEVCCodedImage) throws {
        let name = (path as NSString).lastPathComponent
        let theirs = try VImage.decode(path)
        let ours = try HEIFPicture.decode(path: path, coded, expected: (theirs.width, theirs.height)).upright()
        XCTAssertEqual([ours.width, ours.height, ours.bands, ours.bitsPerSample], [theirs.width, theirs.height, theirs.bands, theirs.bitsPerSample], name)
        XCTAssertEqual(ours.iccProfile, theirs.iccProfile, name)
        let (mine, reference) = (try ours.pixels(), try theirs.pixels())
        guard mine.count == reference.count else { return XCTFail("\(name): \(mine.count) bytes against \(reference.count)") }
        // A deeper picture's 16-bit samples in 8-bit levels, the issue's and the outputs' (each sample's high byte).
        let deep = theirs.bitsPerSample == 16
        if deep {
            XCTAssertTrue(shiftedUp(mine, coded.bitDepth), "\(name): our \(coded.bitDepth)-bit levels shifted up")
            XCTAssertTrue(shiftedUp(reference, coded.bitDepth), "\(name): libheif's \(coded.bitDepth)-bit levels shifted up")
        }
        let (mean, largest) = differences(mine, reference, deep: deep)
        print("\(name): \(ours.width)×\(ours.height), \(coded.bitDepth)-bit, mean difference \(mean), largest \(largest)")
        XCTAssertLessThanOrEqual(mean, 0.5, name)
        XCTAssertLessThanOrEqual(largest, 4, name)
        // A deeper picture's every 16-bit sample is libheif 1.15's (Debian 12's; 1.23 upsamples chroma bilinearly).
        if coded.bitDepth > 8 && Vips.version == "8.14" { XCTAssertTrue(mine == reference, "\(name): 16-bit samples exactly") }
    }

    /// The mean and largest absolute difference of two pictures' samples in 8-bit levels: bytes, or (`deep`) the
    /// high byte of each 16-bit sample. Equal bytes, the common case, are told by one `memcmp`: a 12 MP picture
    /// compared a sample at a time takes seconds in a debug build.
    private func differences(_ mine: [UInt8], _ theirs: [UInt8], deep: Bool) -> (mean: Double, largest: Int) {
        mine.withUnsafeBufferPointer { x in
            theirs.withUnsafeBufferPointer { y in
                guard x.count > 0, memcmp(x.baseAddress!, y.baseAddress!, x.count) != 0 else { return (0, 0) }
                var sum = 0, largest = 0
                for index in stride(from: deep ? 1 : 0, to: x.count, by: deep ? 2 : 1) {
                    let difference = abs(Int(x[index]) - Int(y[index]))
                    sum += difference
                    largest = max(largest, difference)
                }
                return (Double(sum) / Double(deep ? x.count / 2 : x.count), largest)
            }
        }
    }

    /// Whether every 16-bit sample of `bytes` is a `bitDepth`-bit level shifted up (heifload shifts, it does not
    /// scale: no bit below the level is set).
    private func shiftedUp(_ bytes: [UInt8], _ bitDepth: Int) -> Bool {
        let below = UInt8(1 << (16 - bitDepth) - 1)
        return bytes.withUnsafeBufferPointer { samples in
            stride(from: 0, to: samples.count, by: 2).allSatisfy { samples[$0] & below == 0 }
        }
    }
}
