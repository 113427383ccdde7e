import Foundation
import MediaTestSupport
import TestSupport
import XCTest

/// `validate` warns where a valid pipeline will fail some inputs: a format that holds fewer pixels
/// a side than a panorama has, with nothing before bounding both sides; a variant size over a
/// format's limit.
final class ValidateCommandTests: XCTestCase {
    private func validate(_ stages: String) throws -> ProcessResult {
        let file = Fixtures.temporaryFolder().appendingPathComponent("pipeline.json")
        try Data(#"{"version": 1, "stages": [\#(stages)]}"#.utf8).write(to: file)
        return try runProcess(Fixtures.executable.path, ["validate", file.path])
    }

    private func warnings(_ stages: String) throws -> [String] {
        let result = try validate(stages)
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  warning: ") }
    }

    func testAFormatSmallerThanAPanoramaWithNothingBoundingItIsWarnedOf() throws {
        let write = #"{"stage": "write", "path": "{stem}.{ext}"}"#
        XCTAssertEqual(try warnings(#"{"stage": "decode"}, {"stage": "transcode", "to": "webp"}, "# + write),
                       ["  warning: transcode: webp holds at most 16383 pixels a side, and no downsample before bounds both sides within it: "
                        + "a larger picture (a panorama, a scrolled screenshot) fails tooLargeForFormat"])
        XCTAssertEqual(try warnings(#"{"stage": "decode"}, {"stage": "downsample", "width": 2048}, {"stage": "transcode", "to": "heic"}, "# + write).count,
                       1, "a width alone leaves a scrolled screenshot's height")
        XCTAssertEqual(try warnings(#"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 2048}, {"stage": "transcode", "to": "webp"}, "# + write),
                       [])
        XCTAssertEqual(try warnings(#"{"stage": "decode"}, {"stage": "transcode", "to": "jpeg"}, "# + write), [],
                       "JPEG's 65500 is more than phones make")
    }

    func testAVariantSizeOverAFormatsLimitIsWarnedOf() throws {
        let stages = #"{"stage": "decode"}, {"stage": "variants", "sizes": [1024, 20000], "formats": ["jpeg", "webp"]}, "#
            + #"{"stage": "write", "path": "{stem}-{size}.{ext}"}"#
        XCTAssertEqual(try warnings(stages), ["  warning: variants: webp holds at most 16383 pixels a side: 20000 may not fit "
                                              + "(a picture over it fails tooLargeForFormat)"])
    }
}
