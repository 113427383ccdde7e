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
        XCTAssertEqual(template.render(.init(dir: "2024/05", stem: "IMG_1", ext: "jpg", inputExt: "heic")), "2024/05/IMG_1.jpg")
        XCTAssertEqual(try PathTemplate("{stem}.{inputExt}.{ext}").render(.init(dir: "", stem: "IMG_1", ext: "jpg", inputExt: "cr2")), "IMG_1.cr2.jpg")
        // A movie beside its poster's variants has no size: the separator before {size} goes with it.
        XCTAssertEqual(try PathTemplate("{stem}-{size}.{ext}").render(.init(dir: "", stem: "IMG_1", ext: "mov", inputExt: "mov")), "IMG_1.mov")
        // {codec} names a rendition; any other output drops it with the separator before it.
        let renditions = try PathTemplate("{stem}.{codec}.{ext}")
        XCTAssertEqual(renditions.render(.init(dir: "", stem: "IMG_1", ext: "mp4", inputExt: "mov", codec: "av1")), "IMG_1.av1.mp4")
        XCTAssertEqual(renditions.render(.init(dir: "", stem: "IMG_1", ext: "jpg", inputExt: "heic")), "IMG_1.jpg")
        XCTAssertEqual(template.render(.init(dir: "", stem: "IMG_1", ext: "jpg", inputExt: "heic")), "IMG_1.jpg")
        XCTAssertEqual(try PathTemplate("web/{stem}-2048.{ext}").render(.init(dir: "x", stem: "a", ext: "webp", inputExt: "heic")), "web/a-2048.webp")
    }

    func testCaptureDateFoldersUseTheCameraClock() throws {
        let template = try PathTemplate("{date:yyyy}/{date:MM}/{date:yyyy-MM-dd_HH.mm.ss}_{stem}.{ext}")
        // 23:30 in Moscow on 21 February is 20:30 UTC: the folder is the camera's day.
        let parsed = try XCTUnwrap(ISODate.parseWithOffset("2023-02-21T23:30:08+03:00"))
        XCTAssertEqual(parsed.utcOffsetSeconds, 10800)
        XCTAssertEqual(template.render(.init(dir: "", stem: "pug", ext: "jpg", inputExt: "heic", captured: parsed)),
                       "2023/02/2023-02-21_23.30.08_pug.jpg")
        // Zone-less dates are read as UTC, so they come out as written.
        let zoneless = try XCTUnwrap(ISODate.parseWithOffset("2019-12-31T23:59:59"))
        XCTAssertNil(zoneless.utcOffsetSeconds)
        XCTAssertEqual(template.render(.init(dir: "", stem: "a", ext: "jpg", inputExt: "heic", captured: zoneless)), "2019/12/2019-12-31_23.59.59_a.jpg")
        XCTAssertEqual(template.render(.init(dir: "", stem: "a", ext: "jpg", inputExt: "heic")), "unknown/unknown/unknown_a.jpg")
    }

    func testInputHashPrefix() throws {
        let hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
        XCTAssertEqual(try PathTemplate("{inputHash:8}.{ext}").render(.init(dir: "a", stem: "b", ext: "jpg", inputExt: "heic", inputHash: hash)), "9f86d081.jpg")
        XCTAssertEqual(try PathTemplate("{inputHash}").render(.init(dir: "", stem: "", ext: "", inputExt: "", inputHash: hash)), hash)
    }

    /// `{hash}` is the output's own: the path keeps `{hash:N}` until its bytes are known, then takes their hash's first N digits.
    func testOutputHashIsFilledInOnceTheBytesAreKnown() throws {
        let hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
        let planned = try PathTemplate("{hash:4}/{stem}.{hash}.{ext}").render(.init(dir: "", stem: "a", ext: "webp", inputExt: "jpg"))
        XCTAssertEqual(planned, "{hash:4}/a.{hash:10}.webp")
        XCTAssertTrue(PathTemplate.awaitsOutputHash(planned))
        XCTAssertEqual(PathTemplate.resolvingOutputHash(planned, hash: hash), "9f86/a.9f86d08188.webp")
        XCTAssertEqual(PathTemplate.resolvingOutputHash(try PathTemplate("{hash:+064}").render(.init(dir: "", stem: "", ext: "", inputExt: "")), hash: hash), hash)
        XCTAssertFalse(PathTemplate.awaitsOutputHash("a/{stem}.jpg"))
    }

    /// A dry run hashes an input only for a template that names outputs after the input's hash.
    func testKnowsWhichHashesItNeeds() throws {
        XCTAssertTrue(try PathTemplate("{inputHash:8}.{ext}").usesInputHash)
        XCTAssertFalse(try PathTemplate("{inputHash:8}.{ext}").awaitsOutputHash)
        XCTAssertTrue(try PathTemplate("{dir}/{stem}-{hash}.{ext}").awaitsOutputHash)
        XCTAssertFalse(try PathTemplate("{dir}/{stem}-{hash}.{ext}").usesInputHash)
        XCTAssertFalse(try PathTemplate("{date:yyyy}/{dir}/{stem}.{ext}").usesInputHash)
        XCTAssertFalse(try PathTemplate("hash/{stem}.{ext}").awaitsOutputHash, "literal text named hash is no placeholder")
    }

    func testRejectsTemplatesThatCouldCollideOrEscape() {
        XCTAssertThrowsError(try PathTemplate("{dir}/photo.jpg"))
        XCTAssertThrowsError(try PathTemplate("{date:yyyy}/photo.jpg"), "a date alone names many items alike")
        XCTAssertThrowsError(try PathTemplate("a/../../{stem}"))
        XCTAssertThrowsError(try PathTemplate("/abs/{stem}"))
        XCTAssertThrowsError(try PathTemplate("{stem"))
        XCTAssertThrowsError(try PathTemplate(""))
        XCTAssertThrowsError(try PathTemplate("{hash:3}"))
        XCTAssertThrowsError(try PathTemplate("{hash:65}"))
        XCTAssertThrowsError(try PathTemplate("{inputHash:3}"))
        XCTAssertThrowsError(try PathTemplate("{date:yyyy/MM}/{stem}"), "a / inside {date:…} is not a date field")
        XCTAssertThrowsError(try PathTemplate("{date:}/{stem}"))
    }
}
