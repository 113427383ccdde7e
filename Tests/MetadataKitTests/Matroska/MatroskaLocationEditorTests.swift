import Foundation
import MediaFormats
@testable import MetadataKit
import TestSupport
import XCTest

/// Location tags become Void elements of their own length, wherever the tags are: before the
/// clusters (ffmpeg), or after a cluster of unknown size (a live recording's).
final class MatroskaLocationEditorTests: XCTestCase {
    /// An EBML element: its ID's bytes, a size of `sizeLength` bytes (nil: unknown), its data.
    private func element(_ id: [UInt8], _ data: [UInt8], unknownSize: Bool = false) -> [UInt8] {
        if unknownSize { return id + [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + data }
        return id + [0x01] + (0..<7).reversed().map { UInt8(truncatingIfNeeded: data.count >> ($0 * 8)) } + data
    }

    private func simpleTag(_ name: String, _ value: String) -> [UInt8] {
        element([0x67, 0xC8], element([0x45, 0xA3], Array(name.utf8)) + element([0x44, 0x87], Array(value.utf8)))
    }

    /// A live recording's layout: segment and cluster of unknown size, the tags after the cluster.
    private func liveFile() -> [UInt8] {
        let header = element([0x1A, 0x45, 0xDF, 0xA3], element([0x42, 0x82], Array("webm".utf8)))
        let cluster = element([0x1F, 0x43, 0xB6, 0x75], element([0xE7], [0]) + element([0xA3], [0x81, 0, 0, 0x80, 1, 2, 3]), unknownSize: true)
        let tags = element([0x12, 0x54, 0xC3, 0x67], element([0x73, 0x73], simpleTag("TITLE", "Harbour") + simpleTag("LOCATION", "+51.4169-000.0806/")))
        return header + element([0x18, 0x53, 0x80, 0x67], cluster + tags, unknownSize: true)
    }

    func testATagAfterAClusterOfUnknownSizeIsFoundAndVoidedInPlace() throws {
        let folder = Fixtures.temporaryFolder()
        let input = folder.appendingPathComponent("live.webm").path, output = folder.appendingPathComponent("out.webm").path
        let file = liveFile()
        try Data(file).write(to: URL(fileURLWithPath: input))
        XCTAssertTrue(MatroskaLocationEditor.carriesLocation(path: input))
        let report = try MatroskaLocationEditor.writeWithoutLocation(from: input, to: output)
        XCTAssertEqual(report.removed, ["Tags/SimpleTag:LOCATION"])
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        XCTAssertEqual(written.count, file.count)
        XCTAssertNil(written.firstRange(of: Array("+51.4169".utf8)))
        XCTAssertNotNil(written.firstRange(of: Array("Harbour".utf8)), "the other tag stays")
        let location = try XCTUnwrap(file.firstRange(of: simpleTag("LOCATION", "+51.4169-000.0806/")))
        XCTAssertEqual(Array(written[..<location.lowerBound]), Array(file[..<location.lowerBound]), "nothing before it moved")
        XCTAssertFalse(MatroskaLocationEditor.carriesLocation(path: output))
    }

    /// A Void of any length from 2 bytes on is one element of exactly that length.
    func testAVoidIsOneElementOfExactlyTheLengthItReplaces() throws {
        for length in Array(2...20) + [126, 127, 128, 1000, 70_000] {
            let void = MatroskaLocationEditor.void(length: length)
            XCTAssertEqual(void.count, length)
            XCTAssertEqual(void.first, 0xEC)
            let (size, sizeLength) = try XCTUnwrap(EBMLHeader.vint(void, at: 1))
            XCTAssertEqual(1 + sizeLength + size, length, "\(length)")
            XCTAssertNotEqual(size, (1 << (7 * sizeLength)) - 1, "\(length): not the unknown size")
        }
    }

    func testWhatIsAndIsNotALocationTag() {
        for name in ["LOCATION", "location-eng", "RECORDING_LOCATION", "com.apple.quicktime.location.ISO6709", "GPS_LATITUDE"] {
            XCTAssertTrue(MatroskaLocationEditor.isLocation(name), name)
        }
        for name in ["TITLE", "ENCODER", "DATE_RECORDED", "COMMENT"] {
            XCTAssertFalse(MatroskaLocationEditor.isLocation(name), name)
        }
    }

    func testAFileThatIsNotMatroskaIsRefused() throws {
        let folder = Fixtures.temporaryFolder()
        let input = folder.appendingPathComponent("cut.mkv").path
        try Data(Array(liveFile().prefix(30)) + [0x1F, 0x43, 0xB6]).write(to: URL(fileURLWithPath: input))
        XCTAssertThrowsError(try MatroskaLocationEditor.writeWithoutLocation(from: input, to: folder.appendingPathComponent("out").path))
        XCTAssertFalse(MatroskaLocationEditor.carriesLocation(path: input))
    }
}
