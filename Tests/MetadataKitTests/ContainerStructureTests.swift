import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// HEIFStructure, JPEGStructure, PNGStructure and MovieMetadata's tracks on real files, then on
/// those files cut short and with bytes flipped: every read answers or throws, never traps.
final class ContainerStructureTests: XCTestCase {
    let kinds = Fixtures.fixtures.appendingPathComponent("kinds")

    func testReadsTheEvidenceRealFilesCarry() throws {
        let pug = try HEIFStructure(path: Fixtures.sample("heic/pug.heic"))
        XCTAssertEqual(pug.brands.first, "heic")
        XCTAssertTrue(pug.auxiliaryTypes.contains("urn:mpeg:hevc:2015:auxid:2"))
        XCTAssertTrue(pug.auxiliaryTypes.contains("urn:com:apple:photo:2020:aux:hdrgainmap"))
        XCTAssertTrue(pug.itemTypes.contains("grid"))
        XCTAssertFalse(HEIFStructure.isSequence(pug))
        XCTAssertEqual(try HEIFStructure(path: kinds.appendingPathComponent("images/spatial_stereo_pair.avif").path).entityGroupTypes, ["ster"])

        let gainMap = try JPEGStructure(path: kinds.appendingPathComponent("images/hdr_apple_gainmap_mpf.jpg").path)
        XCTAssertEqual(gainMap.pictures.count, 2)
        XCTAssertEqual(gainMap.auxiliaryXMP.count, 1)
        XCTAssertEqual(try JPEGStructure(path: kinds.appendingPathComponent("images/motionphoto_samsung_trailer.jpg").path).samsungTrailerTypes,
                       [JPEGStructure.samsungMotionPhotoData])
        XCTAssertEqual(try JPEGStructure(path: Fixtures.sample("jpeg/apple_iphone_4.jpg")).pictures, [])

        XCTAssertEqual(try PNGStructure(path: kinds.appendingPathComponent("images/animated_3frames.png").path).animationFrames, 3)
        XCTAssertNil(try PNGStructure(path: Fixtures.sample("png/macos_screenshot_exif.png")).animationFrames)

        let cinematic = try MovieMetadata(contentsOfFile: kinds.appendingPathComponent("videos/cinematic.mov").path)
        XCTAssertTrue(cinematic.tracks.contains { $0.sampleEntryTypes == ["mebx"] && $0.timedMetadataKeys.contains("com.apple.quicktime.cinematic-video.rendering") })
        let timelapse = try MovieMetadata(contentsOfFile: kinds.appendingPathComponent("videos/timelapse.mov").path)
        XCTAssertEqual(timelapse.tracks.first { $0.handler == "vide" }?.keyedValues.first?.value, "Time-lapse")
        let spatial = try MovieMetadata(contentsOfFile: kinds.appendingPathComponent("videos/spatial.mov").path)
        XCTAssertTrue(spatial.tracks.contains { $0.sampleEntryBoxTypes.contains("vexu") })
    }

    func testDamagedFilesAnswerOrThrowWithoutTrapping() throws {
        let files = [
            Fixtures.sample("heic/pug.heic"), kinds.appendingPathComponent("images/hdr_apple_gainmap_mpf.jpg").path,
            kinds.appendingPathComponent("images/motionphoto_samsung_trailer.jpg").path,
            kinds.appendingPathComponent("images/animated_3frames.png").path, kinds.appendingPathComponent("videos/cinematic.mov").path,
        ]
        var generator = SystemRandomNumberGenerator()
        let folder = Fixtures.temporaryFolder()
        for source in files {
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
            var variants = stride(from: 0, to: original.count, by: max(1, original.count / 40)).map { Array(original[..<$0]) }
            // The first kilobytes hold every structure read here.
            for _ in 0..<40 {
                var flipped = original
                for _ in 0..<4 { flipped[Int.random(in: 0..<min(flipped.count, 4096), using: &generator)] ^= UInt8.random(in: 1...255, using: &generator) }
                variants.append(flipped)
            }
            let path = folder.appendingPathComponent("damaged").path
            for bytes in variants {
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                _ = try? HEIFStructure(path: path)
                _ = try? JPEGStructure(path: path)
                _ = try? PNGStructure(path: path)
                _ = try? MovieMetadata(contentsOfFile: path)
                _ = JPEGStructure.endsWithMovie(path, length: bytes.count / 2)
            }
        }
    }
}
