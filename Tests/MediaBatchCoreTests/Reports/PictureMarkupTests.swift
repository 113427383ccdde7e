@testable import MediaBatchCore
import XCTest

/// The markup of manifest items of every shape `mediabatch html` meets (a real run's, parsed, is
/// in `HTMLCommandTests`).
final class PictureMarkupTests: XCTestCase {
    func variant(_ path: String, _ format: String, width: Int? = nil, height: Int? = nil, bytes: Int = 100) -> Manifest.Variant {
        Manifest.Variant(path: path, format: format, size: width.map { .longestSide($0) }, width: width,
                         height: height ?? width.map { $0 / 2 }, bytes: bytes)
    }

    func pictures(_ variants: [Manifest.Variant], caption: String? = nil, _ options: PictureMarkup.Options = .init()) -> [PictureMarkup] {
        PictureMarkup.of(Manifest.Item(input: "in", width: nil, height: nil, placeholder: nil, caption: caption, variants: variants), options)
    }

    func testAMovieIsAVideoWithASourcePerOutput() throws {
        let markup = try XCTUnwrap(pictures([variant("clips/a b.mp4", "mp4"), variant("clips/a.mov", "mov")]).first)
        XCTAssertEqual(markup.html(.init()), """
            <video controls preload="metadata">
              <source src="clips/a%20b.mp4" type="video/mp4">
              <source src="clips/a.mov" type="video/quicktime">
            </video>
            """)
    }

    func testWithoutAFormatEveryBrowserShowsTheSmallestIsTheImage() throws {
        let markup = try XCTUnwrap(pictures([variant("a.avif", "avif", width: 10, bytes: 50), variant("a.webp", "webp", width: 10, bytes: 80)]).first)
        XCTAssertEqual(markup.sources, [.init(type: "image/webp", srcset: "a.webp 10w")])
        XCTAssertEqual(markup.img, .init(src: "a.avif", srcset: nil, width: 10, height: 5))
    }

    func testSourcesGoSmallestFirstAndTheImgIsTheJPEG() throws {
        let variants = [variant("a-1.jpg", "jpeg", width: 100, bytes: 900), variant("a-2.jpg", "jpeg", width: 200, bytes: 900),
                        variant("a-1.webp", "webp", width: 100, bytes: 500), variant("a-2.webp", "webp", width: 200, bytes: 500),
                        variant("a-1.avif", "avif", width: 100, bytes: 300), variant("a-2.avif", "avif", width: 200, bytes: 300)]
        let markup = try XCTUnwrap(pictures(variants).first)
        XCTAssertEqual(markup.sources?.map(\.type), ["image/avif", "image/webp"])
        XCTAssertEqual(markup.img, .init(src: "a-2.jpg", srcset: "a-1.jpg 100w, a-2.jpg 200w", width: 200, height: 100))
    }

    func testURLsAndTextAreEscaped() throws {
        var options = PictureMarkup.Options()
        options.baseURL = "/img"
        let markup = try XCTUnwrap(pictures([variant("x,y/a \"1\".jpg", "jpeg", width: 8)], caption: #"Tom & "Jerry" <3"#, options).first)
        XCTAssertEqual(markup.img?.src, "/img/x%2Cy/a%20%221%22.jpg", "a comma would split a srcset")
        XCTAssertTrue(markup.html(options).contains(#"alt="Tom &amp; &quot;Jerry&quot; &lt;3""#), markup.html(options))
    }

    func testOutputsOfNoWebTypeMakeNothing() {
        XCTAssertEqual(pictures([variant("a.bin", "unknown")]), [])
        XCTAssertEqual(pictures([]), [])
    }

    /// A 16:9 hero in three widths and a square thumbnail: two pictures, the widest first, each
    /// `srcset` of one shape (a photo narrower than a box keeps the box's shape, within rounding).
    func testEachShapeIsAPictureOfItsOwn() {
        let variants = [variant("s.jpg", "jpeg", width: 320, height: 320), variant("h1.jpg", "jpeg", width: 640, height: 360),
                        variant("h2.jpg", "jpeg", width: 1280, height: 720), variant("h3.jpg", "jpeg", width: 1800, height: 1013)]
        let shown = pictures(variants)
        XCTAssertEqual(shown.map { $0.img?.srcset }, ["h1.jpg 640w, h2.jpg 1280w, h3.jpg 1800w", nil])
        XCTAssertEqual(shown.map { $0.img?.src }, ["h3.jpg", "s.jpg"])
    }
}
