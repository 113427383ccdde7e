import Foundation
import MediaFormats
@testable import MediaBatchCore
import PipelineModel
import XCTest

/// `fit`, `position`, `background`, `width`/`height` and box sizes as pipeline files write them:
/// typed, defaulted, refused with the JSON path, and in the fingerprint only where used, so that
/// pipelines written before fits keep theirs.
final class FitSyntaxTests: XCTestCase {
    func decode(_ stage: String) throws -> any Stage {
        let path = stage.contains(#""variants""#) ? "{stem}-{size}.{ext}" : "{stem}.{ext}"
        let json = #"{"version": 1, "stages": [{"stage": "decode"}, \#(stage), {"stage": "write", "path": "\#(path)"}]}"#
        return try Pipeline.decode(Data(json.utf8), baseDirectory: URL(fileURLWithPath: "/")).stages[1]
    }

    func failure(_ stage: String) -> String {
        do {
            _ = try decode(stage)
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    func testDownsampleTakesABoxAndAFit() throws {
        assertStage(try decode(#"{"stage": "downsample", "maxPixelSize": 2048}"#), DownsampleStage(box: Box(width: 2048, height: 2048)))
        assertStage(try decode(#"{"stage": "downsample", "width": 800}"#), DownsampleStage(box: Box(width: 800, height: nil)))
        assertStage(try decode(#"{"stage": "downsample", "width": 1200, "height": 630, "fit": "cover", "position": "northeast"}"#),
                       DownsampleStage(box: Box(width: 1200, height: 630), fit: Fit(mode: .cover, position: .gravity(.northeast))))
        assertStage(try decode(#"{"stage": "downsample", "height": 600, "fit": "cover", "position": {"focus": [0.25, 1]}}"#),
                       DownsampleStage(box: Box(width: nil, height: 600), fit: Fit(mode: .cover, position: .focus(x: 0.25, y: 1))))
        assertStage(try decode(#"{"stage": "downsample", "width": 500, "height": 500, "fit": "contain", "background": [1, 2, 3, 4]}"#),
                       DownsampleStage(box: Box(width: 500, height: 500),
                                         fit: Fit(mode: .contain, background: Fit.Background(red: 1, green: 2, blue: 3, alpha: 4))))
        assertStage(try decode(##"{"stage": "downsample", "width": 500, "height": 500, "fit": "contain", "background": "#FF8000"}"##),
                       DownsampleStage(box: Box(width: 500, height: 500),
                                         fit: Fit(mode: .contain, background: Fit.Background(red: 255, green: 128, blue: 0))))
        for interest in Fit.Interest.allCases {
            assertStage(try decode(#"{"stage": "downsample", "width": 9, "height": 9, "fit": "cover", "position": "\#(interest.rawValue)"}"#),
                           DownsampleStage(box: Box(width: 9, height: 9), fit: Fit(mode: .cover, position: .interesting(interest))))
        }
    }

    func testVariantSizesAreNumbersOrBoxes() throws {
        let stage = try decode(#"{"stage": "variants", "sizes": [320, {"width": 1200, "height": 630}], "formats": ["webp"], "fit": "cover"}"#)
        guard let variants = stage as? VariantsStage else { return XCTFail("\(stage)") }
        XCTAssertEqual(variants.sizes, [.longestSide(320), .box(width: 1200, height: 630)])
        XCTAssertEqual(variants.sizes.map(\.text), ["320", "1200x630"])
        XCTAssertEqual(variants.fit, Fit(mode: .cover))
        let template = try PathTemplate("{stem}-{size}.{ext}")
        XCTAssertEqual(template.render(.init(dir: "", stem: "a", ext: "webp", inputExt: "heic", size: variants.sizes[1])), "a-1200x630.webp")
        // The manifest gives a size back as written.
        let json = String(decoding: try JSONEncoder().encode(variants.sizes), as: UTF8.self)
        XCTAssertTrue(json == #"[320,{"width":1200,"height":630}]"# || json == #"[320,{"height":630,"width":1200}]"#, json)
        XCTAssertEqual(try JSONDecoder().decode([VariantSize].self, from: Data(json.utf8)), variants.sizes)
    }

    /// The default fit leaves the fingerprints as they were before fits; any other changes them.
    func testOnlyAFitChangesTheFingerprint() throws {
        XCTAssertEqual(try decode(#"{"stage": "downsample", "maxPixelSize": 2048}"#).fingerprint, "downsample(2048)")
        XCTAssertEqual(try decode(#"{"stage": "downsample", "width": 2048, "height": 2048, "fit": "inside"}"#).fingerprint, "downsample(2048)")
        let plain = try decode(#"{"stage": "variants", "sizes": [320, 640], "formats": ["webp"]}"#).fingerprint
        XCTAssertEqual(plain, "variants(sizes=320,640,formats=webp,quality=webp:80,effort=webp:4,placeholder=none)")
        let fingerprints = try [
            #"{"stage": "downsample", "width": 2048}"#,
            #"{"stage": "downsample", "width": 2048, "height": 2048, "fit": "cover"}"#,
            #"{"stage": "downsample", "width": 2048, "height": 2048, "fit": "cover", "position": "attention"}"#,
            #"{"stage": "downsample", "width": 2048, "height": 2048, "fit": "cover", "position": {"focus": [0.5, 0.2]}}"#,
            #"{"stage": "downsample", "width": 2048, "height": 2048, "fit": "contain"}"#,
            #"{"stage": "downsample", "width": 2048, "height": 2048, "fit": "contain", "background": [0, 0, 0]}"#,
            #"{"stage": "downsample", "width": 2048, "height": 2048, "fit": "fill"}"#,
            #"{"stage": "downsample", "width": 2048, "height": 2048, "fit": "outside"}"#,
        ].map { try decode($0).fingerprint }
        XCTAssertEqual(Set(fingerprints + ["downsample(2048)"]).count, fingerprints.count + 1, "\(fingerprints)")
        XCTAssertNotEqual(try decode(#"{"stage": "variants", "sizes": [320, 640], "formats": ["webp"], "fit": "cover"}"#).fingerprint, plain)
        XCTAssertNotEqual(try decode(#"{"stage": "variants", "sizes": [320, {"width": 640, "height": 640}], "formats": ["webp"]}"#).fingerprint,
                          plain)
    }

    func testMistakesNameTheJSONPath() {
        let cases: [(String, String)] = [
            (#"{"stage": "downsample", "width": 0}"#, "stages[1].width: expected a positive integer, found 0"),
            (#"{"stage": "downsample", "width": 9, "height": 9, "fit": "cover", "position": {"focus": [0.5]}}"#,
             "stages[1].position.focus: expected [x, y]: fractions of the image's width and height, from 0 to 1, found an array"),
            (#"{"stage": "downsample", "width": 9, "height": 9, "fit": "cover", "position": {"focus": [0, 0], "zoom": 2}}"#,
             #"stages[1].position.zoom: unknown key; expected one of "focus""#),
            (#"{"stage": "downsample", "width": 9, "height": 9, "fit": "contain", "background": [0, 0]}"#,
             ##"stages[1].background: expected a colour: [r, g, b], [r, g, b, a] (0 to 255) or "#rrggbb", found an array"##),
            (#"{"stage": "variants", "sizes": ["640"], "formats": ["webp"]}"#,
             #"stages[1].sizes[0]: expected a positive integer or {"width": W, "height": H}, found "640""#),
            (#"{"stage": "variants", "sizes": [{"width": 9, "height": 9, "fit": "cover"}], "formats": ["webp"]}"#,
             #"stages[1].sizes[0].fit: unknown key; expected one of "height", "width""#),
        ]
        for (stage, expected) in cases {
            XCTAssertEqual(failure(stage), expected, stage)
        }
    }

    func testValidateExplainsTheFit() throws {
        let downsample = try decode(#"{"stage": "downsample", "width": 1200, "height": 630, "fit": "cover", "position": "attention"}"#)
        XCTAssertEqual(downsample.explanation(among: []),
                       "width 1200 × height 630 px, cover: cut to the box where libvips' smartcrop finds attention; never upscaled, upright")
        let variants = try decode(#"{"stage": "variants", "sizes": [320, {"width": 1200, "height": 630}], "formats": ["webp"], "fit": "contain"}"#)
        let explanation = try XCTUnwrap(variants.explanation(among: []))
        XCTAssertTrue(explanation.hasPrefix("2 sizes × 1 formats = up to 2 outputs an image: 320, 1200x630 px, contain: padded to the box "
                                                     + "with white, or transparent where the format has alpha (never upscaled"), explanation)
    }
}
