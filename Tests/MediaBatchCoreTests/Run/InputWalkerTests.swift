import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
import XCTest

final class InputWalkerTests: XCTestCase, RunsPipelines {
    func testListsSortedAppliesGlobsAndSkipsTheOutputRoot() throws {
        let root = Fixtures.temporaryFolder()
        for path in ["b.jpg", "a.jpg", ".hidden.jpg", "2024/c.heic", "2024/.thumbs/d.jpg", "out/old.jpg", "notes.txt"] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data().write(to: url)
        }
        let walker = InputWalker(root: root, include: [Glob("**/*")], exclude: [Glob("**/.*"), Glob("**/*.txt")],
                                 skipping: root.appendingPathComponent("out"))
        XCTAssertEqual(walker.map(\.relativePath), ["a.jpg", "b.jpg", "2024/c.heic"])
        let item = walker.first { $0.relativePath == "2024/c.heic" }!
        XCTAssertEqual([item.relativeFolder, item.stem, item.pathExtension], ["2024", "c", "heic"])
    }
}
