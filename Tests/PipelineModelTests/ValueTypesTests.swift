@testable import PipelineModel
import XCTest

final class ByteSizeTests: XCTestCase {
    func testUnits() {
        XCTAssertEqual(ByteSize(parsing: "600MiB")?.bytes, 600 << 20)
        XCTAssertEqual(ByteSize(parsing: "1GiB")?.bytes, 1 << 30)
        XCTAssertEqual(ByteSize(parsing: "1.5 GiB")?.bytes, 3 << 29)
        XCTAssertEqual(ByteSize(parsing: "512MB")?.bytes, 512_000_000)
        XCTAssertEqual(ByteSize(parsing: "4096")?.bytes, 4096)
        XCTAssertEqual(ByteSize(parsing: "4096B")?.bytes, 4096)
        XCTAssertNil(ByteSize(parsing: "lots"))
        XCTAssertNil(ByteSize(parsing: "-1GiB"))
        XCTAssertNil(ByteSize(parsing: "0"))
        XCTAssertEqual(ByteSize.format(600 << 20), "600 MiB")
        XCTAssertEqual(ByteSize.format(3 << 29), "1.5 GiB")
    }
}

final class GlobTests: XCTestCase {
    func testDoubleStarSpansFolders() {
        let all = Glob("**/*")
        XCTAssertTrue(all.matches("a.jpg"))
        XCTAssertTrue(all.matches("x/y/a.jpg"))
        let hidden = Glob("**/.*")
        XCTAssertTrue(hidden.matches(".DS_Store"))
        XCTAssertTrue(hidden.matches("2024/.thumbs"))
        XCTAssertFalse(hidden.matches("2024/a.jpg"))
    }

    func testStarStaysInOneComponent() {
        XCTAssertTrue(Glob("*.heic").matches("IMG_1.heic"))
        XCTAssertFalse(Glob("*.heic").matches("2024/IMG_1.heic"))
        XCTAssertTrue(Glob("2024/*/IMG_?.heic").matches("2024/05/IMG_1.heic"))
        XCTAssertFalse(Glob("2024/*/IMG_?.heic").matches("2024/05/IMG_12.heic"))
        XCTAssertTrue(Glob("**/IMG_*").matches("a/b/c/IMG_0001.JPG"))
    }
}

final class PathTemplateTests: XCTestCase {
    func testRendersAndCollapsesEmptyFolders() throws {
        let template = try PathTemplate("{dir}/{stem}.{ext}")
        XCTAssertEqual(template.render(dir: "2024/05", stem: "IMG_1", ext: "jpg"), "2024/05/IMG_1.jpg")
        XCTAssertEqual(template.render(dir: "", stem: "IMG_1", ext: "jpg"), "IMG_1.jpg")
        XCTAssertEqual(try PathTemplate("web/{stem}-2048.{ext}").render(dir: "x", stem: "a", ext: "webp"), "web/a-2048.webp")
    }

    func testRejectsTemplatesThatCouldCollideOrEscape() {
        XCTAssertThrowsError(try PathTemplate("{dir}/photo.jpg"))
        XCTAssertThrowsError(try PathTemplate("a/../../{stem}"))
        XCTAssertThrowsError(try PathTemplate("/abs/{stem}"))
        XCTAssertThrowsError(try PathTemplate("{stem"))
        XCTAssertThrowsError(try PathTemplate(""))
    }
}
