import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
import XCTest

final class InputWalkerTests: XCTestCase, RunsPipelines {
    func testFollowSymlinksReadsOutsideFilesAndEntersEachFolderOnce() throws {
        let input = Fixtures.temporaryFolder()
        let outside = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: outside.appendingPathComponent("shared.jpg").path)
        try FileManager.default.createDirectory(at: input.appendingPathComponent("a"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.sample("png/macos_screenshot_exif.png"), toPath: input.appendingPathComponent("a/shot.png").path)
        try FileManager.default.createSymbolicLink(atPath: input.appendingPathComponent("a/up").path, withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: input.appendingPathComponent("linked").path, withDestinationPath: outside.path)
        let report = try Self.run(try pipeline(webStages, input: #"{"followSymlinks": true}"#), input: input, output: Fixtures.temporaryFolder())
        XCTAssertEqual(report.items.map(\.input).sorted(), ["a/shot.png", "linked/shared.jpg"])
        XCTAssertEqual(report.totals.ok, 2)
    }
}
