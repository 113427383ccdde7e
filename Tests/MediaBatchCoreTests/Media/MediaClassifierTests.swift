import Foundation
@testable import MediaBatchCore
import MetadataKit
import PipelineModel
import TestSupport
import VipsKit
import XCTest

/// Every real sample and kind fixture against the exact set of kinds it must get (negatives
/// included), decided from headers the way a run decides them.
final class MediaClassifierTests: XCTestCase {
    override func setUpWithError() throws {
        try Vips.start()
    }

    static let kindFixtures = Fixtures.fixtures.appendingPathComponent("kinds")

    static let expectedKinds: [(path: String, kinds: Set<MediaKind>)] = [
        // Real files (samples/ and Tests/Fixtures/kinds: see their MANIFEST.tsv).
        ("samples/heic/IMG_1034.heic", [.images]),
        ("samples/heic/iphone_xr_issue263.heic", [.images]), // HDR headroom tag alone is not an HDR photo
        ("samples/heic/pug.heic", [.images, .depthEffectPhotos, .hdrPhotos]),
        ("samples/jpeg/apple_iphone_4.jpg", [.images]),
        ("samples/jpeg/canon_eos_7d_iptc_city.jpg", [.images]),
        ("samples/livephoto/train.jpg", [.images, .livePhotos]),
        ("samples/livephoto/train.mov", [.videos, .livePhotos]),
        ("samples/png/macos_screenshot_exif.png", [.images, .screenshots]),
        ("samples/video/iphone6_with-gps.mov", [.videos]),
        ("samples/video/sample.3gp", [.videos]),
        ("samples/webp/iphone_x_exif_gps.webp", [.images]),
        ("Tests/Fixtures/kinds/images/depth_android_gdepth_real.jpg", [.images, .depthEffectPhotos]),
        ("Tests/Fixtures/kinds/images/animated_webp_real_lossy.webp", [.images, .animatedImages]),
        ("Tests/Fixtures/kinds/images/hdr_apple_iphone6_real_makernote.jpg", [.images, .hdrPhotos]),
        ("Tests/Fixtures/kinds/images/negative_single_frame_real.gif", [.images]),
        // Synthetic (scripts/fixtures/make-*-kinds.sh), each carrying the evidence as devices write it.
        ("Tests/Fixtures/kinds/images/screenshot_ios.png", [.images, .screenshots]),
        ("Tests/Fixtures/kinds/images/screenshot_ios.jpg", [.images, .screenshots]),
        ("Tests/Fixtures/kinds/images/negative_usercomment_other.jpg", [.images]),
        ("Tests/Fixtures/kinds/images/panorama_gpano_equirect.jpg", [.images, .panoramas]),
        ("Tests/Fixtures/kinds/images/panorama_apple_customrendered6.jpg", [.images, .panoramas]),
        ("Tests/Fixtures/kinds/images/burst_apple_makernote.jpg", [.images, .bursts]),
        ("Tests/Fixtures/kinds/images/burst_google_gcamera.jpg", [.images, .bursts]),
        ("Tests/Fixtures/kinds/images/hdr_ultrahdr_mpf.jpg", [.images, .hdrPhotos]),
        ("Tests/Fixtures/kinds/images/hdr_apple_gainmap_mpf.jpg", [.images, .hdrPhotos]),
        ("Tests/Fixtures/kinds/images/hdr_apple_customrendered3.jpg", [.images, .hdrPhotos]),
        ("Tests/Fixtures/kinds/images/negative_customrendered4_hdr_original.jpg", [.images]),
        ("Tests/Fixtures/kinds/images/depth_apple_portrait_mpf.jpg", [.images, .depthEffectPhotos]),
        ("Tests/Fixtures/kinds/images/depth_android_dynamic_depth.jpg", [.images, .depthEffectPhotos]),
        ("Tests/Fixtures/kinds/images/motionphoto_google_v1.jpg", [.images, .motionPhotos]),
        ("Tests/Fixtures/kinds/images/motionphoto_google_microvideo_legacy.jpg", [.images, .motionPhotos]),
        ("Tests/Fixtures/kinds/images/motionphoto_samsung_trailer.jpg", [.images, .motionPhotos]),
        ("Tests/Fixtures/kinds/images/negative_motionphoto_xmp_without_video.jpg", [.images]),
        ("Tests/Fixtures/kinds/images/animated_3frames.gif", [.images, .animatedImages]),
        ("Tests/Fixtures/kinds/images/animated_3frames.webp", [.images, .animatedImages]),
        ("Tests/Fixtures/kinds/images/animated_3frames.png", [.images, .animatedImages]),
        ("Tests/Fixtures/kinds/images/spatial_stereo_pair.avif", [.images, .spatialMedia]),
        ("Tests/Fixtures/kinds/images/raw_synthetic.dng", [.images, .rawPhotos]),
        ("Tests/Fixtures/metadata/tiff-location-everywhere.tif", [.images]), // a TIFF image is no RAW
        ("Tests/Fixtures/kinds/videos/plain-30fps.mov", [.videos]),
        ("Tests/Fixtures/kinds/videos/slomo-240fps.mov", [.videos, .sloMoVideos]),
        ("Tests/Fixtures/kinds/videos/slomo-120fps-intent0.mov", [.videos, .sloMoVideos]),
        ("Tests/Fixtures/kinds/videos/highfps-120fps-fullrate.mov", [.videos]),
        ("Tests/Fixtures/kinds/videos/slomo-exported-30fps.mov", [.videos, .sloMoVideos]),
        ("Tests/Fixtures/kinds/videos/timelapse.mov", [.videos, .timelapseVideos]),
        ("Tests/Fixtures/kinds/videos/cinematic.mov", [.videos, .cinematicVideos]),
        ("Tests/Fixtures/kinds/videos/cinematic-rendered-keyonly.mov", [.videos]),
        ("Tests/Fixtures/kinds/videos/spatial.mov", [.videos, .spatialMedia]),
        ("Tests/Fixtures/kinds/videos/screen-recording-ios.mp4", [.videos, .screenRecordings]),
    ]

    /// What a run would decide for `path`: pairs looked up in its folder, headers read once.
    func facts(_ path: String) throws -> MediaFacts {
        let file = Fixtures.repositoryRoot.appendingPathComponent(path).path
        let format = try XCTUnwrap(FormatSniffer.format(of: file), path)
        let input = LivePhotoIndex().item(at: file, format: format)
        return MediaClassifier.facts(of: input, format: format, header: try ItemHeader(path: file, format: format))
    }

    func testEveryFileGetsExactlyItsKinds() throws {
        for (path, expected) in Self.expectedKinds {
            XCTAssertEqual(try facts(path).kinds, expected, path)
        }
    }

    func testEveryKindHasAFileAndEveryFixtureIsInTheTable() throws {
        let covered = Set(Self.expectedKinds.flatMap(\.kinds))
        XCTAssertEqual(Set(MediaKind.allCases).subtracting(covered), [])
        for folder in ["images", "videos"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: Self.kindFixtures.appendingPathComponent(folder).path)
            for name in names where name != "MANIFEST.tsv" && name != "animated_avis_3frames.avif" {
                XCTAssertTrue(Self.expectedKinds.contains { $0.path == "Tests/Fixtures/kinds/\(folder)/\(name)" }, name)
            }
        }
    }

    /// libvips 8.14's heifload does not claim `avis` files, so an AVIF sequence's header fails
    /// to load and the item fails at decode — nor may another loader the process allows take it
    /// (ImageMagick 7's, on Debian 13, reads it). When a newer heifload reads it, this test says so.
    func testAVIFSequencesAreUnreadableByThisLibvips() {
        let path = Self.kindFixtures.appendingPathComponent("images/animated_avis_3frames.avif").path
        XCTAssertThrowsError(try ItemHeader(path: path, format: .avif))
        XCTAssertTrue(HEIFStructure.isSequence(try HEIFStructure(path: path)))
    }

    func testFactsForPredicates() throws {
        let pug = try facts("samples/heic/pug.heic")
        XCTAssertTrue(pug.hasLocation)
        XCTAssertEqual(pug.make, "Apple")
        XCTAssertEqual(pug.model, "iPhone 13 Pro")
        XCTAssertEqual(pug.pixels, 4032 * 3024)
        XCTAssertEqual(pug.capture?.text, "2023-02-21T14:33:08.302+03:00", "DateTimeOriginal, SubSecTimeOriginal, OffsetTimeOriginal")
        XCTAssertEqual(pug.capture?.source, .exif)

        let movie = try facts("samples/livephoto/train.mov")
        XCTAssertTrue(movie.hasLocation)
        XCTAssertEqual(movie.capture, .init(date: ISODate.parse("2021-04-10T11:43:59+0100")!, source: .quicktime, utcOffsetSeconds: 3600))
        // As shown: 1440 on FFmpeg 5.1; 7.1 (Debian 13) exports its clean aperture (`clap`), 1308 (see `LibAV.cropping`).
        XCTAssertTrue([1440, 1308].contains(movie.width), "\(String(describing: movie.width))")

        // No Apple creation date: mvhd's creation time.
        let mp4 = try facts("samples/video/with-gps_xyz.mp4")
        XCTAssertEqual(mp4.capture, .init(date: ISODate.parse("2017-02-22T08:20:28Z")!, source: .quicktime, utcOffsetSeconds: 0),
                       "from mvhd: an instant in UTC")

        // No capture date at all: the file's modification time, and the facts say so.
        let screenshot = try facts("samples/png/macos_screenshot_exif.png")
        XCTAssertFalse(screenshot.hasLocation)
        XCTAssertEqual(screenshot.capture?.source, .mtime)
    }
}
