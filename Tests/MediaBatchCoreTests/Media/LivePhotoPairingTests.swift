import Foundation
@testable import MediaBatchCore
import PipelineModel
import TestSupport
import VipsKit
import XCTest

/// Pairing on real halves (the train.jpg/train.mov Live Photo, content identifier E905E6C6-…)
/// copied under other names, and on stills and movies that carry no identifier.
final class LivePhotoPairingTests: XCTestCase {
    let still = Fixtures.sample("livephoto/train.jpg")
    let movie = Fixtures.sample("livephoto/train.mov")
    let plainStill = Fixtures.sample("jpeg/apple_iphone_4.jpg")
    let plainMovie = Fixtures.sample("video/iphone6_with-gps.mov")

    override func setUpWithError() throws {
        try Vips.start()
    }

    /// A folder holding `files` (name → source), listed and paired as a run lists them.
    func paired(_ files: [String: String]) throws -> [String: LivePhotoPair] {
        let root = Fixtures.temporaryFolder()
        for (name, source) in files {
            let url = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: source, toPath: url.path)
        }
        let items = Array(FolderPairing(InputWalker(root: root, include: [Glob("**/*")], exclude: [], skipping: nil)))
        XCTAssertEqual(items.map(\.relativePath), files.keys.sorted(), "every file is listed once, in order")
        return Dictionary(uniqueKeysWithValues: items.compactMap { item in item.livePhoto.map { (item.relativePath, $0) } })
    }

    func testHalvesPairByContentIdentifierWhateverTheirNames() throws {
        let pairs = try paired(["photo.jpg": still, "movie.mov": movie, "other.jpg": plainStill])
        XCTAssertEqual(pairs, [
            "photo.jpg": LivePhotoPair(role: .still, partner: "movie.mov", contentIdentifier: Fixtures.livePhotoIdentifier),
            "movie.mov": LivePhotoPair(role: .video, partner: "photo.jpg", contentIdentifier: Fixtures.livePhotoIdentifier),
        ])
    }

    func testAnEditedCopyWithTheSameIdentifierLosesToTheSameStem() throws {
        let pairs = try paired(["IMG_E0001.JPG": still, "IMG_0001.JPG": still, "IMG_0001.MOV": movie])
        XCTAssertEqual(pairs["IMG_0001.MOV"]?.partner, "IMG_0001.JPG")
        XCTAssertEqual(pairs["IMG_0001.JPG"]?.partner, "IMG_0001.MOV")
        XCTAssertNil(pairs["IMG_E0001.JPG"])
    }

    func testHalvesWithoutIdentifiersPairByStemOnlyWhenNeitherCarriesOne() throws {
        XCTAssertEqual(try paired(["IMG_0002.JPG": plainStill, "IMG_0002.MOV": plainMovie]), [
            "IMG_0002.JPG": LivePhotoPair(role: .still, partner: "IMG_0002.MOV", contentIdentifier: nil),
            "IMG_0002.MOV": LivePhotoPair(role: .video, partner: "IMG_0002.JPG", contentIdentifier: nil),
        ])
        // The movie carries an identifier the still lacks: not a pair, whatever the names say.
        XCTAssertEqual(try paired(["IMG_0003.JPG": plainStill, "IMG_0003.MOV": movie]), [:])
        // A lone still with an identifier is not a Live Photo: its movie is missing.
        XCTAssertEqual(try paired(["IMG_0004.JPG": still, "IMG_0004.mp4": Fixtures.sample("video/with-gps_xyz.mp4")]), [:])
    }

    func testPairsAreLookedForWithinAFolder() throws {
        XCTAssertEqual(try paired(["a/IMG_0001.JPG": still, "b/IMG_0001.MOV": movie]), [:])
        let pairs = try paired(["a/IMG_0001.JPG": still, "a/IMG_0001.MOV": movie, "b/x.png": Fixtures.sample("png/macos_screenshot_exif.png")])
        XCTAssertEqual(pairs.keys.sorted(), ["a/IMG_0001.JPG", "a/IMG_0001.MOV"])
    }
}
