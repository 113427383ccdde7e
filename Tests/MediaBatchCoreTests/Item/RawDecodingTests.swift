@testable import MediaBatchCore
import PipelineModel
import XCTest

/// Where a RAW's picture comes from, for the largest picture the stages need: the rule alone
/// (`RawPictureTests` runs it on real files).
final class RawDecodingTests: XCTestCase {
    /// A 6000×4000 sensor with a 1620×1080 preview.
    private func raw(_ mode: DecodeStage.RawSource, preview: PixelSize? = PixelSize(width: 1620, height: 1080)) -> RawDecoding {
        RawDecoding(mode: mode, developed: PixelSize(width: 6000, height: 4000), preview: preview, orientation: 1)
    }

    func testAutoTakesThePreviewWhenItsLongestSideCoversWhatIsNeeded() {
        XCTAssertEqual(raw(.auto).choice(needing: 1620), .preview)
        XCTAssertEqual(raw(.auto).choice(needing: 1080), .preview)
        XCTAssertEqual(raw(.auto).choice(needing: 1621), .develop(halfSize: true))
        XCTAssertEqual(raw(.auto, preview: nil).choice(needing: 100), .develop(halfSize: true), "no preview: a develop")
    }

    func testADevelopIsHalfSizeWhereHalfTheSensorIsEnough() {
        XCTAssertEqual(raw(.develop).choice(needing: 3000), .develop(halfSize: true))
        XCTAssertEqual(raw(.develop).choice(needing: 3001), .develop(halfSize: false))
        XCTAssertEqual(raw(.develop).choice(needing: nil), .develop(halfSize: false), "the whole picture")
        XCTAssertEqual(raw(.develop).choice(needing: 100), .develop(halfSize: true), "develop never takes the preview")
    }

    func testPreviewTakesThePreviewWhateverIsNeeded() {
        XCTAssertEqual(raw(.preview).choice(needing: nil), .preview)
        XCTAssertEqual(raw(.preview).choice(needing: 6000), .preview)
    }

    /// libjpeg decodes the preview 2, 4 or 8 times smaller where that still covers what is needed.
    func testThePreviewIsShrunkOnLoadAsFarAsItStillCovers() {
        XCTAssertEqual(raw(.auto).previewShrink(needing: 1620), 1)
        XCTAssertEqual(raw(.auto).previewShrink(needing: 810), 2)
        XCTAssertEqual(raw(.auto).previewShrink(needing: 811), 1)
        XCTAssertEqual(raw(.auto).previewShrink(needing: 203), 8, "1620 / 8 rounds up to 203")
        XCTAssertEqual(raw(.preview).previewShrink(needing: 6000), 1, "smaller than asked: whole")
    }
}
