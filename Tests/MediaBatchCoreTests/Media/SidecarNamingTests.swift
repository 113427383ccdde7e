@testable import MediaBatchCore
import MediaFormats
import XCTest

/// Each tool's naming rule on a folder's file names, and each style's name for a copy.
final class SidecarNamingTests: XCTestCase {
    /// The folder's matches and orphans, every name not a sidecar's taken for a media file.
    func matched(_ names: [String]) -> (matches: [SidecarMatch], orphans: [String]) {
        SidecarNaming.match(names) { _ in true }
    }

    func match(_ sidecar: String, _ media: String, _ kind: SidecarKind, _ style: SidecarStyle,
               _ mark: SidecarMatch.Mark? = nil) -> SidecarMatch {
        SidecarMatch(sidecar: sidecar, media: media, kind: kind, style: style, mark: mark)
    }

    func testKindIsTheExtensionsAlone() {
        XCTAssertEqual(SidecarNaming.kind(ofName: "IMG_1234.CR2.xmp"), .xmp)
        XCTAssertEqual(SidecarNaming.kind(ofName: "IMG_1234.XMP"), .xmp)
        XCTAssertEqual(SidecarNaming.kind(ofName: "IMG_1234.AAE"), .aae)
        XCTAssertEqual(SidecarNaming.kind(ofName: "metadata.json"), .takeout)
        XCTAssertNil(SidecarNaming.kind(ofName: "IMG_1234.jpg"))
        XCTAssertNil(SidecarNaming.kind(ofName: "xmp"))
    }

    func testDarktableAppendsToTheWholeName() {
        let found = matched(["IMG_1234.CR2", "IMG_1234.CR2.xmp", "IMG_1234.JPG"])
        XCTAssertEqual(found.matches, [match("IMG_1234.CR2.xmp", "IMG_1234.CR2", .xmp, .appended)])
        XCTAssertEqual(found.orphans, [])
    }

    func testADarktableDuplicateBelongsToItsOriginal() {
        let found = matched(["IMG_1234.CR2", "IMG_1234.CR2.xmp", "IMG_1234_01.CR2.xmp", "IMG_1234_12.CR2.xmp"])
        XCTAssertEqual(found.matches, [
            match("IMG_1234.CR2.xmp", "IMG_1234.CR2", .xmp, .appended),
            match("IMG_1234_01.CR2.xmp", "IMG_1234.CR2", .xmp, .appended, .duplicate(suffix: "_01")),
            match("IMG_1234_12.CR2.xmp", "IMG_1234.CR2", .xmp, .appended, .duplicate(suffix: "_12")),
        ])
        // A file named like a duplicate is its own file's; one digit is no duplicate's number.
        XCTAssertEqual(matched(["IMG_1234_01.CR2", "IMG_1234.CR2", "IMG_1234_01.CR2.xmp"]).matches,
                       [match("IMG_1234_01.CR2.xmp", "IMG_1234_01.CR2", .xmp, .appended)])
        XCTAssertEqual(matched(["IMG_1234.CR2", "IMG_1234_1.CR2.xmp"]).orphans, ["IMG_1234_1.CR2.xmp"])
    }

    func testLightroomReplacesTheExtension() {
        let found = matched(["DSC_0001.NEF", "DSC_0001.xmp", "my.photo.jpg", "my.photo.xmp"])
        XCTAssertEqual(found.matches, [
            match("DSC_0001.xmp", "DSC_0001.NEF", .xmp, .replaced),
            match("my.photo.xmp", "my.photo.jpg", .xmp, .replaced),
        ])
    }

    func testLightroomsXMPGoesToTheRAWOfARAWJPEGPair() {
        XCTAssertEqual(matched(["IMG_1234.JPG", "IMG_1234.CR2", "IMG_1234.xmp"]).matches,
                       [match("IMG_1234.xmp", "IMG_1234.CR2", .xmp, .replaced)])
        XCTAssertEqual(matched(["IMG_1234.PNG", "IMG_1234.JPG", "IMG_1234.xmp"]).matches,
                       [match("IMG_1234.xmp", "IMG_1234.PNG", .xmp, .replaced)], "no RAW: the first listed")
    }

    func testTheRAWExtensionsAreTheFormatTables() {
        let table = MediaFormat.allCases.filter(\.isCameraRaw).flatMap(\.row.extensions)
        XCTAssertEqual(SidecarNaming.rawExtensions, Set(table))
    }

    func testAnAAEGoesWithItsStillBeforeItsMovie() {
        XCTAssertEqual(matched(["IMG_1234.MOV", "IMG_1234.HEIC", "IMG_1234.AAE"]).matches,
                       [match("IMG_1234.AAE", "IMG_1234.HEIC", .aae, .replaced)])
        XCTAssertEqual(matched(["IMG_0002.MOV", "IMG_0002.AAE"]).matches,
                       [match("IMG_0002.AAE", "IMG_0002.MOV", .aae, .replaced)], "a slow-motion clip's")
    }

    func testAnOriginalsAAEGoesWithTheOriginal() {
        let found = matched(["IMG_1234.HEIC", "IMG_E1234.HEIC", "IMG_1234.AAE", "IMG_O1234.AAE"])
        XCTAssertEqual(found.matches, [
            match("IMG_1234.AAE", "IMG_1234.HEIC", .aae, .replaced),
            match("IMG_O1234.AAE", "IMG_1234.HEIC", .aae, .replaced, .original),
        ])
    }

    func testAnAAEGoesWithTheEditedRenderWhenTheOriginalIsNotThere() {
        XCTAssertEqual(matched(["IMG_E1234.JPG", "IMG_1234.AAE", "IMG_O1234.AAE"]).matches, [
            match("IMG_1234.AAE", "IMG_E1234.JPG", .aae, .replaced),
            match("IMG_O1234.AAE", "IMG_E1234.JPG", .aae, .replaced, .original),
        ])
        XCTAssertEqual(matched(["IMG_E1234.JPG", "photo.AAE"]).orphans, ["photo.AAE"])
    }

    func testTakeoutAppendsJSON() {
        XCTAssertEqual(matched(["IMG_1234.jpg", "IMG_1234.jpg.json"]).matches,
                       [match("IMG_1234.jpg.json", "IMG_1234.jpg", .takeout, .appended)])
    }

    func testTakeoutsSupplementalMetadataWholeAndCut() {
        let found = matched(["IMG_1234.jpg", "IMG_1234.jpg.supplemental-metadata.json", "VID_1.mp4", "VID_1.mp4.suppl.json",
                             "Screenshot_2017-07-05-10-05-26.png", "Screenshot_2017-07-05-10-05-26.png.supplementa.json"])
        XCTAssertEqual(found.matches, [
            match("IMG_1234.jpg.supplemental-metadata.json", "IMG_1234.jpg", .takeout, .appended, .supplemental),
            match("VID_1.mp4.suppl.json", "VID_1.mp4", .takeout, .appended, .supplemental),
            match("Screenshot_2017-07-05-10-05-26.png.supplementa.json", "Screenshot_2017-07-05-10-05-26.png", .takeout, .appended, .supplemental),
        ])
        XCTAssertEqual(matched(["IMG_1234.jpg", "IMG_1234.jpg.other.json"]).orphans, ["IMG_1234.jpg.other.json"])
    }

    func testTakeoutCutsLongNamesAt46Characters() {
        let media = "Screenshot_20230101-101010_com.some.long.app.name.png"
        let cut = "Screenshot_20230101-101010_com.some.long.app.n.json"
        XCTAssertEqual(matched([media, cut]).matches, [match(cut, media, .takeout, .appended)])
        // The counter is the name's own here, and cut with it.
        let holiday = "Urlaub in Knaufspesch in der Schneifel (38).JPG"
        XCTAssertEqual(matched([holiday, "Urlaub in Knaufspesch in der Schneifel (38).JP.json"]).matches,
                       [match("Urlaub in Knaufspesch in der Schneifel (38).JP.json", holiday, .takeout, .appended)])
        // Cut at 45 or 47 characters is no cut of Takeout's.
        XCTAssertEqual(matched([media, "Screenshot_20230101-101010_com.some.long.app..json"]).matches, [])
        XCTAssertEqual(matched([media, "Screenshot_20230101-101010_com.some.long.app.na.json"]).matches, [])
    }

    func testACutThatKeepsSomeOfSupplementalIsSupplemental() {
        // `D7157814-…-9CF465CB7D66.jpeg` is 41 characters: 5 of `.supplemental-metadata` are left.
        let media = "D7157814-D2D5-4A62-AFCE-9CF465CB7D66.jpeg"
        XCTAssertEqual(matched([media, "D7157814-D2D5-4A62-AFCE-9CF465CB7D66.jpeg.supp.json"]).matches,
                       [match("D7157814-D2D5-4A62-AFCE-9CF465CB7D66.jpeg.supp.json", media, .takeout, .appended, .supplemental)])
        // 45 characters: the cut leaves the dot alone.
        let long = "Screenshot_20220207_102421_com.snapchat.a.jpg"
        XCTAssertEqual(matched([long, long + "..json"]).matches, [match(long + "..json", long, .takeout, .appended, .supplemental)])
    }

    func testACutTwoNamesShareGoesToTheFirstListed() {
        let png = "Screenshot_20230101-101010_com.some.long.app.name.png"
        let jpeg = "Screenshot_20230101-101010_com.some.long.app.name.jpg"
        let cut = "Screenshot_20230101-101010_com.some.long.app.n.json"
        XCTAssertEqual(matched([jpeg, png, cut]).matches, [match(cut, jpeg, .takeout, .appended)])
        XCTAssertEqual(matched([png, jpeg, cut]).matches, [match(cut, png, .takeout, .appended)])
    }

    func testTakeoutMovesADuplicatesCounterBehindTheExtension() {
        let found = matched(["IMG_1234.jpg", "IMG_1234(1).jpg", "IMG_1234.jpg(1).json", "IMG_1234.jpg.json",
                             "IMG_5678(2).jpg", "IMG_5678.jpg.supplemental-metadata(2).json", "IMG_9(1).jpg", "IMG_9.jpg.supp(1).json"])
        XCTAssertEqual(found.matches, [
            match("IMG_1234.jpg(1).json", "IMG_1234(1).jpg", .takeout, .appended),
            match("IMG_1234.jpg.json", "IMG_1234.jpg", .takeout, .appended),
            match("IMG_5678.jpg.supplemental-metadata(2).json", "IMG_5678(2).jpg", .takeout, .appended, .supplemental),
            match("IMG_9.jpg.supp(1).json", "IMG_9(1).jpg", .takeout, .appended, .supplemental),
        ])
        XCTAssertEqual(matched(["IMG_1234.jpg", "IMG_1234.jpg(1).json"]).orphans, ["IMG_1234.jpg(1).json"], "the duplicate is not there")
    }

    func testAnEditedCopyTakesItsOriginalsJSONOnlyWithoutTheOriginal() {
        XCTAssertEqual(matched(["IMG_1234-edited.jpg", "IMG_1234.jpg", "IMG_1234.jpg.json"]).matches,
                       [match("IMG_1234.jpg.json", "IMG_1234.jpg", .takeout, .appended)])
        XCTAssertEqual(matched(["IMG_1234-edited.jpg", "IMG_1234.jpg.supplemental-metadata.json"]).matches,
                       [match("IMG_1234.jpg.supplemental-metadata.json", "IMG_1234-edited.jpg", .takeout, .appended, .supplemental)])
    }

    func testOrphansAreEverySidecarShapedNameWithoutItsMedia() {
        let names = ["metadata.json", "IMG_1234.jpg.json", "IMG_1234.xmp", "IMG_1234.AAE", "IMG_1234.CR2.xmp", "notes.txt",
                     "print-subscriptions.json", "shared_album_comments.json", "user-generated-memory-titles.json", "IMG_1234.AAE.xmp"]
        let found = SidecarNaming.match(names) { $0 != "notes.txt" }
        XCTAssertEqual(found.matches, [], "a sidecar is never another's, nor a file's that is not media")
        XCTAssertEqual(found.orphans, names.filter { $0 != "notes.txt" })
    }

    func testNamesCompareCaseInsensitively() {
        let found = matched(["img_1234.cr2", "IMG_1234.CR2.XMP", "IMG_1234.XMP", "img_5678.heic", "IMG_5678.aae",
                             "IMG_9.JPG", "img_9.jpg.JSON", "IMG_9.JPG.Supplemental-Metadata.json"])
        XCTAssertEqual(found.matches, [
            match("IMG_1234.CR2.XMP", "img_1234.cr2", .xmp, .appended),
            match("IMG_1234.XMP", "img_1234.cr2", .xmp, .replaced),
            match("IMG_5678.aae", "img_5678.heic", .aae, .replaced),
            match("img_9.jpg.JSON", "IMG_9.JPG", .takeout, .appended),
            match("IMG_9.JPG.Supplemental-Metadata.json", "IMG_9.JPG", .takeout, .appended, .supplemental),
        ])
    }

    func testAppendedCopiesKeepTheSidecarsExtensionAndMarks() {
        func name(_ sidecar: String, _ kind: SidecarKind, _ mark: SidecarMatch.Mark? = nil, output: String = "2023-12-24 1830.jpg") -> String {
            SidecarNaming.name(for: match(sidecar, "IMG_1234.CR2", kind, .appended, mark), outputName: output)
        }
        XCTAssertEqual(name("IMG_1234.CR2.xmp", .xmp), "2023-12-24 1830.jpg.xmp")
        XCTAssertEqual(name("IMG_1234.CR2.XMP", .xmp), "2023-12-24 1830.jpg.XMP")
        XCTAssertEqual(name("IMG_1234_01.CR2.xmp", .xmp, .duplicate(suffix: "_01")), "2023-12-24 1830_01.jpg.xmp")
        XCTAssertEqual(name("IMG_1234_01.CR2.xmp", .xmp, .duplicate(suffix: "_01"), output: "IMG_1234"), "IMG_1234_01.xmp")
        XCTAssertEqual(name("IMG_1234.jpg(1).json", .takeout), "2023-12-24 1830.jpg.json")
        XCTAssertEqual(name("IMG_1234.jpg.suppl.json", .takeout, .supplemental), "2023-12-24 1830.jpg.supplemental-metadata.json")
        let long = String(repeating: "x", count: 60) + ".jpg"
        XCTAssertEqual(name("IMG_1234.jpg.supplemental-metadata.json", .takeout, .supplemental, output: long),
                       long + ".supplemental-metadata.json", "never cut")
    }

    func testReplacedCopiesTakeTheOutputsStem() {
        func name(_ sidecar: String, _ kind: SidecarKind, _ mark: SidecarMatch.Mark? = nil, output: String) -> String {
            SidecarNaming.name(for: match(sidecar, "IMG_1234.HEIC", kind, .replaced, mark), outputName: output)
        }
        XCTAssertEqual(name("IMG_1234.xmp", .xmp, output: "IMG_1234.jpg"), "IMG_1234.xmp")
        XCTAssertEqual(name("IMG_1234.XMP", .xmp, output: "summer.v2.jpg"), "summer.v2.XMP")
        XCTAssertEqual(name("IMG_1234.AAE", .aae, output: "IMG_1234.jpg"), "IMG_1234.AAE")
        XCTAssertEqual(name("IMG_O1234.AAE", .aae, .original, output: "IMG_1234.jpg"), "IMG_O1234.AAE")
        XCTAssertEqual(name("IMG_O1234.aae", .aae, .original, output: "beach.jpg"), "beach_O.aae")
    }
}
